import Foundation
import PostgresNIO
import RideKit
import RideStore

// Accounts, sessions, device ingestion and live share links (issue 12) on PostgreSQL, with the semantics of
// the `RideStore` interface and the rules of `DeviceIngestRules`. What several instances may do at once is decided by the database: row locks order
// the posts of one user and of one device, and the unique (device_id, time) stores a fix once.
extension PostgresRideStore {
    // MARK: Users

    public func users() async throws -> [User] {
        try await transaction(readOnly: true) { [logger] connection in
            // "C": by the bytes of the names, as SQLite orders them, whatever the database's locale.
            try await Self.users(
                connection.query(#"SELECT id, name, password_hash, created_at FROM users ORDER BY name COLLATE "C""#, logger: logger))
        }
    }

    public func setPasswordHash(_ hash: String?, userID: UserID) async throws {
        try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            try await connection.query("UPDATE users SET password_hash = \(hash) WHERE id = \(userID.rawValue)", logger: logger)
            _ = try await connection.query("DELETE FROM sessions WHERE user_id = \(userID.rawValue)", logger: logger)
        }
    }

    public func deleteUser(id: UserID) async throws -> Bool {
        try await transaction { [logger] connection in
            // Everything of theirs goes with the row: every table that holds a user's data cascades from `users`.
            let rows = try await connection.query("DELETE FROM users WHERE id = \(id.rawValue) RETURNING id", logger: logger)
            return try await rows.collect().count == 1
        }
    }

    // MARK: Sessions

    public func createSession(tokenHash: String, userID: UserID, expiresAt: Date) async throws {
        try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            let now = Self.milliseconds(Self.now())
            // Expired sessions go as new ones come: the table holds only live ones (and a few hours' worth).
            try await connection.query("DELETE FROM sessions WHERE expires_at < \(now)", logger: logger)
            try await connection.query(
                """
                INSERT INTO sessions (token_hash, user_id, created_at, expires_at)
                VALUES (\(tokenHash), \(userID.rawValue), \(now), \(Self.milliseconds(expiresAt)))
                """, logger: logger)
        }
    }

