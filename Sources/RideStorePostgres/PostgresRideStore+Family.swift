import Foundation
import Logging
import PostgresNIO
import RideKit
import RideStore

extension PostgresRideStore {
    public func shareFamily(with viewerName: String, userID: UserID, expiresAt: Date?, now: Date) async throws -> FamilyShare {
        try FamilyShareRules.check(expiresAt: expiresAt, now: now)
        guard let viewerName = FamilyShareRules.lookupName(viewerName) else { throw RideStoreError.notFound(kind: "user", id: String(viewerName.prefix(64))) }
        return try await transaction { [logger] connection in
            guard let sharer = try await Self.users(
                try await connection.query("SELECT id, name, password_hash, created_at FROM users WHERE id = \(userID.rawValue)", logger: logger)
            ).first
            else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
            let viewer = try FamilyShareRules.viewer(try await Self.user(connection, named: viewerName, logger: logger), sharer: userID, name: viewerName)
            let createdAt = StoreClock.rounded(now)
            try await connection.query(
                """
                INSERT INTO family_shares (sharer_id, viewer_id, created_at, expires_at)
                VALUES (\(userID.rawValue), \(viewer.id.rawValue), \(Self.milliseconds(createdAt)), \(expiresAt.map(Self.milliseconds)))
                ON CONFLICT (sharer_id, viewer_id) DO UPDATE SET created_at = excluded.created_at, expires_at = excluded.expires_at
                """, logger: logger)
            return FamilyShare(
                sharerID: userID, sharerName: sharer.name, viewerID: viewer.id, viewerName: viewer.name, createdAt: createdAt,
                expiresAt: expiresAt.map(StoreClock.rounded))
        }
    }

    public func familyCircle(userID: UserID, now: Date) async throws -> FamilyCircle {
        // One statement, its own snapshot: asked on every OwnTracks post (its friends), so one round trip, not the
        // three of a read-only transaction.
        try await statement { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT family_shares.sharer_id, sharer.name, family_shares.viewer_id, viewer.name, family_shares.created_at, family_shares.expires_at
                FROM family_shares
                JOIN users AS sharer ON sharer.id = family_shares.sharer_id
                JOIN users AS viewer ON viewer.id = family_shares.viewer_id
                WHERE family_shares.sharer_id = \(userID.rawValue) OR family_shares.viewer_id = \(userID.rawValue)
                """, logger: logger)
            var shares: [FamilyShare] = []
            for try await (sharerID, sharerName, viewerID, viewerName, createdAt, expiresAt) in rows.decode((String, String, String, String, Int64, Int64?).self) {
                shares.append(FamilyShare(
                    sharerID: try Self.shortID(sharerID, column: "family_shares.sharer_id"), sharerName: sharerName,
                    viewerID: try Self.shortID(viewerID, column: "family_shares.viewer_id"), viewerName: viewerName, createdAt: Self.date(createdAt),
                    expiresAt: expiresAt.map(Self.date)))
            }
            return FamilyShareRules.circle(shares, userID: userID, now: now)
        }
    }

    public func revokeFamilyShare(viewerName: String, userID: UserID) async throws -> Bool {
        guard let viewerName = FamilyShareRules.lookupName(viewerName) else { return false }
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                DELETE FROM family_shares WHERE sharer_id = \(userID.rawValue) AND viewer_id = (SELECT id FROM users WHERE name = \(viewerName))
                RETURNING viewer_id
                """, logger: logger)
            return try await rows.collect().count > 0
        }
    }
}
