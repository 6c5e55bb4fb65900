import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Migration "v9 privacy zones and ride shares" (issue 23):
    /// - `privacyZone`: a user's circles (centre, radius, optional name);
    /// - `privacySetting`: per user, the metres hidden at each end of every ride and the secret that moves each
    ///   ride's cut (never shown);
    /// - `shareLink` gains `options` (JSON): what a ride link (kind `track`) leaves out.
    static func registerPrivacyMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9 privacy zones and ride shares") { db in
            try db.create(table: "privacyZone") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("radiusMeters", .double).notNull()
                t.column("name", .text)
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "privacySetting") { t in
                t.primaryKey("userId", .text).references("user", onDelete: .cascade)
                t.column("hiddenEndMeters", .double).notNull()
                t.column("secret", .blob).notNull()
            }
            try db.alter(table: "shareLink") { t in
                t.add(column: "options", .text)
            }
            try db.create(index: "shareLink_user", on: "shareLink", columns: ["userId"])
        }
    }

    public func privacySettings(userID: UserID) async throws -> PrivacySettings {
        try await read { db in try Self.privacySettings(db, userID: userID) }
    }

    public func addPrivacyZone(_ zone: PrivacyZone, name: String?, userID: UserID) async throws -> StoredPrivacyZone {
        let (zone, name) = try PrivacySettingsRules.zone(zone, name: name)
        return try await write { db in
            guard try Self.userExists(db, userID) else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
            try PrivacySettingsRules.checkRoom(existingCount: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM privacyZone WHERE userId = ?", arguments: [userID]) ?? 0)
            try Self.ensurePrivacySetting(db, userID: userID)
            let stored = StoredPrivacyZone(id: .random(), zone: zone, name: name, createdAt: StoreClock.now())
            try db.execute(
                sql: "INSERT INTO privacyZone (id, userId, latitude, longitude, radiusMeters, name, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [stored.id, userID, zone.center.latitude, zone.center.longitude, zone.radiusMeters, name, StoreClock.milliseconds(stored.createdAt)])
            return stored
        }
    }

    public func deletePrivacyZone(id: PrivacyZoneID, userID: UserID) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM privacyZone WHERE id = ? AND userId = ?", arguments: [id, userID])
            return db.changesCount > 0
        }
    }

    public func setHiddenEndMeters(_ meters: Double, userID: UserID) async throws -> PrivacySettings {
        let meters = try PrivacySettingsRules.hiddenEndMeters(meters)
        return try await write { db in
            guard try Self.userExists(db, userID) else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
            try Self.ensurePrivacySetting(db, userID: userID)
            try db.execute(sql: "UPDATE privacySetting SET hiddenEndMeters = ? WHERE userId = ?", arguments: [meters, userID])
            return try Self.privacySettings(db, userID: userID)
        }
    }

    public func createRideShare(token: String, trackID: TrackID, userID: UserID, options: RideShareOptions, expiresAt: Date?) async throws -> RideShare {
        guard ShareLink.isWellFormed(token: token) else {
            throw RideStoreError.invalid(field: "token", reason: "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _")
        }
        return try await write { db in
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM track WHERE id = ? AND userId = ? AND deletedAt IS NULL)", arguments: [trackID, userID]) == true
            else { throw RideStoreError.notFound(kind: "track", id: trackID.rawValue) }
            guard try ShareLinkRecord.exists(db, key: ShareLinkRules.storedToken(token)) == false else { throw RideStoreError.conflict("the token is taken") }
            let now = StoreClock.now()
            try db.execute(
                sql: "INSERT INTO shareLink (token, userId, targetKind, targetId, createdAt, expiresAt, options) VALUES (?, ?, 'track', ?, ?, ?, ?)",
                arguments: [ShareLinkRules.storedToken(token), userID, trackID, StoreClock.milliseconds(now), expiresAt.map(StoreClock.milliseconds), PrivacySettingsRules.encode(options)])
            return RideShare(token: token, userID: userID, trackID: trackID, options: options, createdAt: now, expiresAt: expiresAt.map(StoreClock.rounded))
        }
    }

    public func rideShare(token: String, now: Date) async throws -> RideShare? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await read { db in
            guard let row = try Row.fetchOne(
                db, sql: """
                    SELECT shareLink.userId, shareLink.targetId, shareLink.createdAt, shareLink.expiresAt, shareLink.revokedAt,
                           shareLink.targetKind, shareLink.options, track.id IS NOT NULL
                    FROM shareLink LEFT JOIN track ON track.id = shareLink.targetId AND track.userId = shareLink.userId AND track.deletedAt IS NULL
                    WHERE shareLink.token = ?
                    """, arguments: [ShareLinkRules.storedToken(token)]),
                  let userID = UserID.fromDatabaseValue(row[0]), let trackID = TrackID.fromDatabaseValue(row[1])
            else { return nil }
            let expiresAt = (row[3] as Int64?).map(Self.date)
            guard PrivacySettingsRules.rideShareShows(
                targetKind: row[5], revokedAt: (row[4] as Int64?).map(Self.date), expiresAt: expiresAt, now: now, trackIsTheOwners: row[7])
            else { return nil }
            return RideShare(
                token: token, userID: userID, trackID: trackID, options: PrivacySettingsRules.decode(row[6]), createdAt: Self.date(row[2]),
                expiresAt: expiresAt)
        }
    }

    public func activeShares(userID: UserID, now: Date) async throws -> [ActiveShare] {
        try await read { db in
            try Row.fetchAll(
                db, sql: """
                    SELECT shareLink.targetKind, shareLink.token, shareLink.targetId, COALESCE(place.name, device.name, track.name),
                           shareLink.createdAt, shareLink.expiresAt, shareLink.revokedAt
                    FROM shareLink
                    LEFT JOIN place ON shareLink.targetKind = 'place' AND place.id = shareLink.targetId AND place.userId = shareLink.userId AND place.deletedAt IS NULL
                    LEFT JOIN device ON shareLink.targetKind = 'device' AND device.id = shareLink.targetId AND device.userId = shareLink.userId
                    LEFT JOIN track ON shareLink.targetKind = 'track' AND track.id = shareLink.targetId AND track.userId = shareLink.userId AND track.deletedAt IS NULL
                    WHERE shareLink.userId = ? AND shareLink.revokedAt IS NULL
                    ORDER BY shareLink.createdAt DESC, shareLink.token
                    """, arguments: [userID]
            ).compactMap { row -> ActiveShare? in
                let expiresAt = (row[5] as Int64?).map(Self.date)
                guard PrivacySettingsRules.isActive(revokedAt: (row[6] as Int64?).map(Self.date), expiresAt: expiresAt, now: now),
                      let id = ShortID.fromDatabaseValue(row[2])
                else { return nil }
                return ActiveShare(kind: row[0], id: row[1], targetID: id, targetName: row[3], createdAt: Self.date(row[4]), expiresAt: expiresAt)
            }
        }
    }

    // MARK: Helpers

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func userExists(_ db: Database, _ userID: UserID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM user WHERE id = ?)", arguments: [userID]) == true
    }

    static func ensurePrivacySetting(_ db: Database, userID: UserID) throws {
        try db.execute(
            sql: "INSERT INTO privacySetting (userId, hiddenEndMeters, secret) VALUES (?, 0, ?) ON CONFLICT (userId) DO NOTHING",
            arguments: [userID, PrivacySettingsRules.newSecret()])
    }

    static func privacySettings(_ db: Database, userID: UserID) throws -> PrivacySettings {
        let zones = try Row.fetchAll(
            db, sql: "SELECT id, latitude, longitude, radiusMeters, name, createdAt FROM privacyZone WHERE userId = ? ORDER BY createdAt, id",
            arguments: [userID]
        ).compactMap { row -> StoredPrivacyZone? in
            guard let id = PrivacyZoneID.fromDatabaseValue(row[0]) else { return nil }
            return StoredPrivacyZone(
                id: id, zone: PrivacyZone(center: Coordinate(latitude: row[1], longitude: row[2]), radiusMeters: row[3]), name: row[4],
                createdAt: date(row[5]))
        }
        guard let setting = try Row.fetchOne(db, sql: "SELECT hiddenEndMeters, secret FROM privacySetting WHERE userId = ?", arguments: [userID])
        else { return PrivacySettings(zones: zones) }
        return PrivacySettings(zones: zones, hiddenEndMeters: setting[0], secret: setting[1])
    }
}
