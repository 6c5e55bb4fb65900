import Foundation
import PostgresNIO
import RideKit
import RideStore

// The phone apps' posts on PostgreSQL, set-wise: one group commit's posts (`IngestCommitter`) cost a fixed number of
// statements whatever their number: the users and devices locked, the devices' live tracks read, every fix inserted
// in one statement, then one update each of the fixes' tracks, the tracks' point counts, the devices and the
// recordings. A post one at a time cost about a dozen round trips (issue 19: PostgreSQL took 7 % of SQLite's posts a
// second). The rules are the ones SQLite follows (`DeviceIngestRules`, `DeviceTrackPlacement`): the same decisions,
// and the same waiting fixes (a live track's newest fixes stay in `device_fixes` after its `blocks_until` until its
// figures are computed again).
extension PostgresRideStore {
    public func ingest(_ fixes: [TrackerFix], deviceID: DeviceID, userID: UserID, gapSeconds: Double) async throws -> IngestResult {
        try await ingest([DevicePost(fixes: fixes, deviceID: deviceID, userID: userID)], gapSeconds: gapSeconds)[0].get()
    }

    public func ingest(_ posts: [DevicePost], gapSeconds: Double) async throws -> [Result<IngestResult, RideStoreError>] {
        guard !posts.isEmpty else { return [] }
        return try await transaction { [logger] connection in
            var batch = IngestBatch(posts: posts, gap: DeviceIngestRules.gapMilliseconds(gapSeconds), now: Self.now(), connection, logger: logger)
            return try await batch.run()
        }
    }

