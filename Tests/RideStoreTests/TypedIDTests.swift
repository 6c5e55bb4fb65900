import Foundation
import GRDB
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// Typed ids (`ID<Kind>`): the kind is the compiler's alone; every outside form (text, JSON, SQLite, PostgreSQL) is
/// the `ShortID`'s 8 characters, so stored data and the API are as before.
@Suite struct TypedIDTests {
    @Test func theTextAndJSONFormsAreTheShortIDs() throws {
        let short = try #require(ShortID("7k3m-zq0a"))
        let track = try #require(TrackID("7k3m-zq0a"))
        #expect(track.rawValue == "7K3MZQ0A" && track.description == "7K3MZQ0A")
        #expect(track.shortID == short)
        #expect(TrackID(track.description) == track)  // LosslessStringConvertible round trip
        #expect(TrackID("7K3MZQ0U") == nil && TrackID("") == nil)
        let json = try JSONEncoder().encode([track])
        #expect(String(decoding: json, as: UTF8.self) == #"["7K3MZQ0A"]"#)
        #expect(try JSONDecoder().decode([TrackID].self, from: json) == [track])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([TrackID].self, from: Data(#"["not an id"]"#.utf8)) }
        // Two kinds of one id compare by their ShortID once converted, the one explicit step.
        #expect(DeviceID(track.shortID).rawValue == track.rawValue)
        #expect([TrackID("00000001")!, TrackID("00000000")!].sorted() == [TrackID("00000000")!, TrackID("00000001")!])
    }

    @Test func sqliteStoresTheEightCharacters() throws {
        let queue = try DatabaseQueue()
        let id = PlaceID.random()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE sample (id TEXT NOT NULL)")
            try db.execute(sql: "INSERT INTO sample VALUES (?)", arguments: [id])
            #expect(try String.fetchOne(db, sql: "SELECT id FROM sample") == id.rawValue)
            #expect(try PlaceID.fetchOne(db, sql: "SELECT id FROM sample") == id)
            try db.execute(sql: "UPDATE sample SET id = 'not an id'")
            #expect(try PlaceID.fetchOne(db, sql: "SELECT id FROM sample WHERE typeof(id) = 'text' AND length(id) = 8") == nil)
        }
        #expect(PlaceID.fromDatabaseValue("not an id".databaseValue) == nil)
    }

    @Test func postgresBindsAndReadsTheEightCharactersAsText() throws {
        let id = UserID.random()
        var buffer = ByteBuffer()
        id.encode(into: &buffer, context: .default)
        #expect(UserID.psqlType == .text)
        #expect(buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes) == id.rawValue)
        #expect(try UserID(from: &buffer, type: .text, format: .binary, context: .default) == id)
        var bad = ByteBuffer(string: "not an id")
        #expect(throws: (any Error).self) { try UserID(from: &bad, type: .text, format: .binary, context: .default) }
    }
}
