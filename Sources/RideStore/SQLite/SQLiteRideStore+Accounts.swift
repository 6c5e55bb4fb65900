import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Migration "v6 accounts, sessions, devices, ingestion" (issue 12):
    /// - `session`: the hash of a session cookie's token, its user, when it expires;
    /// - `shareLink` gains `expiresAt` and `trackId` (live share links, kind `device`);
    /// - `deviceFix`: every position a device posted, once per (device, time) — the unique key is what makes
    ///   a replayed post store nothing — with the track it joined; its `id` orders the live feed.
    static func registerAccountsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6 accounts, sessions, devices, ingestion") { db in
            try db.create(table: "session") { t in
                t.primaryKey("tokenHash", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("expiresAt", .integer).notNull()
            }
            try db.create(table: "deviceFix") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("device", onDelete: .cascade, indexed: false).notNull()
                t.belongsTo("user", onDelete: .cascade, indexed: false).notNull()
                t.column("time", .integer).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("elevation", .double)
                t.column("speed", .double)
                t.column("course", .double)
                t.column("accuracy", .double)
                t.column("battery", .double)
                t.column("trackId", .text).references("track", onDelete: .setNull).indexed()
                t.column("receivedAt", .integer).notNull()
                t.uniqueKey(["deviceId", "time"])
            }
            try db.create(index: "deviceFix_feed", on: "deviceFix", columns: ["userId", "id"])
            // Live share links are share links of kind `device`: until a time, and optionally a ride (its track).
            try db.alter(table: "shareLink") { t in
                t.add(column: "expiresAt", .integer)
                t.add(column: "trackId", .text)
            }
        }
    }

    /// Migrations "v7 device track figures" and "v8": a live device track's figures are kept as it grows, and the
    /// first and last fix of a track are found through an index on (trackId, time).
    static func registerDeviceTrackFiguresMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7 device track figures") { db in
            try db.create(index: "deviceFix_trackTime", on: "deviceFix", columns: ["trackId", "time"])
            try db.execute(sql: "DROP INDEX IF EXISTS index_deviceFix_on_trackId")
            try db.alter(table: "recording") { t in
                t.add(column: "figuresPointCount", .integer)
                t.add(column: "figuresUntil", .integer)
            }
        }
        migrator.registerMigration("v8 indexes for ingestion") { db in
            // v7 meant to drop the index on deviceFix(trackId) that (trackId, time) makes redundant, but named it
            // wrongly (GRDB calls it `deviceFix_on_trackId`): every fix stored kept writing a third index, a
            // quarter of a busy server's WAL pages (Benchmarks/README.md).
            try db.execute(sql: "DROP INDEX IF EXISTS deviceFix_on_trackId")
            // A post finds its device's recording in progress among the device's recordings that are not
            // stopped, not among all it ever made (which grew with every ride, and were sorted for each post).
            try db.execute(sql: "CREATE INDEX recording_liveDevice ON recording (deviceId, startedAt) WHERE state != 'stopped'")
            // A device track's point blocks hold its fixes up to `blocksUntil` (ms); later ones are read from deviceFix
            // until the track's figures are computed again (`blockPendingFixes`). Until now blocks held them all.
            try db.alter(table: "recording") { t in t.add(column: "blocksUntil", .integer) }
            try db.execute(sql: "UPDATE recording SET blocksUntil = (SELECT MAX(time) FROM deviceFix WHERE deviceFix.trackId = recording.trackId)")
        }
    }

    // MARK: Users

    public func users() async throws -> [User] {
        try await read { db in try UserRecord.order(UserRecord.Columns.name).fetchAll(db).map(\.user) }
    }

    public func setPasswordHash(_ hash: String?, userID: UserID) async throws {
        try await write { db in
            try Self.requireUser(db, userID)
            try db.execute(sql: "UPDATE user SET passwordHash = ? WHERE id = ?", arguments: [hash, userID])
            try db.execute(sql: "DELETE FROM session WHERE userId = ?", arguments: [userID])
        }
    }

    public func deleteUser(id: UserID) async throws -> Bool {
        let files = try await write { db -> [String]? in
            let files = try Self.photoFiles(
                db,
                sql: """
                    SELECT photo.fileName, photo.thumbnailFileName FROM photo
                    JOIN note ON note.id = photo.noteId JOIN place ON place.id = note.placeId WHERE place.userId = ?
                    """,
                arguments: [id])
            // Everything of the user's goes with its row (foreign keys, ON DELETE CASCADE).
            return try UserRecord.deleteOne(db, key: id) ? files : nil
        }
        guard let files else { return false }
        // After the commit: a crash before this line leaves files no row names, removed at the next start.
        photoFolder.remove(files)
        return true
    }

    // MARK: Sessions

    public func createSession(tokenHash: String, userID: UserID, expiresAt: Date) async throws {
        try await write { db in
            try Self.requireUser(db, userID)
            let now = StoreClock.milliseconds(StoreClock.now())
            // Expired sessions go as new ones come: the table holds only live ones (and a few hours' worth).
            try db.execute(sql: "DELETE FROM session WHERE expiresAt < ?", arguments: [now])
            try db.execute(
                sql: "INSERT INTO session (tokenHash, userId, createdAt, expiresAt) VALUES (?, ?, ?, ?)",
                arguments: [tokenHash, userID, now, StoreClock.milliseconds(expiresAt)])
        }
    }

    public func sessionUser(tokenHash: String, now: Date) async throws -> User? {
        try await read { db in
            try UserRecord.fetchOne(
                db, sql: "SELECT user.* FROM session JOIN user ON user.id = session.userId WHERE session.tokenHash = ? AND session.expiresAt > ?",
                arguments: [tokenHash, StoreClock.milliseconds(now)])?.user
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM session WHERE tokenHash = ?", arguments: [tokenHash]) }
    }

    public func deleteSessions(userID: UserID) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM session WHERE userId = ?", arguments: [userID]) }
    }

    // MARK: Devices

    public func device(id: DeviceID, userID: UserID) async throws -> Device? {
        try await read { db in
            try DeviceRecord.filter(key: id).filter(DeviceRecord.Columns.userId == userID).fetchOne(db)?.device
        }
    }

    public func replaceDeviceToken(id: DeviceID, userID: UserID, tokenHash: String) async throws -> Device {
        guard !tokenHash.isEmpty else { throw RideStoreError.invalid(field: "tokenHash", reason: "must not be empty") }
        return try await write { db in
            try db.execute(sql: "UPDATE device SET tokenHash = ? WHERE id = ? AND userId = ?", arguments: [tokenHash, id, userID])
            guard db.changesCount > 0, let record = try DeviceRecord.fetchOne(db, key: id) else {
                throw RideStoreError.notFound(kind: "device", id: id.rawValue)
            }
            return record.device
        }
    }

    // MARK: Positions from devices

    public func ingest(_ fixes: [TrackerFix], deviceID: DeviceID, userID: UserID, gapSeconds: Double) async throws -> IngestResult {
        try await write { db in try Self.ingest(fixes, deviceID: deviceID, userID: userID, gapSeconds: gapSeconds, db) }
    }

    public func ingest(_ posts: [DevicePost], gapSeconds: Double) async throws -> [Result<IngestResult, RideStoreError>] {
        try await write { db in
            // Each post in its own savepoint: one that fails (its device just revoked) leaves the others whole. The
            // savepoint statements run directly (GRDB's `inSavepoint` parsed them again for every post); any
            // other error than the store's own ends the whole transaction, as it would have.
            let begin = try DirectStatement(db, "SAVEPOINT post")
            let release = try DirectStatement(db, "RELEASE SAVEPOINT post")
            let rollback = try DirectStatement(db, "ROLLBACK TO SAVEPOINT post")
            return try posts.map { post in
                try begin.execute()
                do {
                    let result = try Self.ingest(
                        post.fixes, deviceID: post.deviceID, userID: post.userID, gapSeconds: gapSeconds, maximumTrackPoints: post.maximumTrackPoints, db)
                    try release.execute()
                    return .success(result)
                } catch let error as RideStoreError {
                    try rollback.execute()
                    try release.execute()
                    return .failure(error)
                }
            }
        }
    }

    /// One device's post, inside the caller's transaction.
    ///
    /// A post costs a few row writes whatever the track's length: statements are prepared once per
    /// connection, the live track's first and last fix times come from the (trackId, time) index, points go
    /// to the track's tail blocks (`appendPoints`), and the track's figures are computed again only when
    /// enough has been added since (`refreshFiguresIfDue`).
    static func ingest(
        _ fixes: [TrackerFix], deviceID: DeviceID, userID: UserID, gapSeconds: Double, maximumTrackPoints: Int? = nil, _ db: Database
    ) throws -> IngestResult {
        let gap = DeviceIngestRules.gapMilliseconds(gapSeconds)
        try DeviceIngestRules.validate(fixes)
        // Only what a post needs of the device (its name, for a new track): read on every post.
        guard let deviceName = try DirectStatement(db, "SELECT name FROM device WHERE id = ? AND userId = ?")
            .fetchOne(deviceID, userID, decode: { $0.text(0) ?? "" })
        else { throw RideStoreError.notFound(kind: "device", id: deviceID.rawValue) }
        var result = IngestResult()
        let now = StoreClock.now()
        var live = try LiveDeviceTrack.fetch(db, deviceID: deviceID)
        let bounds = live?.bounds
        // A fix within the gap of the live track's fixes joins that track whatever else the post holds (the loop
        // below decides the same), so it is inserted with its track: no second write of the row and its index.
        // The live track's points, for its cap (only read when there is one). A post that may fill it inserts its
        // fixes in no track: the loop below assigns each (finishing a full track reads the fixes that are its own).
        let livePoints = try maximumTrackPoints == nil ? 0 : live.flatMap { live in
            try DirectStatement(db, "SELECT pointCount FROM track WHERE id = ?").fetchOne(live.trackID, decode: { $0.int(0) })
        } ?? 0
        let mayFill = maximumTrackPoints.map { livePoints + fixes.count > $0 } ?? false
        let joinsLive: (TrackID, ClosedRange<Int64>)? = mayFill ? nil : live.flatMap { live in
            bounds.map { (live.trackID, ($0.0 - gap)...($0.1 + gap)) }
        }
        let insert = try DirectStatement(db, """
            INSERT INTO deviceFix (deviceId, userId, time, latitude, longitude, elevation, speed, course, accuracy, battery, receivedAt, trackId)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (deviceId, time) DO NOTHING
            """)
        var fresh: [(fix: TrackerFix, trackID: TrackID?)] = []
        for fix in fixes.sorted(by: { $0.time < $1.time }) {
            let trackID = joinsLive.flatMap { $0.1.contains(fix.milliseconds) ? $0.0 : nil }
            let inserted = try insert.execute(
                deviceID, userID, fix.milliseconds, fix.latitude, fix.longitude, fix.elevationMeters, fix.speedMetersPerSecond,
                fix.courseDegrees, fix.accuracyMeters, fix.batteryPercent, StoreClock.milliseconds(now), trackID)
            if inserted > 0 { fresh.append((fix, trackID)) } else { result.duplicateCount += 1 }
        }
        result.storedCount = fresh.count
        try DirectStatement(db, "UPDATE device SET lastSeenAt = ? WHERE id = ?").execute(StoreClock.milliseconds(now), deviceID)
        guard !fresh.isEmpty else { return result }

        var pending: [TrackerFix] = []
        var rebuild = false
        let assign = try DirectStatement(db, "UPDATE deviceFix SET trackId = ? WHERE deviceId = ? AND time = ?")
        func flush() throws {
            guard let record = live else { return }
            if rebuild {
                try Self.rebuildPoints(trackID: record.trackID, db)
            } else if !pending.isEmpty {
                // The new fixes stay in deviceFix (readers add them after the blocks) until the figures are computed
                // again; appending them to the blocks on every post was a third of a post's work.
                try DirectStatement(db, "UPDATE track SET pointCount = pointCount + ?, updatedAt = ? WHERE id = ?")
                    .execute(pending.count, StoreClock.milliseconds(now), record.trackID)
            }
            pending = []
            rebuild = false
        }
        var placement = DeviceTrackPlacement(
            hasLiveTrack: live != nil, bounds: bounds, gapMilliseconds: gap, pointCount: livePoints, maximumPoints: maximumTrackPoints)
        for (fix, insertedTrackID) in fresh {
            let decision = placement.place(fix.milliseconds)
            if decision == .late {
                result.lateCount += 1
                // Inserted with the live track (within its time), which is full: in no track after all.
                if insertedTrackID != nil {
                    try DirectStatement(db, "UPDATE deviceFix SET trackId = NULL WHERE deviceId = ? AND time = ?").execute(deviceID, fix.milliseconds)
                }
                continue
            }
            if case .append(finishesLive: true, _) = decision, let record = live {
                try flush()
                guard let recording = try RecordingRecord.fetchOne(db, key: record.recordingID) else {
                    throw RideStoreError.damaged("recording \(record.recordingID) vanished")
                }
                try Self.finishDeviceTrack(recording, db)
                result.finishedTrackIDs.append(record.trackID)
                live = nil
            }
            if case .append(_, startsTrack: true) = decision {
                live = LiveDeviceTrack(
                    try Self.startDeviceTrack(deviceID: deviceID, userID: userID, deviceName: deviceName, at: fix.time, now: now, db))
            }
            guard let record = live else { continue }
            if insertedTrackID != record.trackID { try assign.execute(record.trackID, deviceID, fix.milliseconds) }
            if decision == .rebuild { rebuild = true } else { pending.append(fix) }
        }
        try flush()
        if var record = live {
            if let last = placement.bounds?.last { try refreshFiguresIfDue(&record, lastFixTime: last, db) }
            try DirectStatement(db, "UPDATE recording SET updatedAt = ?, figuresPointCount = ?, figuresUntil = ? WHERE id = ?")
                .execute(StoreClock.milliseconds(now), record.figuresPointCount, record.figuresUntil, record.recordingID)
            result.liveTrackID = record.trackID
        }
        return result
    }

    /// A growing device track's figures (distance, time, climb, speeds, the list's little map), computed again
    /// from its points when enough has come since the last time: at least 1 % more points, and either a minute
    /// more of riding or 5 % more points (60 at least: a device sending a fix a second is computed once a minute,
    /// not every 10 posts, which was a third of a busy server's writing). So the list shows a live track's
    /// distance within about a minute, and the work stays linear in the points however a device posts (each
    /// computation over n points follows at least n/100 new ones).
    static func refreshFiguresIfDue(_ recording: inout LiveDeviceTrack, lastFixTime: Int64, _ db: Database) throws {
        guard let pointCount = try DirectStatement(db, "SELECT pointCount FROM track WHERE id = ?").fetchOne(recording.trackID, decode: { $0.int(0) })
        else { return }
        guard DeviceIngestRules.figuresAreDue(pointCount: pointCount, figuresPointCount: recording.figuresPointCount, figuresUntil: recording.figuresUntil,
                            lastFixTime: lastFixTime)
        else { return }
        try blockPendingFixes(trackID: recording.trackID, db)
        // A cached statement: GRDB's `fetchOne(db, key:)` prepared its query again each time.
        guard var track = try TrackRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM track WHERE id = ?"), arguments: [recording.trackID])
        else { return }
        let content = try applyFigures(to: &track, readingHeaders: false, db)
        try track.update(db)
        recording.figuresPointCount = content.trackPointCount
        recording.figuresUntil = lastFixTime
    }

    /// Computes a track's figures from its stored points and puts them in the record (not saved).
    ///
    /// `readingHeaders: false` leaves the GPX headers (names, metadata, extensions) unread and unchanged: the
    /// figures need only the points, and a live device track's headers do not change as it grows (parsing
    /// them was a tenth of each of its refreshes). The content returned then has no headers.
    @discardableResult
    static func applyFigures(to track: inout TrackRecord, readingHeaders: Bool = true, _ db: Database) throws -> TrackContent {
        var content = try TrackFigures.emptyContent(of: track, readingHeaders: readingHeaders)
        try loadPoints(into: &content, trackID: track.id, db)
        try TrackFigures.apply(content, headersRead: readingHeaders, to: &track)
        return content
    }

    /// Finishes the live tracks of devices that have gone quiet: no fix for longer than the gap, by the fixes'
    /// times and by when the server last heard from the device. Without this, a track whose device stopped
    /// posting (the phone switched off at home) would stay "recording" until that device's next post.
    public func finishIdleDeviceTracks(gapSeconds: Double, now: Date) async throws -> [TrackID] {
        let cutoff = StoreClock.milliseconds(now) - DeviceIngestRules.gapMilliseconds(gapSeconds)
        return try await write { db in
            let candidates = try RecordingRecord.fetchAll(
                db, sql: """
                    SELECT recording.* FROM recording JOIN device ON device.id = recording.deviceId
                    WHERE recording.state != ? AND (device.lastSeenAt IS NULL OR device.lastSeenAt < ?)
                    """, arguments: [RecordingState.stopped, cutoff])
            var finished: [TrackID] = []
            for recording in candidates {
                let last = try Self.fixTimeBounds(db, trackID: recording.trackId)?.1 ?? 0
                guard last < cutoff else { continue }
                try Self.finishDeviceTrack(recording, db)
                finished.append(recording.trackId)
            }
            return finished
        }
    }

    public func deviceFixes(userID: UserID, after sequence: Int64, limit: Int) async throws -> [StoredDeviceFix] {
        try await read { db in
            try Self.fetchFixes(db, where: "userId = ? AND id > ? ORDER BY id LIMIT ?", [userID, sequence, max(1, min(limit, 10_000))])
        }
    }

    public func deviceFixes(deviceID: DeviceID, userID: UserID, since: Date, limit: Int) async throws -> [StoredDeviceFix] {
        try await read { db in
            try Self.fetchFixes(
                db, where: "deviceId = ? AND userId = ? AND time >= ? ORDER BY time LIMIT ?",
                [deviceID, userID, StoreClock.milliseconds(since), max(1, min(limit, 100_000))])
        }
    }

    public func latestDeviceFixes(userID: UserID) async throws -> [StoredDeviceFix] {
        try await read { db in
            let devices = try DeviceRecord.filter(DeviceRecord.Columns.userId == userID).fetchAll(db)
            return try devices.flatMap { device in
                try Self.fetchFixes(db, where: "deviceId = ? ORDER BY time DESC LIMIT 1", [device.id])
            }
        }
    }

    public func lastDeviceFixSequence(userID: UserID) async throws -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM deviceFix WHERE userId = ?", arguments: [userID]) ?? 0 }
    }

    // MARK: Live share links

    public func createLiveShare(token: String, deviceID: DeviceID, userID: UserID, expiresAt: Date, untilRideEnds: Bool) async throws -> LiveShare {
        guard ShareLink.isWellFormed(token: token) else {
            throw RideStoreError.invalid(field: "token", reason: "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _")
        }
        return try await write { db in
            guard let device = try DeviceRecord.filter(key: deviceID).filter(DeviceRecord.Columns.userId == userID).fetchOne(db) else {
                throw RideStoreError.notFound(kind: "device", id: deviceID.rawValue)
            }
            var trackID: TrackID?
            if untilRideEnds {
                guard let live = try RecordingRecord.filter(Column("deviceId") == deviceID && RecordingRecord.Columns.state != RecordingState.stopped)
                    .order(RecordingRecord.Columns.startedAt.desc).fetchOne(db)
                else { throw RideStoreError.conflict("the device has no ride in progress") }
                trackID = live.trackId
            }
            let now = StoreClock.now()
            try db.execute(
                sql: "INSERT INTO shareLink (token, userId, targetKind, targetId, createdAt, expiresAt, trackId) VALUES (?, ?, 'device', ?, ?, ?, ?)",
                arguments: [ShareLinkRules.storedToken(token), userID, deviceID, StoreClock.milliseconds(now), StoreClock.milliseconds(expiresAt), trackID])
            return LiveShare(token: token, userID: userID, deviceID: deviceID, deviceName: device.name, trackID: trackID, createdAt: now,
                             expiresAt: StoreClock.rounded(expiresAt))
        }
    }

    public func liveShare(token: String, now: Date) async throws -> LiveShare? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await read { db in
            // The link's row with its device when that is still the owner's; whether it shows is ShareLinkRules'.
            guard let row = try Row.fetchOne(
                db, sql: """
                    SELECT shareLink.userId, shareLink.targetId, shareLink.trackId, shareLink.createdAt, shareLink.expiresAt, device.name,
                           shareLink.targetKind, shareLink.revokedAt
                    FROM shareLink LEFT JOIN device ON device.id = shareLink.targetId AND device.userId = shareLink.userId
                    WHERE shareLink.token = ?
                    """, arguments: [ShareLinkRules.storedToken(token)]),
                  let userID = UserID.fromDatabaseValue(row[0]), let deviceID = DeviceID.fromDatabaseValue(row[1])
            else { return nil }
            let trackID = TrackID.fromDatabaseValue(row[2])
            let deviceName = row[5] as String?
            let rideIsRecording = try trackID.map { trackID in
                try Bool.fetchOne(
                    db, sql: "SELECT EXISTS (SELECT 1 FROM recording WHERE trackId = ? AND state != 'stopped')", arguments: [trackID]) ?? false
            } ?? false
            let expiresAt = (row[4] as Int64?).map { Date(timeIntervalSince1970: Double($0) / 1000) }
            guard ShareLinkRules.liveShareShows(
                targetKind: row[6], revokedAt: (row[7] as Int64?).map { Date(timeIntervalSince1970: Double($0) / 1000) }, expiresAt: expiresAt,
                now: now, deviceIsTheOwners: deviceName != nil, madeForRide: trackID, rideIsRecording: rideIsRecording),
                let deviceName, let expiresAt
            else { return nil }
            return LiveShare(
                token: token, userID: userID, deviceID: deviceID, deviceName: deviceName, trackID: trackID,
                createdAt: Date(timeIntervalSince1970: Double(row[3] as Int64) / 1000), expiresAt: expiresAt)
        }
    }

    // MARK: Helpers

    static func fetchFixes(_ db: Database, where condition: String, _ arguments: StatementArguments) throws -> [StoredDeviceFix] {
        try Row.fetchAll(
            db, sql: """
                SELECT id, deviceId, trackId, time, latitude, longitude, elevation, speed, course, accuracy, battery, receivedAt
                FROM deviceFix WHERE \(condition)
                """, arguments: arguments
        ).compactMap { row in
            guard let deviceID = DeviceID.fromDatabaseValue(row[1]) else { return nil }
            let fix = TrackerFix(
                time: Date(timeIntervalSince1970: Double(row[3] as Int64) / 1000), latitude: row[4], longitude: row[5],
                elevationMeters: row[6], speedMetersPerSecond: row[7], courseDegrees: row[8], accuracyMeters: row[9], batteryPercent: row[10])
            return StoredDeviceFix(
                sequence: row[0], deviceID: deviceID, trackID: TrackID.fromDatabaseValue(row[2]), fix: fix,
                receivedAt: Date(timeIntervalSince1970: Double(row[11] as Int64) / 1000))
        }
    }

    /// The first and last fix times (ms) in a device track, nil when it has none.
    static func fixTimeBounds(_ db: Database, trackID: TrackID) throws -> (Int64, Int64)? {
        // Two queries, each one step down the (trackId, time) index; `MIN(time), MAX(time)` in one would read
        // every fix of the track, a cost that grew with each post.
        guard let first = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MIN(time) FROM deviceFix WHERE trackId = ?"), arguments: [trackID]),
              let last = try Int64.fetchOne(db.cachedStatement(sql: "SELECT MAX(time) FROM deviceFix WHERE trackId = ?"), arguments: [trackID])
        else { return nil }
        return (first, last)
    }

    /// A device's new live track: a recording with the device, its track's source `device`, named after the
    /// device and the first fix's day.
    static func startDeviceTrack(
        deviceID: DeviceID, userID: UserID, deviceName: String, at time: Date, now: Date, _ db: Database
    ) throws -> RecordingRecord {
        let name = DeviceIngestRules.trackName(deviceName: deviceName, at: time)
        let trackID: TrackID = try freshID(db, table: "track")
        let (record, content) = try TrackRules.recordingTrack(id: trackID, userID: userID, name: name, kind: .ride, source: .device, now: now)
        try record.insert(db)
        try insertContent(content, trackID: trackID, db)
        let recording = RecordingRecord(
            id: try freshID(db, table: "recording"), userId: userID, trackId: trackID, deviceId: deviceID, state: .recording,
            routeTrackId: nil, lastClientSequence: nil, startedAt: now, updatedAt: now, options: nil, clientId: nil)
        try recording.insert(db)
        return recording
    }

    /// Writes a device track's points again from its fixes in time order (a fix arrived out of order).
    static func rebuildPoints(trackID: TrackID, _ db: Database) throws {
        guard let segmentID = try Int64.fetchOne(
            db, sql: "SELECT id FROM segment WHERE trackId = ? AND role = 0 AND part = 0 ORDER BY position DESC LIMIT 1", arguments: [trackID])
        else { throw RideStoreError.damaged("device track \(trackID) has no segment") }
        let fixes = try trackFixes(trackID: trackID, after: nil, db)
        let points = fixes.map(DeviceIngestRules.trackPoint)
        try db.execute(sql: "DELETE FROM pointBlock WHERE segmentId = ?", arguments: [segmentID])
        try insertBlocks(PackedPoints(points[...]).packedBlocks, segmentID: segmentID, firstPosition: 0, db)
        try db.execute(sql: "UPDATE segment SET pointCount = ? WHERE id = ?", arguments: [points.count, segmentID])
        try db.execute(
            sql: "UPDATE track SET pointCount = ?, updatedAt = ? WHERE id = ?",
            arguments: [points.count, StoreClock.milliseconds(StoreClock.now()), trackID])
        // Every fix is in the blocks now.
        try DirectStatement(db, "UPDATE recording SET blocksUntil = ? WHERE trackId = ?").execute(fixes.last?.milliseconds, trackID)
    }

    /// Appends a device track's fixes that are not in its point blocks yet (those after its recording's
    /// `blocksUntil`) to them, as one append. Its point count already counts them (they were counted as they
    /// came). Called when its figures are computed again, before it is packed, and before a copy.
    static func blockPendingFixes(trackID: TrackID, _ db: Database) throws {
        let fixes = try waitingFixes(trackID: trackID, db)
        guard let last = fixes.last else { return }
        try appendPoints(fixes.map(DeviceIngestRules.trackPoint), trackID: trackID, countingTrack: false, db)
        try DirectStatement(db, "UPDATE recording SET blocksUntil = ? WHERE trackId = ?").execute(last.milliseconds, trackID)
    }

    /// The fixes of a track not in its point blocks yet, oldest first: a device track's after its recording's
    /// `blocksUntil`; none for any other track.
    static func waitingFixes(trackID: TrackID, _ db: Database) throws -> [TrackerFix] {
        guard let blocksUntil = try DirectStatement(db, "SELECT blocksUntil FROM recording WHERE trackId = ?").fetchOne(trackID, decode: {
            $0.optionalInt64(0)
        }) else { return [] }
        return try trackFixes(trackID: trackID, after: blocksUntil, db)
    }

    /// A device track's fixes after `blocksUntil` (all of them for nil), oldest first.
    static func trackFixes(trackID: TrackID, after blocksUntil: Int64?, _ db: Database) throws -> [TrackerFix] {
        try DirectStatement(db, "SELECT time, latitude, longitude, elevation, speed, course FROM deviceFix WHERE trackId = ? AND time > ? ORDER BY time")
            .fetchAll(trackID, blocksUntil ?? Int64.min) { row in
                TrackerFix(
                    time: Date(timeIntervalSince1970: Double(row.int64(0)) / 1000), latitude: row.real(1), longitude: row.real(2),
                    elevationMeters: row.optionalReal(3), speedMetersPerSecond: row.optionalReal(4), courseDegrees: row.optionalReal(5))
            }
    }

    /// Stops a device's live track and saves it with its figures (as `stopRecording` does for a ride).
    static func finishDeviceTrack(_ recording: RecordingRecord, _ db: Database) throws {
        var recording = recording
        let now = StoreClock.now()
        recording.state = .stopped
        recording.stoppedAt = now
        recording.updatedAt = now
        try recording.update(db)
        guard var track = try TrackRecord.fetchOne(db, key: recording.trackId) else { return }
        try repackPoints(trackID: track.id, db)
        var content = try TrackFigures.emptyContent(of: track, readingHeaders: true)
        try loadPoints(into: &content, trackID: track.id, db)
        try TrackFigures.finish(&track, content: content, now: now)
        try track.update(db)
        try syncHeatmap(db, trackIDs: [track.id], userID: track.userId)
    }
}