    /// Asked on every request of a logged-in browser: one prepared statement, one round trip.
    public func sessionUser(tokenHash: String, now: Date) async throws -> User? {
        try await statement { [logger] connection in
            try await connection.execute(SessionUser(tokenHash: tokenHash, now: Self.milliseconds(now)), logger: logger).first { _ in true }
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await transaction { [logger] connection in
            _ = try await connection.query("DELETE FROM sessions WHERE token_hash = \(tokenHash)", logger: logger)
        }
    }

    public func deleteSessions(userID: UserID) async throws {
        try await transaction { [logger] connection in
            _ = try await connection.query("DELETE FROM sessions WHERE user_id = \(userID.rawValue)", logger: logger)
        }
    }

    // MARK: Devices

    public func device(id: DeviceID, userID: UserID) async throws -> Device? {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.device(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func replaceDeviceToken(id: DeviceID, userID: UserID, tokenHash: String) async throws -> Device {
        guard !tokenHash.isEmpty else { throw RideStoreError.invalid(field: "tokenHash", reason: "must not be empty") }
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                UPDATE devices SET token_hash = \(tokenHash) WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue)
                RETURNING \(unescaped: Self.deviceColumns)
                """, logger: logger)
            guard let device = try await Self.devices(rows).first else { throw RideStoreError.notFound(kind: "device", id: id.rawValue) }
            return device
        }
    }

    /// The user's device; with `forUpdate`, locked until the transaction ends (posts of one device take turns).
    static func device(
        _ connection: PostgresConnection, id: DeviceID, userID: UserID, forUpdate: Bool = false, logger: Logger
    ) async throws -> Device? {
        try await devices(
            connection.query(
                """
                SELECT \(unescaped: deviceColumns) FROM devices WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue)
                \(unescaped: forUpdate ? "FOR NO KEY UPDATE" : "")
                """, logger: logger)
        ).first
    }

    // MARK: Positions from devices (the posts themselves: PostgresRideStore+Ingest.swift)

    /// A live device track whose figures are due (`DeviceIngestRules.figuresAreDue`): its recording, and its last fix's
    /// time (ms).
    struct DueFigures {
        var recordingID: RecordingID
        var trackID: TrackID
        var lastFixTime: Int64
    }

    /// Growing device tracks' figures computed again, with their waiting fixes put in their blocks: five statements
    /// however many tracks are due (the tracks' rows locked, their points, their waiting fixes, their blocks, segments,
    /// recordings and rows written, their efforts). One track at a time it was some twenty statements each, most of
    /// PostgreSQL's ingestion's round trips when many devices' figures fell due together (issue 19).
    static func refreshFigures(_ due: [DueFigures], _ connection: PostgresConnection, logger: Logger) async throws {
        guard !due.isEmpty else { return }
        var tracks = try await lockedTrackRecords(connection, ids: due.map(\.trackID), logger: logger)
        // The headers stay as they are (a live track's do not change): only the points are read.
        var contents = try tracks.mapValues { try TrackFigures.emptyContent(of: $0, readingHeaders: false) }
        let loaded = try await loadPoints(into: &contents, connection, logger: logger)
        var write = FiguresWrite()
        for item in due.sorted(by: { $0.trackID.rawValue < $1.trackID.rawValue }) {
            guard var track = tracks[item.trackID], let content = contents[item.trackID] else { continue }
            try TrackFigures.apply(content, headersRead: false, to: &track)
            tracks[item.trackID] = track
            let points = loaded[item.trackID] ?? LoadedPoints()
            try write.add(track, recordingID: item.recordingID, figuresPointCount: content.trackPointCount, lastFixTime: item.lastFixTime,
                          loaded: points)
        }
        try await write.run(connection, logger: logger)
        try await writeEfforts(due.compactMap { tracks[$0.trackID] }.map { ($0.id, $0.stats) }, connection, logger: logger)
    }

    /// What `refreshFigures` writes besides the efforts, column by column, in one statement: the waiting fixes'
    /// blocks (`PointTail.append`, as every append), their segments' counts, the recordings' figures state and
    /// `blocks_until`, and the tracks' columns that come from their points (those `TrackFigures.apply` sets). Absent
    /// values travel as "", NaN or `Int64.min` and are stored as NULL.
    private struct FiguresWrite {
        var removedBlocks: [Int64] = []
        var mergedIDs: [Int64] = [], mergedCounts: [Int64] = [], mergedData: [ByteBuffer] = []
        var addedSegments: [Int64] = [], addedPositions: [Int64] = [], addedCounts: [Int64] = [], addedData: [ByteBuffer] = []
        var segmentIDs: [Int64] = [], segmentCounts: [Int64] = []
        var recordingIDs: [String] = [], blocksUntil: [Int64] = [], figuresPointCounts: [Int64] = [], figuresUntil: [Int64] = []
        var trackIDs: [String] = [], startTimes: [String] = [], endTimes: [String] = [], sortKeys: [Int64] = [], offsets: [Int64] = []
        var distances: [Double] = [], ascents: [Double] = [], descents: [Double] = [], moving: [Double] = [], elapsed: [Double] = []
        var maxSpeeds: [Double] = [], averageSpeeds: [Double] = [], pointCounts: [Int64] = [], segmentCountsOfTracks: [Int64] = []
        var minLatitudes: [Double] = [], minLongitudes: [Double] = [], maxLatitudes: [Double] = [], maxLongitudes: [Double] = []
        var previews: [ByteBuffer] = [], stats: [ByteBuffer] = []

        mutating func add(_ t: TrackRecord, recordingID: RecordingID, figuresPointCount: Int, lastFixTime: Int64, loaded: LoadedPoints) throws {
            if let last = loaded.waiting.last {
                guard let segmentID = loaded.tailSegmentID else { throw RideStoreError.damaged("device track \(t.id) has no segment") }
                switch try PointTail.append(
                    loaded.waiting.map(DeviceIngestRules.trackPoint), tailNewestFirst: loaded.tail.map(\.tailBlock),
                    points: { try TailBlocks.points(of: $0, in: loaded.tail, trackID: t.id) })
                {
                case .insert(let blocks, let firstPosition):
                    for (offset, block) in blocks.enumerated() {
                        addedSegments.append(segmentID)
                        addedPositions.append(Int64(firstPosition + offset))
                        addedCounts.append(Int64(block.pointCount))
                        addedData.append(ByteBuffer(bytes: block.data))
                    }
                case .merge(let id, let block, let removed):
                    mergedIDs.append(id)
                    mergedCounts.append(Int64(block.pointCount))
                    mergedData.append(ByteBuffer(bytes: block.data))
                    removedBlocks += removed
                }
                segmentIDs.append(segmentID)
                segmentCounts.append(Int64(loaded.waiting.count))
                blocksUntil.append(last.milliseconds)
            } else {
                // Nothing waits (the track was written again from its fixes): its blocks_until stays.
                blocksUntil.append(Int64.min)
            }
            recordingIDs.append(recordingID.rawValue)
            figuresPointCounts.append(Int64(figuresPointCount))
            figuresUntil.append(lastFixTime)
            trackIDs.append(t.id.rawValue)
            startTimes.append(t.startTime ?? "")
            endTimes.append(t.endTime ?? "")
            sortKeys.append(t.sortKey)
            offsets.append(t.utcOffsetMinutes.map(Int64.init) ?? Int64.min)
            distances.append(t.distanceMeters)
            ascents.append(t.ascentMeters)
            descents.append(t.descentMeters)
            moving.append(t.movingSeconds)
            elapsed.append(t.elapsedSeconds)
            maxSpeeds.append(t.maxSpeedMetersPerSecond)
            averageSpeeds.append(t.averageSpeedMetersPerSecond)
            pointCounts.append(Int64(t.pointCount))
            segmentCountsOfTracks.append(Int64(t.segmentCount))
            minLatitudes.append(t.minLatitude ?? .nan)
            minLongitudes.append(t.minLongitude ?? .nan)
            maxLatitudes.append(t.maxLatitude ?? .nan)
            maxLongitudes.append(t.maxLongitude ?? .nan)
            previews.append(ByteBuffer(bytes: t.preview))
            stats.append(ByteBuffer(bytes: t.stats))
        }

        func run(_ connection: PostgresConnection, logger: Logger) async throws {
            guard !trackIDs.isEmpty else { return }
            try await connection.query(
                """
                WITH removed AS (DELETE FROM point_blocks WHERE id = ANY(\(removedBlocks)::bigint[])),
                merged AS (
                    UPDATE point_blocks SET point_count = m.c, data = m.d
                    FROM unnest(\(mergedIDs)::bigint[], \(mergedCounts)::bigint[], \(mergedData)::bytea[]) AS m (id, c, d)
                    WHERE point_blocks.id = m.id),
                added AS (
                    INSERT INTO point_blocks (segment_id, position, point_count, data)
                    SELECT s, p, c, d FROM unnest(\(addedSegments)::bigint[], \(addedPositions)::bigint[], \(addedCounts)::bigint[],
                                                   \(addedData)::bytea[]) AS a (s, p, c, d)),
                counted AS (
                    UPDATE segments SET point_count = point_count + n.c
                    FROM unnest(\(segmentIDs)::bigint[], \(segmentCounts)::bigint[]) AS n (id, c) WHERE segments.id = n.id),
                recorded AS (
                    UPDATE recordings SET blocks_until = coalesce(NULLIF(r.b, \(Int64.min)), recordings.blocks_until),
                                          figures_point_count = r.p, figures_until = r.u
                    FROM unnest(\(recordingIDs)::text[], \(blocksUntil)::bigint[], \(figuresPointCounts)::bigint[], \(figuresUntil)::bigint[])
                        AS r (id, b, p, u)
                    WHERE recordings.id = r.id)
                UPDATE tracks SET
                    start_time = NULLIF(f.st, ''), end_time = NULLIF(f.et, ''), sort_key = f.sk,
                    utc_offset_minutes = NULLIF(f.uo, \(Int64.min)), distance_meters = f.di,
                    ascent_meters = f.up, descent_meters = f.down, moving_seconds = f.mo, elapsed_seconds = f.el,
                    max_speed_meters_per_second = f.ms, average_speed_meters_per_second = f.av, point_count = f.pc, segment_count = f.sc,
                    min_latitude = NULLIF(f.a, 'NaN'), min_longitude = NULLIF(f.b, 'NaN'), max_latitude = NULLIF(f.c, 'NaN'),
                    max_longitude = NULLIF(f.d, 'NaN'), preview = f.pr, stats = f.stt
                FROM unnest(\(trackIDs)::text[], \(startTimes)::text[], \(endTimes)::text[], \(sortKeys)::bigint[], \(offsets)::bigint[],
                            \(distances)::float8[], \(ascents)::float8[], \(descents)::float8[], \(moving)::float8[], \(elapsed)::float8[],
                            \(maxSpeeds)::float8[], \(averageSpeeds)::float8[], \(pointCounts)::bigint[], \(segmentCountsOfTracks)::bigint[],
                            \(minLatitudes)::float8[], \(minLongitudes)::float8[], \(maxLatitudes)::float8[], \(maxLongitudes)::float8[],
                            \(previews)::bytea[], \(stats)::bytea[])
                    AS f (id, st, et, sk, uo, di, up, down, mo, el, ms, av, pc, sc, a, b, c, d, pr, stt)
                WHERE tracks.id = f.id
                """, logger: logger)
        }
    }

    public func finishIdleDeviceTracks(gapSeconds: Double, now: Date) async throws -> [TrackID] {
        let cutoff = Self.milliseconds(now) - DeviceIngestRules.gapMilliseconds(gapSeconds)
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT recordings.id, recordings.user_id FROM recordings JOIN devices ON devices.id = recordings.device_id
                WHERE recordings.state <> \(RecordingState.stopped.rawValue) AND (devices.last_seen_at IS NULL OR devices.last_seen_at < \(cutoff))
                ORDER BY recordings.id FOR UPDATE OF recordings SKIP LOCKED
                """, logger: logger)
            var candidates: [(String, String)] = []
            for try await row in rows.decode((String, String).self) { candidates.append(row) }
            var finished: [TrackID] = []
            for (id, user) in candidates {
                guard let recordingID = RecordingID(id), let userID = UserID(user),
                      let recording = try await Self.recording(connection, id: recordingID, userID: userID, logger: logger)
                else { continue }
                let last = try await Self.fixTimeBounds(connection, trackID: recording.trackID, logger: logger)?.1 ?? 0
                guard last < cutoff else { continue }
                try await Self.finishDeviceTrack(recording, connection, logger: logger)
                finished.append(recording.trackID)
            }
            return finished
        }
    }

    public func deviceFixes(userID: UserID, after sequence: Int64, limit: Int) async throws -> [StoredDeviceFix] {
        let limit = Int64(max(1, min(limit, 10_000)))
        return try await transaction(readOnly: true) { [logger] connection in
            try await Self.storedFixes(
                connection.query(
                    """
                    SELECT \(unescaped: Self.fixColumns) FROM device_fixes
                    WHERE user_id = \(userID.rawValue) AND id > \(sequence) ORDER BY id LIMIT \(limit)
                    """, logger: logger))
        }
    }

    public func deviceFixes(deviceID: DeviceID, userID: UserID, since: Date, limit: Int) async throws -> [StoredDeviceFix] {
        let limit = Int64(max(1, min(limit, 100_000)))
        return try await transaction(readOnly: true) { [logger] connection in
            try await Self.storedFixes(
                connection.query(
                    """
                    SELECT \(unescaped: Self.fixColumns) FROM device_fixes
                    WHERE device_id = \(deviceID.rawValue) AND user_id = \(userID.rawValue) AND time >= \(Self.milliseconds(since))
                    ORDER BY time LIMIT \(limit)
                    """, logger: logger))
        }
    }

    public func latestDeviceFixes(userID: UserID) async throws -> [StoredDeviceFix] {
        try await transaction(readOnly: true) { [logger] connection in
            // Each device's last fix, read backwards from the unique (device_id, time) index: one row a device.
            try await Self.storedFixes(
                connection.query(
                    """
                    SELECT \(unescaped: Self.fixColumns) FROM devices CROSS JOIN LATERAL (
                        SELECT * FROM device_fixes WHERE device_fixes.device_id = devices.id ORDER BY time DESC LIMIT 1
                    ) AS device_fixes
                    WHERE devices.user_id = \(userID.rawValue)
                    ORDER BY devices.created_at, devices.id
                    """, logger: logger))
        }
    }

    public func lastDeviceFixSequence(userID: UserID) async throws -> Int64 {
        try await transaction(readOnly: true) { [logger] connection in
            var sequence: Int64 = 0
            let rows = try await connection.query(
                "SELECT coalesce(max(id), 0) FROM device_fixes WHERE user_id = \(userID.rawValue)", logger: logger)
            for try await value in rows.decode(Int64.self) { sequence = value }
            return sequence
        }
    }

    // MARK: Live share links

    public func createLiveShare(token: String, deviceID: DeviceID, userID: UserID, expiresAt: Date, untilRideEnds: Bool) async throws
        -> LiveShare
    {
        guard ShareLink.isWellFormed(token: token) else {
            throw RideStoreError.invalid(field: "token", reason: "must be 16 to 128 characters of A-Z, a-z, 0-9, - and _")
        }
        return try await transaction { [logger] connection in
            guard let device = try await Self.device(connection, id: deviceID, userID: userID, logger: logger) else {
                throw RideStoreError.notFound(kind: "device", id: deviceID.rawValue)
            }
            var trackID: TrackID?
            if untilRideEnds {
                guard let live = try await Self.liveDeviceRecording(connection, deviceID: deviceID, logger: logger) else {
                    throw RideStoreError.conflict("the device has no ride in progress")
                }
                trackID = live.trackID
            }
            let now = Self.now()
            let rows = try await connection.query(
                """
                INSERT INTO share_links (token, user_id, target_kind, target_id, created_at, expires_at, track_id)
                VALUES (\(ShareLinkRules.storedToken(token)), \(userID.rawValue), 'device', \(deviceID.rawValue), \(Self.milliseconds(now)),
                        \(Self.milliseconds(expiresAt)), \(trackID?.rawValue))
                ON CONFLICT (token) DO NOTHING RETURNING token
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.conflict("the token is taken") }
            return LiveShare(
                token: token, userID: userID, deviceID: deviceID, deviceName: device.name, trackID: trackID, createdAt: now,
                expiresAt: StoreClock.rounded(expiresAt))
        }
    }

    public func liveShare(token: String, now: Date) async throws -> LiveShare? {
        guard ShareLink.isWellFormed(token: token) else { return nil }
        return try await transaction(readOnly: true) { [logger] connection in
            // The link's row with its device when that is still the owner's, and whether the ride it was made for is
            // still being recorded; whether it shows is ShareLinkRules'.
            let rows = try await connection.query(
                """
                SELECT share_links.user_id, share_links.target_id, share_links.track_id, share_links.created_at, share_links.expires_at,
                       devices.name, share_links.target_kind, share_links.revoked_at,
                       EXISTS (SELECT 1 FROM recordings WHERE recordings.track_id = share_links.track_id
                               AND recordings.state <> \(RecordingState.stopped.rawValue))
                FROM share_links LEFT JOIN devices ON devices.id = share_links.target_id AND devices.user_id = share_links.user_id
                WHERE share_links.token = \(ShareLinkRules.storedToken(token))
                """, logger: logger)
            var found: LiveShare?
            for try await (userID, deviceID, trackID, createdAt, expiresAt, name, targetKind, revokedAt, rideIsRecording) in rows.decode(
                (String, String, String?, Int64, Int64?, String?, String, Int64?, Bool).self)
            {
                let madeForRide: TrackID? = try trackID.map { try Self.shortID($0, column: "share_links.track_id") }
                guard ShareLinkRules.liveShareShows(
                    targetKind: targetKind, revokedAt: revokedAt.map(Self.date), expiresAt: expiresAt.map(Self.date), now: now,
                    deviceIsTheOwners: name != nil, madeForRide: madeForRide, rideIsRecording: rideIsRecording),
                    let name, let expiresAt
                else { continue }
                found = LiveShare(
                    token: token, userID: try Self.shortID(userID, column: "share_links.user_id"),
                    deviceID: try Self.shortID(deviceID, column: "share_links.target_id"), deviceName: name, trackID: madeForRide,
                    createdAt: Self.date(createdAt), expiresAt: Self.date(expiresAt))
            }
            return found
        }
    }

    public func revokeShareLink(token: String, userID: UserID) async throws -> Bool {
        guard ShareLink.isWellFormed(token: token) else { return false }
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                UPDATE share_links SET revoked_at = \(Self.milliseconds(Self.now()))
                WHERE token IN (\(ShareLinkRules.storedToken(token)), \(token)) AND user_id = \(userID.rawValue) AND revoked_at IS NULL RETURNING token
                """, logger: logger)
            return try await rows.collect().count > 0
        }
    }

    // MARK: Helpers

    static let fixColumns = """
        device_fixes.id, device_fixes.device_id, device_fixes.track_id, device_fixes.time, device_fixes.latitude, \
        device_fixes.longitude, device_fixes.elevation, device_fixes.speed, device_fixes.course, device_fixes.accuracy, \
        device_fixes.battery, device_fixes.received_at
        """

    static func storedFixes(_ rows: PostgresRowSequence) async throws -> [StoredDeviceFix] {
        var fixes: [StoredDeviceFix] = []
        for try await row in rows {
            let r = row.makeRandomAccess()
            let fix = TrackerFix(
                time: date(try r[3].decode(Int64.self)), latitude: try r[4].decode(Double.self), longitude: try r[5].decode(Double.self),
                elevationMeters: try r[6].decode(Double?.self), speedMetersPerSecond: try r[7].decode(Double?.self),
                courseDegrees: try r[8].decode(Double?.self), accuracyMeters: try r[9].decode(Double?.self),
                batteryPercent: try r[10].decode(Double?.self))
            fixes.append(
                StoredDeviceFix(
                    sequence: try r[0].decode(Int64.self), deviceID: try shortID(r[1].decode(String.self), column: "device_fixes.device_id"),
                    trackID: try r[2].decode(String?.self).map { try shortID($0, column: "device_fixes.track_id") }, fix: fix,
                    receivedAt: date(try r[11].decode(Int64.self))))
        }
        return fixes
    }

    /// The device's live track's recording (the newest not stopped), if any.
    static func liveDeviceRecording(_ connection: PostgresConnection, deviceID: DeviceID, logger: Logger) async throws -> Recording? {
        try await recordings(
            connection.query(
                """
                SELECT \(unescaped: recordingColumns) FROM recordings JOIN tracks ON tracks.id = recordings.track_id
                WHERE recordings.device_id = \(deviceID.rawValue) AND recordings.state <> \(RecordingState.stopped.rawValue)
                ORDER BY recordings.started_at DESC, recordings.id DESC LIMIT 1
                """, logger: logger)
        ).first
    }

    /// The first and last fix times (ms) in a device track, nil when it has none.
    static func fixTimeBounds(_ connection: PostgresConnection, trackID: TrackID, logger: Logger) async throws -> (Int64, Int64)? {
        let rows = try await connection.query(
            "SELECT min(time), max(time) FROM device_fixes WHERE track_id = \(trackID.rawValue)", logger: logger)
        var bounds: (Int64, Int64)?
        for try await (first, last) in rows.decode((Int64?, Int64?).self) {
            if let first, let last { bounds = (first, last) }
        }
        return bounds
    }

    /// A device's new live track: a recording with the device, its track's source `device`, named after the
    /// device and the first fix's day.
    static func startDeviceTrack(device: Device, at time: Date, now: Date, _ connection: PostgresConnection, logger: Logger) async throws
        -> Recording
    {
        let name = DeviceIngestRules.trackName(deviceName: device.name, at: time)
        let trackID = TrackID.random()
        let (record, content) = try TrackRules.recordingTrack(
            id: trackID, userID: device.userID, name: name, kind: .ride, source: .device, now: now)
        try await insertTrackRecord(record, connection, logger: logger)
        try await insertContent(content, trackID: trackID, connection, logger: logger)
        let id = RecordingID.random()
        try await connection.query(
            """
            INSERT INTO recordings (id, user_id, track_id, device_id, state, started_at, updated_at)
            VALUES (\(id.rawValue), \(device.userID.rawValue), \(trackID.rawValue), \(device.id.rawValue),
                    \(RecordingState.recording.rawValue), \(milliseconds(now)), \(milliseconds(now)))
            """, logger: logger)
        guard let recording = try await recording(connection, id: id, userID: device.userID, logger: logger) else {
            throw RideStoreError.database("the device's new recording is not found")
        }
        return recording
    }

    /// Writes a device track's points again from its fixes in time order (a fix arrived out of order).
    static func rebuildPoints(trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws {
        let segments = try await connection.query(
            "SELECT id FROM segments WHERE track_id = \(trackID.rawValue) AND role = 0 AND part = 0 ORDER BY position DESC LIMIT 1",
            logger: logger)
        var segmentID: Int64?
        for try await id in segments.decode(Int64.self) { segmentID = id }
        guard let segmentID else { throw RideStoreError.damaged("device track \(trackID) has no segment") }
        let fixes = try await storedFixes(
            connection.query(
                "SELECT \(unescaped: fixColumns) FROM device_fixes WHERE track_id = \(trackID.rawValue) ORDER BY time", logger: logger))
        let points = fixes.map { DeviceIngestRules.trackPoint($0.fix) }
        try await connection.query("DELETE FROM point_blocks WHERE segment_id = \(segmentID)", logger: logger)
        try await insertBlocks(PackedPoints(points[...]).packedBlocks, segmentID: segmentID, firstPosition: 0, connection, logger: logger)
        try await connection.query("UPDATE segments SET point_count = \(Int64(points.count)) WHERE id = \(segmentID)", logger: logger)
        try await connection.query(
            "UPDATE tracks SET point_count = \(Int64(points.count)), updated_at = \(milliseconds(now())) WHERE id = \(trackID.rawValue)",
            logger: logger)
        // Every fix is in the blocks now.
        if let last = fixes.last {
            try await connection.query(
                "UPDATE recordings SET blocks_until = \(last.fix.milliseconds) WHERE track_id = \(trackID.rawValue)", logger: logger)
        }
    }

    /// Stops a device's live track and saves it with its figures (as `stopRecording` does for a ride).
    static func finishDeviceTrack(_ recording: Recording, _ connection: PostgresConnection, logger: Logger) async throws {
        try await finishDeviceTrack(recordingID: recording.id, trackID: recording.trackID, connection, logger: logger)
    }

    static func finishDeviceTrack(recordingID: RecordingID, trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws {
        let now = now()
        try await connection.query(
            """
            UPDATE recordings SET state = \(RecordingState.stopped.rawValue), stopped_at = \(milliseconds(now)), updated_at = \(milliseconds(now))
            WHERE id = \(recordingID.rawValue)
            """, logger: logger)
        try await blockWaitingFixes(trackID: trackID, connection, logger: logger)
        try await repackPoints(trackID: trackID, connection, logger: logger)
        guard var track = try await trackRecord(connection, id: trackID, forUpdate: true, logger: logger) else { return }
        var content = try TrackFigures.emptyContent(of: track, readingHeaders: true)
        try await loadPoints(into: &content, trackID: track.id, connection, logger: logger)
        try TrackFigures.finish(&track, content: content, now: now)
        try await updateTrackRecord(track, connection, logger: logger)
        try await syncHeatmap(connection, trackIDs: [track.id], userID: track.userId, logger: logger)
    }
}

/// The user of an unexpired session.
struct SessionUser: PostgresPreparedStatement {
    static let sql = """
        SELECT users.id, users.name, users.password_hash, users.created_at
        FROM sessions JOIN users ON users.id = sessions.user_id
        WHERE sessions.token_hash = $1 AND sessions.expires_at > $2
        """
    typealias Row = User
    var tokenHash: String
    var now: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(tokenHash)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> User { try PostgresRideStore.user(row) }
}
