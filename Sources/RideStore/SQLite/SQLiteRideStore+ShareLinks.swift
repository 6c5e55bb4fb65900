import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// The `shareLink` table (DESIGN 5): a token, its user, what it shows (`targetKind` `place` and its id), when
    /// made and revoked. The target is not a foreign key because a link may one day show other kinds (a
    /// track); a link whose place is gone shows nothing.
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
            guard try ShareLinkRecord.exists(db, key: token) == false else { throw RideStoreError.conflict("the token is taken") }
            let record = ShareLinkRecord(token: token, userId: userID, targetKind: "place", targetId: placeID.rawValue, createdAt: StoreClock.now())
            try record.insert(db)
            return try record.link()
        }
    }

    public func shareLink(token: String) async throws -> ShareLink? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await read { db in
            guard let record = try ShareLinkRecord.fetchOne(db, key: token) else { return nil }
            let placeIsTheOwners = try PlaceID(record.targetId).map { try Self.placeRecord(db, id: $0, userID: record.userId) != nil } ?? false
            guard ShareLinkRules.placeLinkShows(targetKind: record.targetKind, revokedAt: record.revokedAt, placeIsTheOwners: placeIsTheOwners)
            else { return nil }
            return try record.link()
        }
    }

    public func revokeShareLink(token: String, userID: UserID) async throws -> Bool {
        guard ShareLink.isWellFormed(token: token) else { return false }
        return try await write { db in
            try db.execute(
                sql: "UPDATE shareLink SET revokedAt = ? WHERE token = ? AND userId = ? AND revokedAt IS NULL",
                arguments: [StoreClock.milliseconds(StoreClock.now()), token, userID])
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

    func link() throws -> ShareLink {
        guard let placeID = PlaceID(targetId) else { throw RideStoreError.damaged("shareLink \(token): target id '\(targetId)' is not an id") }
        return ShareLink(token: token, userID: userId, placeID: placeID, createdAt: createdAt, revokedAt: revokedAt)
    }
}