/// What a post needs of a device's track in progress, read in one statement on every post: its recording and
/// track, how far its figures go, and its first and last fix times (each one step down the (trackId, time)
/// index; `MIN(time), MAX(time)` in one subquery would read every fix of the track).
struct LiveDeviceTrack {
    var recordingID: RecordingID
    var trackID: TrackID
    var figuresPointCount: Int?
    var figuresUntil: Int64?
    /// The first and last fix times (ms), nil before the track has a fix.
    var bounds: (Int64, Int64)?

    init(recordingID: RecordingID, trackID: TrackID, figuresPointCount: Int?, figuresUntil: Int64?, bounds: (Int64, Int64)? = nil) {
        self.recordingID = recordingID
        self.trackID = trackID
        self.figuresPointCount = figuresPointCount
        self.figuresUntil = figuresUntil
        self.bounds = bounds
    }

    init(_ recording: RecordingRecord) {
        self.init(
            recordingID: recording.id, trackID: recording.trackId, figuresPointCount: recording.figuresPointCount,
            figuresUntil: recording.figuresUntil)
    }

    /// `state != 'stopped'` is written out, not bound: only then can SQLite use the partial index
    /// `recording_liveDevice` (a bound value might be anything).
    static let query = """
        SELECT recording.id, recording.trackId, recording.figuresPointCount, recording.figuresUntil,
               (SELECT MIN(time) FROM deviceFix WHERE deviceFix.trackId = recording.trackId),
               (SELECT MAX(time) FROM deviceFix WHERE deviceFix.trackId = recording.trackId)
        FROM recording WHERE recording.deviceId = ? AND recording.state != 'stopped' ORDER BY recording.startedAt DESC LIMIT 1
        """

    static func fetch(_ db: Database, deviceID: DeviceID) throws -> LiveDeviceTrack? {
        try DirectStatement(db, query).fetchOne(deviceID) { row in
            var live = LiveDeviceTrack(
                recordingID: try row.id(0), trackID: try row.id(1), figuresPointCount: row.optionalInt(2), figuresUntil: row.optionalInt64(3))
            if let first = row.optionalInt64(4), let last = row.optionalInt64(5) { live.bounds = (first, last) }
            return live
        }
    }
}
