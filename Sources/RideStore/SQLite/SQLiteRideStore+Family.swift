import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Migration "v12 family shares" (issue 23): `familyShare`, one row per user sharing their live position with
    /// another user (the pair is the key: sharing again replaces the expiry), until `expiresAt` (NULL: until
    /// revoked, which deletes the row). Either user's deletion takes the row with it.
    static func registerFamilyMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12 family shares") { db in
            try db.create(table: "familyShare") { t in
                t.column("sharerId", .text).notNull().references("user", onDelete: .cascade)
                t.column("viewerId", .text).notNull().references("user", onDelete: .cascade)
                t.column("createdAt", .integer).notNull()
                t.column("expiresAt", .integer)
                t.primaryKey(["sharerId", "viewerId"])
            }
            // "Who shares with me": every Live tab refresh and OwnTracks post asks.
            try db.create(index: "familyShare_viewer", on: "familyShare", columns: ["viewerId"])
        }
    }

    public func shareFamily(with viewerName: String, userID: UserID, expiresAt: Date?, now: Date) async throws -> FamilyShare {
        try FamilyShareRules.check(expiresAt: expiresAt, now: now)
        guard let viewerName = FamilyShareRules.lookupName(viewerName) else { throw RideStoreError.notFound(kind: "user", id: String(viewerName.prefix(64))) }
        return try await write { db in
            guard let sharer = try UserRecord.fetchOne(db, key: userID)?.user else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
            let viewer = try FamilyShareRules.viewer(
                try UserRecord.filter(UserRecord.Columns.name == viewerName).fetchOne(db)?.user, sharer: userID, name: viewerName)
            let createdAt = StoreClock.rounded(now)
            try db.execute(
                sql: """
                    INSERT INTO familyShare (sharerId, viewerId, createdAt, expiresAt) VALUES (?, ?, ?, ?)
                    ON CONFLICT (sharerId, viewerId) DO UPDATE SET createdAt = excluded.createdAt, expiresAt = excluded.expiresAt
                    """,
                arguments: [userID, viewer.id, StoreClock.milliseconds(createdAt), expiresAt.map(StoreClock.milliseconds)])
            return FamilyShare(
                sharerID: userID, sharerName: sharer.name, viewerID: viewer.id, viewerName: viewer.name, createdAt: createdAt,
                expiresAt: expiresAt.map(StoreClock.rounded))
        }
    }

    public func familyCircle(userID: UserID, now: Date) async throws -> FamilyCircle {
        try await read { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT familyShare.sharerId, sharer.name, familyShare.viewerId, viewer.name, familyShare.createdAt, familyShare.expiresAt
                    FROM familyShare
                    JOIN user AS sharer ON sharer.id = familyShare.sharerId
                    JOIN user AS viewer ON viewer.id = familyShare.viewerId
                    WHERE familyShare.sharerId = ? OR familyShare.viewerId = ?
                    """),
                arguments: [userID, userID]
            ).compactMap { row -> FamilyShare? in
                guard let sharer = UserID.fromDatabaseValue(row[0]), let viewer = UserID.fromDatabaseValue(row[2]) else { return nil }
                return FamilyShare(
                    sharerID: sharer, sharerName: row[1], viewerID: viewer, viewerName: row[3], createdAt: Self.date(row[4]),
                    expiresAt: (row[5] as Int64?).map(Self.date))
            }
            return FamilyShareRules.circle(rows, userID: userID, now: now)
        }
    }

    public func revokeFamilyShare(viewerName: String, userID: UserID) async throws -> Bool {
        guard let viewerName = FamilyShareRules.lookupName(viewerName) else { return false }
        return try await write { db in
            try db.execute(
                sql: "DELETE FROM familyShare WHERE sharerId = ? AND viewerId = (SELECT id FROM user WHERE name = ?)",
                arguments: [userID, viewerName])
            return db.changesCount > 0
        }
    }
}