    /// A device track's fixes not in its point blocks yet (after its recording's `blocks_until`; all of them while
    /// that is NULL), oldest first; none for a track that is not a device's.
    static func waitingFixes(trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws -> [TrackerFix] {
        try await waitingFixes(trackIDs: [trackID], connection, logger: logger)[trackID] ?? []
    }

    /// `waitingFixes` of several tracks in one statement, by track (tracks without any left out).
    static func waitingFixes(trackIDs: [TrackID], _ connection: PostgresConnection, logger: Logger) async throws -> [TrackID: [TrackerFix]] {
        let fixes = try await storedFixes(
            connection.query(
                """
                SELECT \(unescaped: fixColumns) FROM recordings JOIN device_fixes ON device_fixes.track_id = recordings.track_id
                WHERE recordings.track_id = ANY(\(trackIDs.map(\.rawValue))::text[])
                  AND device_fixes.time > coalesce(recordings.blocks_until, \(Int64.min))
                ORDER BY device_fixes.track_id, device_fixes.time
                """, logger: logger))
        var byTrack: [TrackID: [TrackerFix]] = [:]
        for fix in fixes { if let trackID = fix.trackID { byTrack[trackID, default: []].append(fix.fix) } }
        return byTrack
    }

    /// Appends a device track's waiting fixes to its point blocks (they are counted in the track already, as they
    /// came), as SQLite's `blockPendingFixes`: before its figures are computed again and when it is finished.
    static func blockWaitingFixes(trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws {
        let fixes = try await waitingFixes(trackID: trackID, connection, logger: logger)
        guard let last = fixes.last else { return }
        let segmentID = try await appendToLastSegment(fixes.map(DeviceIngestRules.trackPoint), trackID: trackID, connection, logger: logger)
        try await connection.query(
            "UPDATE segments SET point_count = point_count + \(Int64(fixes.count)) WHERE id = \(segmentID)", logger: logger)
        try await connection.query(
            "UPDATE recordings SET blocks_until = \(last.milliseconds) WHERE track_id = \(trackID.rawValue)", logger: logger)
    }
}

/// One group commit's posts, in one transaction.
private struct IngestBatch {
    /// A device's track in progress, as the batch goes.
    struct Live {
        var recordingID: RecordingID
        var trackID: TrackID
    }

    /// What the batch knows of one device.
    struct DeviceState {
        var device: Device
        var live: Live?
        var placement: DeviceTrackPlacement
    }

    let posts: [DevicePost]
    let gap: Int64
    let now: Date
    let connection: PostgresConnection
    let logger: Logger

    var devices: [DeviceID: DeviceState] = [:]
    /// Fixes whose track is not the one they were inserted with: the track, or "" for none.
    var moved: [Key: String] = [:]
    /// Points appended to each track in progress, not yet counted in its row.
    var appended: [TrackID: Int] = [:]
    /// Tracks whose points are written again from their fixes (a fix came out of order).
    var rebuilt: Set<TrackID> = []

    init(posts: [DevicePost], gap: Int64, now: Date, _ connection: PostgresConnection, logger: Logger) {
        self.posts = posts
        self.gap = gap
        self.now = now
        self.connection = connection
        self.logger = logger
    }

    mutating func run() async throws -> [Result<IngestResult, RideStoreError>] {
        // What a post's fixes are worth is known before any statement: the devices of valid posts are the ones read.
        let valid = posts.map { (try? DeviceIngestRules.validate($0.fixes)) != nil }
        try await readDevices(posting: zip(posts, valid).filter(\.1).map(\.0))
        var results: [Result<IngestResult, RideStoreError>] = []
        var unique: [[TrackerFix]] = []
        for post in posts {
            var result = IngestResult()
            do {
                try DeviceIngestRules.validate(post.fixes)
                guard devices[post.deviceID]?.device.userID == post.userID else {
                    throw RideStoreError.notFound(kind: "device", id: post.deviceID.rawValue)
                }
                // One time once: the first of a post's fixes with the same millisecond is kept, the others are duplicates.
                var kept: [TrackerFix] = []
                for fix in post.fixes.sorted(by: { $0.time < $1.time }) {
                    if let last = kept.last, last.milliseconds == fix.milliseconds { result.duplicateCount += 1 } else { kept.append(fix) }
                }
                unique.append(kept)
                results.append(.success(result))
            } catch let refusal as RideStoreError {
                unique.append([])
                results.append(.failure(refusal))
            }
        }
        var inserted = try await insert(unique, results: results)
        // The track each stored fix holds in the database now (the one it was inserted with), and the fixes not placed
        // yet by track: when a track is finished in the batch, its fixes still to be placed leave it first.
        var current: [Key: TrackID] = [:]
        var unplaced: [TrackID: [Key]] = [:]
        for key in inserted {
            guard let trackID = predictedTrack(DeviceID(key.device)!, key.time) else { continue }
            current[key] = trackID
            unplaced[trackID, default: []].append(key)
        }
        var placed = Set<Key>()

        var liveRecordings: [RecordingID: (trackID: TrackID, lastFix: Int64)] = [:]
        for (index, post) in posts.enumerated() {
            guard case .success(var result) = results[index], var state = devices[post.deviceID] else { continue }
            var fresh: [TrackerFix] = []
            for fix in unique[index] {
                // The first post of the batch that holds a (device, time) stored it; any later one has a duplicate.
                if inserted.remove(Key(post.deviceID.rawValue, fix.milliseconds)) != nil { fresh.append(fix) } else { result.duplicateCount += 1 }
            }
            result.storedCount = fresh.count
            guard !fresh.isEmpty else {
                results[index] = .success(result)
                continue
            }
            for fix in fresh {
                let key = Key(post.deviceID.rawValue, fix.milliseconds)
                let decision = state.placement.place(fix.milliseconds)
                if decision == .late {
                    result.lateCount += 1
                    if current.removeValue(forKey: key) != nil { moved[key] = "" }
                    continue
                }
                if case .append(finishesLive: true, _) = decision, let live = state.live {
                    for waiting in unplaced.removeValue(forKey: live.trackID) ?? [] where !placed.contains(waiting) && current[waiting] == live.trackID {
                        current[waiting] = nil
                        moved[waiting] = ""
                    }
                    try await flush()
                    try await PostgresRideStore.finishDeviceTrack(recordingID: live.recordingID, trackID: live.trackID, connection, logger: logger)
                    result.finishedTrackIDs.append(live.trackID)
                    liveRecordings[live.recordingID] = nil
                    state.live = nil
                }
                if case .append(_, startsTrack: true) = decision {
                    let recording = try await PostgresRideStore.startDeviceTrack(
                        device: state.device, at: fix.time, now: now, connection, logger: logger)
                    state.live = Live(recordingID: recording.id, trackID: recording.trackID)
                }
                // Placed now: a track finished before this point (just above, or by a later fix) keeps it only if it is there.
                placed.insert(key)
                guard let live = state.live else { continue }
                if current[key] != live.trackID {
                    current[key] = live.trackID
                    moved[key] = live.trackID.rawValue
                }
                if decision == .rebuild { rebuilt.insert(live.trackID) } else { appended[live.trackID, default: 0] += 1 }
                liveRecordings[live.recordingID] = (live.trackID, state.placement.bounds?.last ?? fix.milliseconds)
            }
            result.liveTrackID = state.live?.trackID
            devices[post.deviceID] = state
            results[index] = .success(result)
        }
        try await flush(countingPoints: false)
        try await finish(liveRecordings: liveRecordings)
        return results
    }

    /// Locks the posts' users and devices (users before devices, each in one order, as every writer takes them: two
    /// instances' batches that share some wait for each other, never deadlock) and reads each device's live track.
    ///
    /// The user's row lock makes their posts take turns, so that the feed's sequence numbers (`device_fixes.id`)
    /// become visible in their order: a live view reading "after the last one I saw" would otherwise skip a fix of a
    /// transaction that took its number first and committed last. The device's orders two posts of one device (two
    /// instances, a retry racing its original): the second sees the fixes and the live track the first stored.
    ///
    /// Two round trips, and no fewer: what is read of the live tracks must be read after the users' locks are held
    /// (a statement reads on the snapshot it started with, before it waited for a lock). The second locks the devices
    /// by the update of their last contact (every device of a valid post was heard from, duplicates only or not) and
    /// reads their live tracks. Its devices need no sorting: two batches that share a device share its user, whose
    /// lock they took first.
    mutating func readDevices(posting valid: [DevicePost]) async throws {
        let userIDs = Array(Set(posts.map(\.userID.rawValue))).sorted()
        _ = try await connection.execute(LockPostingUsers(userIDs: userIDs), logger: logger)
        let pairs = Array(Set(valid.map { [$0.deviceID.rawValue, $0.userID.rawValue] })).sorted { $0.lexicographicallyPrecedes($1) }
        guard !pairs.isEmpty else { return }
        // Each device's newest recording not stopped, with its fixes' first and last times (each one step down the
        // (track_id, time) index) and its track's points (for the cap on a track's points).
        let rows = try await connection.execute(
            TouchPostingDevices(now: PostgresRideStore.milliseconds(now), deviceIDs: pairs.map { $0[0] }, userIDs: pairs.map { $0[1] }),
            logger: logger)
        var found: [DeviceID: Device] = [:]
        var tracks: [DeviceID: (live: Live, bounds: (Int64, Int64)?, points: Int)] = [:]
        for try await (id, userID, name, tokenHash, protocolName, createdAt, lastSeenAt, recording, track, first, last, points) in rows {
            let device = Device(
                id: try PostgresRideStore.shortID(id, column: "devices.id"), userID: try PostgresRideStore.shortID(userID, column: "devices.user_id"),
                name: name, tokenHash: tokenHash, protocolName: protocolName, createdAt: PostgresRideStore.date(createdAt),
                lastSeenAt: lastSeenAt.map(PostgresRideStore.date))
            found[device.id] = device
            guard let recording, let track else { continue }
            let bounds = first.flatMap { first in last.map { (first, $0) } }
            tracks[device.id] = (
                Live(
                    recordingID: try PostgresRideStore.shortID(recording, column: "recordings.id"),
                    trackID: try PostgresRideStore.shortID(track, column: "recordings.track_id")),
                bounds, Int(clamping: points ?? 0))
        }
        // The cap a device's posts carry (the server's `--max-track-points`; the same for every post of a device).
        var caps: [DeviceID: Int] = [:]
        for post in posts { if let cap = post.maximumTrackPoints { caps[post.deviceID] = cap } }
        for (id, device) in found {
            let live = tracks[id]
            devices[id] = DeviceState(
                device: device, live: live?.live,
                placement: DeviceTrackPlacement(
                    hasLiveTrack: live != nil, bounds: live?.bounds, gapMilliseconds: gap, pointCount: live?.points ?? 0,
                    maximumPoints: caps[id]))
        }
        initialLive = tracks.mapValues { ($0.live.trackID, $0.bounds) }
    }

    /// Each device's live track and its fix times when the batch began: what a fix is inserted with.
    var initialLive: [DeviceID: (TrackID, (Int64, Int64)?)] = [:]

    /// The track a fix is inserted with: the device's live track when the fix lies within the gap of its fixes (the
    /// placement decides the same for it unless an earlier fix of the batch ended that track; `moved` mends those).
    func predictedTrack(_ deviceID: DeviceID, _ time: Int64) -> TrackID? {
        guard let (trackID, bounds) = initialLive[deviceID], let (first, last) = bounds else { return nil }
        return (first - gap...last + gap).contains(time) ? trackID : nil
    }

    struct Key: Hashable {
        var device: String
        var time: Int64
        init(_ device: String, _ time: Int64) {
            self.device = device
            self.time = time
        }
    }

    /// Every post's fixes in one statement; the unique (device_id, time) stores each once, even when another
    /// transaction inserts the same time at this moment (it waits for that one, then skips the row). Returns the
    /// (device, time) pairs stored. Absent values travel as NaN and are stored as NULL (`validate` refused every NaN a
    /// caller gave); no track as "".
    func insert(_ unique: [[TrackerFix]], results: [Result<IngestResult, RideStoreError>]) async throws -> Set<Key> {
        var deviceColumn: [String] = [], userColumn: [String] = [], trackColumn: [String] = [], times: [Int64] = []
        var latitudes: [Double] = [], longitudes: [Double] = [], elevations: [Double] = [], speeds: [Double] = []
        var courses: [Double] = [], accuracies: [Double] = [], batteries: [Double] = []
        for (index, post) in posts.enumerated() {
            guard case .success = results[index] else { continue }
            for fix in unique[index] {
                deviceColumn.append(post.deviceID.rawValue)
                userColumn.append(post.userID.rawValue)
                trackColumn.append(predictedTrack(post.deviceID, fix.milliseconds)?.rawValue ?? "")
                times.append(fix.milliseconds)
                latitudes.append(fix.latitude)
                longitudes.append(fix.longitude)
                elevations.append(fix.elevationMeters ?? .nan)
                speeds.append(fix.speedMetersPerSecond ?? .nan)
                courses.append(fix.courseDegrees ?? .nan)
                accuracies.append(fix.accuracyMeters ?? .nan)
                batteries.append(fix.batteryPercent ?? .nan)
            }
        }
        guard !times.isEmpty else { return [] }
        // Every instance's live views of each user who got a fix look now (`PostgresLiveListener`): one notification per
        // user with a fix stored, none for a replay that stored nothing. PostgreSQL sends them on COMMIT only, once the
        // fixes are visible. (In this statement: one of its own cost every batch a round trip.)
        let rows = try await connection.execute(
            InsertPostedFixes(
                devices: deviceColumn, users: userColumn, tracks: trackColumn, times: times, latitudes: latitudes, longitudes: longitudes,
                elevations: elevations, speeds: speeds, courses: courses, accuracies: accuracies, batteries: batteries,
                receivedAt: PostgresRideStore.milliseconds(now)), logger: logger)
        var stored = Set<Key>()
        for try await (device, time) in rows { stored.insert(Key(device, time)) }
        return stored
    }

    /// Writes what the batch decided so far: the fixes whose track changed, the tracks written again from their
    /// fixes, and the other tracks' new point counts (their fixes wait in `device_fixes`, read after the blocks).
    ///
    /// `countingPoints: false` leaves the point counts to `finish`, which writes them with the recordings' time.
    mutating func flush(countingPoints: Bool = true) async throws {
        if !moved.isEmpty {
            let rows = moved.sorted { ($0.key.device, $0.key.time) < ($1.key.device, $1.key.time) }
            try await connection.query(
                """
                UPDATE device_fixes SET track_id = NULLIF(m.tr, '')
                FROM unnest(\(rows.map(\.key.device))::text[], \(rows.map(\.key.time))::bigint[], \(rows.map(\.value))::text[]) AS m (d, t, tr)
                WHERE device_fixes.device_id = m.d AND device_fixes.time = m.t
                """, logger: logger)
            moved = [:]
        }
        for trackID in rebuilt.sorted(by: { $0.rawValue < $1.rawValue }) {
            try await PostgresRideStore.rebuildPoints(trackID: trackID, connection, logger: logger)
            appended[trackID] = nil
        }
        rebuilt = []
        if countingPoints, !appended.isEmpty {
            let counts = appended.sorted { $0.key.rawValue < $1.key.rawValue }
            try await connection.query(
                """
                UPDATE tracks SET point_count = point_count + u.c, updated_at = \(PostgresRideStore.milliseconds(now))
                FROM unnest(\(counts.map(\.key.rawValue))::text[], \(counts.map { Int64($0.value) })::bigint[]) AS u (id, c)
                WHERE tracks.id = u.id
                """, logger: logger)
            appended = [:]
        }
    }

    /// Each track still in progress: its new point count and its recording's time (one statement), and its figures
    /// computed again when enough has come (`DeviceIngestRules.figuresAreDue`).
    mutating func finish(liveRecordings: [RecordingID: (trackID: TrackID, lastFix: Int64)]) async throws {
        guard !liveRecordings.isEmpty else {
            try await flush()
            return
        }
        let ids = liveRecordings.keys.map(\.rawValue).sorted()
        let counts = appended.sorted { $0.key.rawValue < $1.key.rawValue }
        appended = [:]
        let rows = try await connection.execute(
            CountLivePoints(
                trackIDs: counts.map(\.key.rawValue), counts: counts.map { Int64($0.value) }, now: PostgresRideStore.milliseconds(now),
                recordingIDs: ids), logger: logger)
        var due: [PostgresRideStore.DueFigures] = []
        for try await (id, points, figuresPoints, figuresUntil) in rows {
            let recordingID: RecordingID = try PostgresRideStore.shortID(id, column: "recordings.id")
            guard let live = liveRecordings[recordingID], DeviceIngestRules.figuresAreDue(
                pointCount: Int(points), figuresPointCount: figuresPoints.map(Int.init), figuresUntil: figuresUntil, lastFixTime: live.lastFix)
            else { continue }
            due.append(PostgresRideStore.DueFigures(recordingID: recordingID, trackID: live.trackID, lastFixTime: live.lastFix))
        }
        try await PostgresRideStore.refreshFigures(due, connection, logger: logger)
    }
}

// A group commit's statements, prepared once per connection (postgres-nio keeps them by name): each batch sends only
// their values, and PostgreSQL parses them once (parsing and planning them again was about a sixth of its time for a
// batch).

/// The posts' users locked, in id order (`IngestBatch.readDevices`).
struct LockPostingUsers: PostgresPreparedStatement {
    static let sql = "SELECT id FROM users WHERE id = ANY($1::text[]) ORDER BY id FOR NO KEY UPDATE"
    typealias Row = Void
    var userIDs: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(userIDs)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// The posting devices' last contact (which locks them), each with its newest recording not stopped, that recording's
/// fixes' first and last times (each one step down the (track_id, time) index) and its track's points (for the cap on
/// a track's points).
struct TouchPostingDevices: PostgresPreparedStatement {
    static let sql = """
        UPDATE devices SET last_seen_at = $1
        FROM unnest($2::text[], $3::text[]) AS p (posted_device, posted_user)
        LEFT JOIN LATERAL (
            SELECT id, track_id FROM recordings
            WHERE recordings.device_id = p.posted_device AND recordings.state <> '\(RecordingState.stopped.rawValue)'
            ORDER BY started_at DESC, id DESC LIMIT 1) AS r ON true
        WHERE devices.id = p.posted_device AND devices.user_id = p.posted_user
        RETURNING devices.id, devices.user_id, devices.name, devices.token_hash, devices.protocol, devices.created_at,
                  devices.last_seen_at, r.id, r.track_id,
                  (SELECT min(time) FROM device_fixes WHERE track_id = r.track_id),
                  (SELECT max(time) FROM device_fixes WHERE track_id = r.track_id),
                  (SELECT point_count FROM tracks WHERE id = r.track_id)
        """
    typealias Row = (String, String, String, String, String, Int64, Int64?, String?, String?, Int64?, Int64?, Int64?)
    var now: Int64
    var deviceIDs: [String]
    var userIDs: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(now)
        bindings.append(deviceIDs)
        bindings.append(userIDs)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// Every post's fixes in one statement (`IngestBatch.insert`), with one notification per user who got a fix stored
/// (`PostgresLiveListener`), sent by PostgreSQL on COMMIT; the (device, time) pairs stored.
struct InsertPostedFixes: PostgresPreparedStatement {
    static let sql = """
        WITH stored AS (
            INSERT INTO device_fixes (device_id, user_id, track_id, time, latitude, longitude, elevation, speed, course, accuracy, battery, received_at)
            SELECT d, u, NULLIF(tr, ''), t, la, lo, NULLIF(e, 'NaN'), NULLIF(s, 'NaN'), NULLIF(c, 'NaN'), NULLIF(a, 'NaN'), NULLIF(b, 'NaN'), $12
            FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
                        $9::float8[], $10::float8[], $11::float8[]) AS f (d, u, tr, t, la, lo, e, s, c, a, b)
            ON CONFLICT (device_id, time) DO NOTHING
            RETURNING device_id, time, user_id
        ), notified AS (
            SELECT pg_notify('\(PostgresLiveListener.channel)', u) FROM (SELECT DISTINCT user_id AS u FROM stored) AS users
        )
        SELECT device_id, time FROM stored WHERE (SELECT count(*) FROM notified) >= 0
        """
    typealias Row = (String, Int64)
    var devices: [String], users: [String], tracks: [String], times: [Int64]
    var latitudes: [Double], longitudes: [Double], elevations: [Double], speeds: [Double], courses: [Double], accuracies: [Double]
    var batteries: [Double]
    var receivedAt: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 12)
        bindings.append(devices)
        bindings.append(users)
        bindings.append(tracks)
        bindings.append(times)
        bindings.append(latitudes)
        bindings.append(longitudes)
        bindings.append(elevations)
        bindings.append(speeds)
        bindings.append(courses)
        bindings.append(accuracies)
        bindings.append(batteries)
        bindings.append(receivedAt)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// The tracks in progress counted (their new points) and their recordings' time, in one statement; each recording
/// with its track's point count and its figures' state (`DeviceIngestRules.figuresAreDue`). The tracks' counts are
/// in a CTE, whose new values the recordings' RETURNING reads (the main statement sees the tracks as they were).
struct CountLivePoints: PostgresPreparedStatement {
    static let sql = """
        WITH counted AS (
            UPDATE tracks SET point_count = point_count + u.c, updated_at = $3
            FROM unnest($1::text[], $2::bigint[]) AS u (id, c)
            WHERE tracks.id = u.id
            RETURNING tracks.id, tracks.point_count
        )
        UPDATE recordings SET updated_at = $3 WHERE id = ANY($4::text[])
        RETURNING id, coalesce((SELECT point_count FROM counted WHERE counted.id = recordings.track_id),
                               (SELECT point_count FROM tracks WHERE tracks.id = recordings.track_id)),
                  figures_point_count, figures_until
        """
    typealias Row = (String, Int64, Int64?, Int64?)
    var trackIDs: [String]
    var counts: [Int64]
    var now: Int64
    var recordingIDs: [String]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(trackIDs)
        bindings.append(counts)
        bindings.append(now)
        bindings.append(recordingIDs)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
