import Foundation
import Logging
import PostgresNIO
import RideKit
import RideStore

extension PostgresRideStore {
    public func privacySettings(userID: UserID) async throws -> PrivacySettings {
        try await transaction(readOnly: true) { [logger] connection in try await Self.privacySettings(connection, userID: userID, logger: logger) }
    }

    public func addPrivacyZone(_ zone: PrivacyZone, name: String?, userID: UserID) async throws -> StoredPrivacyZone {
        let (zone, name) = try PrivacySettingsRules.zone(zone, name: name)
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            try await Self.ensurePrivacySetting(connection, userID: userID, logger: logger)
            // The settings row, locked: two instances adding at once count one after the other.
            _ = try await connection.query("SELECT 1 FROM privacy_settings WHERE user_id = \(userID.rawValue) FOR UPDATE", logger: logger).collect()
            var count: Int64 = 0
            for try await value in try await connection.query(
                "SELECT count(*) FROM privacy_zones WHERE user_id = \(userID.rawValue)", logger: logger
            ).decode(Int64.self) { count = value }
            try PrivacySettingsRules.checkRoom(existingCount: Int(count))
            let stored = StoredPrivacyZone(id: .random(), zone: zone, name: name, createdAt: Self.now())
            try await connection.query(
                """
                INSERT INTO privacy_zones (id, user_id, latitude, longitude, radius_meters, name, created_at)
                VALUES (\(stored.id.rawValue), \(userID.rawValue), \(zone.center.latitude), \(zone.center.longitude), \(zone.radiusMeters),
                        \(name), \(Self.milliseconds(stored.createdAt)))
                """, logger: logger)
            return stored
        }
    }

    public func deletePrivacyZone(id: PrivacyZoneID, userID: UserID) async throws -> Bool {
        try await transaction { [logger] connection in
            let rows = try await connection.query(
                "DELETE FROM privacy_zones WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue) RETURNING id", logger: logger)
            return try await rows.collect().count > 0
        }
    }

    public func setHiddenEndMeters(_ meters: Double, userID: UserID) async throws -> PrivacySettings {
        let meters = try PrivacySettingsRules.hiddenEndMeters(meters)
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            try await Self.ensurePrivacySetting(connection, userID: userID, logger: logger)
            try await connection.query(
                "UPDATE privacy_settings SET hidden_end_meters = \(meters) WHERE user_id = \(userID.rawValue)", logger: logger)
            return try await Self.privacySettings(connection, userID: userID, logger: logger)
        }
    }

    public func createRideShare(token: String, trackID: TrackID, userID: UserID, options: RideShareOptions, expiresAt: Date?) async throws
        -> RideShare
    {
        guard ShareLink.isWellFormed(token: token) else {
            throw RideStoreError.invalid(field: "token", reason: "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _")
        }
        return try await transaction { [logger] connection in
            let owned = try await connection.query(
                "SELECT 1 FROM tracks WHERE id = \(trackID.rawValue) AND user_id = \(userID.rawValue) AND deleted_at IS NULL", logger: logger)
            guard try await owned.collect().count == 1 else { throw RideStoreError.notFound(kind: "track", id: trackID.rawValue) }
            let now = Self.now()
            let rows = try await connection.query(
                """
                INSERT INTO share_links (token, user_id, target_kind, target_id, created_at, expires_at, options)
                VALUES (\(ShareLinkRules.storedToken(token)), \(userID.rawValue), 'track', \(trackID.rawValue), \(Self.milliseconds(now)),
                        \(expiresAt.map(Self.milliseconds)), \(PrivacySettingsRules.encode(options)))
                ON CONFLICT (token) DO NOTHING RETURNING token
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.conflict("the token is taken") }
            return RideShare(token: token, userID: userID, trackID: trackID, options: options, createdAt: now, expiresAt: expiresAt.map(StoreClock.rounded))
        }
    }

    public func rideShare(token: String, now: Date) async throws -> RideShare? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT share_links.user_id, share_links.target_id, share_links.created_at, share_links.expires_at, share_links.revoked_at,
                       share_links.target_kind, share_links.options, tracks.id IS NOT NULL
                FROM share_links LEFT JOIN tracks ON tracks.id = share_links.target_id AND tracks.user_id = share_links.user_id
                     AND tracks.deleted_at IS NULL
                WHERE share_links.token = \(ShareLinkRules.storedToken(token))
                """, logger: logger)
            var found: RideShare?
            for try await (userID, trackID, createdAt, expiresAt, revokedAt, targetKind, options, trackIsTheOwners) in rows.decode(
                (String, String, Int64, Int64?, Int64?, String, String?, Bool).self)
            {
                guard PrivacySettingsRules.rideShareShows(
                    targetKind: targetKind, revokedAt: revokedAt.map(Self.date), expiresAt: expiresAt.map(Self.date), now: now,
                    trackIsTheOwners: trackIsTheOwners)
                else { continue }
                found = RideShare(
                    token: token, userID: try Self.shortID(userID, column: "share_links.user_id"),
                    trackID: try Self.shortID(trackID, column: "share_links.target_id"), options: PrivacySettingsRules.decode(options),
                    createdAt: Self.date(createdAt), expiresAt: expiresAt.map(Self.date))
            }
            return found
        }
    }

    public func activeShares(userID: UserID, now: Date) async throws -> [ActiveShare] {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT share_links.target_kind, share_links.token, share_links.target_id, COALESCE(places.name, devices.name, tracks.name),
                       share_links.created_at, share_links.expires_at, share_links.revoked_at
                FROM share_links
                LEFT JOIN places ON share_links.target_kind = 'place' AND places.id = share_links.target_id
                     AND places.user_id = share_links.user_id AND places.deleted_at IS NULL
                LEFT JOIN devices ON share_links.target_kind = 'device' AND devices.id = share_links.target_id AND devices.user_id = share_links.user_id
                LEFT JOIN tracks ON share_links.target_kind = 'track' AND tracks.id = share_links.target_id
                     AND tracks.user_id = share_links.user_id AND tracks.deleted_at IS NULL
                WHERE share_links.user_id = \(userID.rawValue) AND share_links.revoked_at IS NULL
                ORDER BY share_links.created_at DESC, share_links.token
                """, logger: logger)
            var shares: [ActiveShare] = []
            for try await (kind, token, targetID, name, createdAt, expiresAt, revokedAt) in rows.decode(
                (String, String, String, String?, Int64, Int64?, Int64?).self)
            {
                guard PrivacySettingsRules.isActive(revokedAt: revokedAt.map(Self.date), expiresAt: expiresAt.map(Self.date), now: now),
                      let id = ShortID(targetID)
                else { continue }
                shares.append(ActiveShare(kind: kind, id: token, targetID: id, targetName: name, createdAt: Self.date(createdAt), expiresAt: expiresAt.map(Self.date)))
            }
            return shares
        }
    }

    // MARK: Helpers

    static func ensurePrivacySetting(_ connection: PostgresConnection, userID: UserID, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO privacy_settings (user_id, hidden_end_meters, secret) VALUES (\(userID.rawValue), 0, \(PrivacySettingsRules.newSecret()))
            ON CONFLICT (user_id) DO NOTHING
            """, logger: logger)
    }

    static func privacySettings(_ connection: PostgresConnection, userID: UserID, logger: Logger) async throws -> PrivacySettings {
        var zones: [StoredPrivacyZone] = []
        for try await (id, latitude, longitude, radius, name, createdAt) in try await connection.query(
            """
            SELECT id, latitude, longitude, radius_meters, name, created_at FROM privacy_zones WHERE user_id = \(userID.rawValue)
            ORDER BY created_at, id
            """, logger: logger
        ).decode((String, Double, Double, Double, String?, Int64).self) {
            zones.append(StoredPrivacyZone(
                id: try shortID(id, column: "privacy_zones.id"), zone: PrivacyZone(center: Coordinate(latitude: latitude, longitude: longitude), radiusMeters: radius),
                name: name, createdAt: date(createdAt)))
        }
        var settings = PrivacySettings(zones: zones)
        for try await (hidden, secret) in try await connection.query(
            "SELECT hidden_end_meters, secret FROM privacy_settings WHERE user_id = \(userID.rawValue)", logger: logger
        ).decode((Double, Data).self) {
            settings.hiddenEndMeters = hidden
            settings.secret = secret
        }
        return settings
    }
}
