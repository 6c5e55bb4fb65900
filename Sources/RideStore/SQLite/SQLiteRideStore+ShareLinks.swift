import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// The `shareLink` table (DESIGN 5): a token, its user, what it shows (`targetKind` `place` and its id), when
    /// made and revoked. The target is not a foreign key because a link may one day show other kinds (a
    /// track); a link whose place is gone shows nothing.
    /// Migration "v10 share tokens stored hashed" (DESIGN 5): the links made before keep working, their tokens now
    /// kept as SHA-256 like sessions' and devices'.
    static func registerShareTokenHashMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10 share tokens stored hashed") { db in
            let tokens = try String.fetchAll(db, sql: "SELECT token FROM shareLink")
            for token in tokens {
                try db.execute(sql: "UPDATE shareLink SET token = ? WHERE token = ?", arguments: [ShareLinkRules.storedToken(token), token])
            }
        }
    }

    static func registerShareLinkMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3 share links") { db in
            try db.create(table: "shareLink") { t in
                t.primaryKey("token", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("targetKind", .text).notNull()
                t.column("targetId", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("revokedAt", .integer)
            }
            try db.create(index: "shareLink_target", on: "shareLink", columns: ["targetKind", "targetId"])
        }
    }

    public func createShareLink(token: String, placeID: PlaceID, userID: UserID) async throws -> ShareLink {
        guard ShareLink.isWellFormed(token: token) else {
            throw RideStoreError.invalid(field: "token", reason: "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _")
        }
        return try await write { db in
            guard try Self.placeRecord(db, id: placeID, userID: userID) != nil else {
                throw RideStoreError.notFound(kind: "place", id: placeID.rawValue)
            }
            let stored = ShareLinkRules.storedToken(token)
            guard try ShareLinkRecord.exists(db, key: stored) == false else { throw RideStoreError.conflict("the token is taken") }
            let record = ShareLinkRecord(token: stored, userId: userID, targetKind: "place", targetId: placeID.rawValue, createdAt: StoreClock.now())
            try record.insert(db)
            return try record.link(token: token)
        }
    }

    public func shareLink(token: String) async throws -> ShareLink? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await read { db in
            guard let record = try ShareLinkRecord.fetchOne(db, key: ShareLinkRules.storedToken(token)) else { return nil }
            let placeIsTheOwners = try PlaceID(record.targetId).map { try Self.placeRecord(db, id: $0, userID: record.userId) != nil } ?? false
            guard ShareLinkRules.placeLinkShows(targetKind: record.targetKind, revokedAt: record.revokedAt, placeIsTheOwners: placeIsTheOwners)
            else { return nil }
            return try record.link(token: token)
        }
    }

    public func revokeShareLink(token: String, userID: UserID) async throws -> Bool {
        guard ShareLink.isWellFormed(token: token) else { return false }
        return try await write { db in
            // The token of the link, or what the store keeps of it (the id `activeShares` lists).
            try db.execute(
                sql: "UPDATE shareLink SET revokedAt = ? WHERE token IN (?, ?) AND userId = ? AND revokedAt IS NULL",
                arguments: [StoreClock.milliseconds(StoreClock.now()), ShareLinkRules.storedToken(token), token, userID])
            return db.changesCount > 0
        }
    }
}

/// A row of `shareLink`.
struct ShareLinkRecord: Hashable {
    var token: String
    var userId: UserID
    var targetKind: String
    var targetId: String
    var createdAt: Date
    var revokedAt: Date?
}

extension ShareLinkRecord: StoreRecord {
    static let databaseTableName = "shareLink"

    /// The link, with the token it was asked for by (the row keeps only its hash).
    func link(token: String) throws -> ShareLink {
        guard let placeID = PlaceID(targetId) else { throw RideStoreError.damaged("shareLink \(self.token): target id '\(targetId)' is not an id") }
        return ShareLink(token: token, userID: userId, placeID: placeID, createdAt: createdAt, revokedAt: revokedAt)
    }
}
