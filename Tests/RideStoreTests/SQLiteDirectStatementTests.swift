import Foundation
import GRDB
import Testing

import RideKit
@testable import RideStore

/// The ingestion path's statements run through SQLite's C interface: the values they bind and read back must be
/// the ones GRDB would have stored, and SQLite's errors must still reach the caller.
@Suite struct SQLiteDirectStatementTests {
    @Test func valuesBoundDirectlyReadBackThroughGRDBAndDirectly() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE sample (id TEXT PRIMARY KEY, count INTEGER, ratio REAL, note TEXT, bytes BLOB)")
            let id = try #require(TrackID("0123ABCD"))
            let insert = try DirectStatement(db, "INSERT INTO sample VALUES (?, ?, ?, ?, ?)")
            #expect(try insert.execute(id, Int64.max, -0.5, "é ünïcode 🚲", Data([0, 1, 255])) == 1)
            #expect(try insert.execute(ShortID("0123ABCE"), Int?.none, Double?.none, String?.none, Data()) == 1)

            let row = try #require(try Row.fetchOne(db, sql: "SELECT * FROM sample WHERE id = ?", arguments: ["0123ABCD"]))
            let count: Int64? = row["count"], ratio: Double? = row["ratio"], note: String? = row["note"], bytes: Data? = row["bytes"]
            #expect(count == Int64.max)
            #expect(ratio == -0.5)
            #expect(note == "é ünïcode 🚲")
            #expect(bytes == Data([0, 1, 255]))
            // nil is NULL; an empty Data is an empty blob, not NULL.
            let empty = try #require(try Row.fetchOne(db, sql: "SELECT count IS NULL, ratio IS NULL, note IS NULL, typeof(bytes) FROM sample WHERE id = '0123ABCE'"))
            let nulls: [Bool] = [empty[0], empty[1], empty[2]], type: String = empty[3]
            #expect(nulls == [true, true, true])
            #expect(type == "blob")

            let select = try DirectStatement(db, "SELECT id, count, ratio, note, bytes FROM sample ORDER BY id")
            let rows = try select.fetchAll { row in
                (try row.id(0) as TrackID, row.optionalInt64(1), row.isNull(2), row.text(3), row.data(4))
            }
            #expect(rows.count == 2)
            #expect(rows[0].0 == id)
            #expect(rows[0].1 == Int64.max)
            #expect(!rows[0].2)
            #expect(rows[0].3 == "é ünïcode 🚲")
            #expect(rows[0].4 == Data([0, 1, 255]))
            #expect(rows[1].1 == nil)
            #expect(rows[1].2)
            #expect(rows[1].3 == nil)
            #expect(rows[1].4.isEmpty)
            // A NUL byte inside a string is neither a cut going in nor coming out.
            try insert.execute(ShortID("0123ABCF"), 1, 1.0, "before\u{0}after", Data())
            #expect(try Int.fetchOne(db, sql: "SELECT length(CAST(note AS BLOB)) FROM sample WHERE id = '0123ABCF'") == 12)
            #expect(try DirectStatement(db, "SELECT note FROM sample WHERE id = ?").fetchOne("0123ABCF") { $0.text(0) } == "before\u{0}after")
            try db.execute(sql: "DELETE FROM sample WHERE id = '0123ABCF'")
            // The same cached statement runs again with new values (it was reset).
            #expect(try DirectStatement(db, "SELECT count FROM sample WHERE id = ?").fetchOne(id) { $0.int64(0) } == Int64.max)
            #expect(try DirectStatement(db, "SELECT count FROM sample WHERE id = ?").fetchOne("none") { $0.int64(0) } == nil)
        }
    }

    @Test func sqliteErrorsAndWrongArgumentCountsAreThrownNotIgnored() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE sample (id TEXT PRIMARY KEY, count INTEGER NOT NULL)")
            let insert = try DirectStatement(db, "INSERT INTO sample VALUES (?, ?)")
            try insert.execute("a", 1)
            #expect(throws: DatabaseError.self) { try insert.execute("a", 2) }
            #expect(throws: DatabaseError.self) { try insert.execute("b", Int?.none) }
            #expect(throws: RideStoreError.self) { try insert.execute("c") }
            // After a failure the statement is usable again, and nothing of the failed rows was stored.
            try insert.execute("d", 4)
            #expect(try Int.fetchOne(db, sql: "SELECT SUM(count) FROM sample") == 5)
            // A malformed id in a row is damage, named, not a guess.
            try db.execute(sql: "INSERT INTO sample VALUES ('not an id', 9)")
            #expect(throws: RideStoreError.self) {
                _ = try DirectStatement(db, "SELECT id FROM sample WHERE count = 9").fetchOne { try $0.id(0) as TrackID }
            }
        }
    }
}
