import Foundation
import GRDB
import Testing

import RideKit
@testable import RideStore

/// Migration "v10 share tokens stored hashed" (DESIGN 5): links made while tokens were kept in clear keep working,
/// and the database no longer holds a working token.
@Suite struct SQLiteShareTokenHashMigrationTests {
    @Test func linksMadeBeforeKeepWorkingAndTheirTokensAreGoneFromTheDatabase() async throws {
        let test = try TestStore()
        let folder = test.folder.appending(path: "old")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appending(path: "bikeride.sqlite").path
        let placeToken = String(repeating: "p", count: 43), trackLessToken = String(repeating: "q", count: 43)
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteRideStore.migrator.migrate(queue, upTo: "v9 privacy zones and ride shares")
            try await queue.write { db in
                try db.execute(sql: "INSERT INTO user (id, name, createdAt) VALUES ('AAAA0001', 'local', 0)")
                try db.execute(
                    sql: "INSERT INTO place (id, userId, latitude, longitude, name, createdAt, updatedAt) VALUES ('PPPP0001', 'AAAA0001', 46.5, 6.6, 'Here', 0, 0)")
                try db.execute(sql: "INSERT INTO shareLink (token, userId, targetKind, targetId, createdAt) VALUES (?, 'AAAA0001', 'place', 'PPPP0001', 0)", arguments: [placeToken])
                try db.execute(
                    sql: "INSERT INTO shareLink (token, userId, targetKind, targetId, createdAt, revokedAt) VALUES (?, 'AAAA0001', 'place', 'PPPP0001', 0, 1)",
                    arguments: [trackLessToken])
            }
        }
        let store = try SQLiteRideStore(path: path)
        #expect(try await store.shareLink(token: placeToken)?.placeID == PlaceID("PPPP0001"))
        #expect(try await store.shareLink(token: trackLessToken) == nil)  // revoked before, still revoked
        let stored = try await store.writer.read { db in try String.fetchAll(db, sql: "SELECT token FROM shareLink") }
        #expect(stored.count == 2 && !stored.contains(placeToken) && !stored.contains(trackLessToken))
        #expect(stored.allSatisfy { $0.count == 64 && $0.allSatisfy(\.isHexDigit) })
        // The token in the address is the only way in: its stored form opens nothing.
        #expect(try await store.shareLink(token: try #require(stored.first)) == nil)
    }
}
