import Foundation
import PostgresNIO
import RideKit
import RideStore

/// A start whose client id another transaction took first (two instances given the same start at once): this
/// one is rolled back and the other's recording returned.
struct ClientIDTaken: Error {}

extension PostgresRideStore {
    public func startRecording(_ request: NewRecording, userID: UserID) async throws -> Recording {
        try TrackRules.validate(name: request.name)
        if let clientID = request.clientID { try RecordingRules.validate(clientID: clientID) }
        do {
            return try await transaction { [logger] connection in
                try await Self.requireUser(connection, userID, logger: logger)
                if let clientID = request.clientID,
                    let existing = try await Self.recording(connection, clientID: clientID, userID: userID, logger: logger)
                {
                    return existing
                }
                if let route = request.routeTrackID, try await Self.optionalSummary(connection, id: route, userID: userID, logger: logger) == nil {
                    throw RideStoreError.notFound(kind: "track", id: route.rawValue)
                }
                if let device = request.deviceID {
                    let rows = try await connection.query(
                        "SELECT 1 FROM devices WHERE id = \(device.rawValue) AND user_id = \(userID.rawValue)", logger: logger)
                    guard try await rows.collect().count == 1 else { throw RideStoreError.notFound(kind: "device", id: device.rawValue) }
                }
                let now = Self.now()
                let trackID = TrackID.random()
                let (record, content) = try TrackRules.recordingTrack(
                    id: trackID, userID: userID, name: request.name, kind: request.kind, source: request.source, now: now)
                try await Self.insertTrackRecord(record, connection, logger: logger)
                try await Self.insertContent(content, trackID: trackID, connection, logger: logger)
                let id = RecordingID.random()
                // The unique index on (user_id, client_id) decides between two starts with one client id: the
                // second waits for the first to commit, then inserts nothing.
                let inserted = try await connection.query(
                    """
                    INSERT INTO recordings (id, user_id, track_id, device_id, state, route_track_id, started_at, updated_at, options, client_id)
                    VALUES (\(id.rawValue), \(userID.rawValue), \(trackID.rawValue), \(request.deviceID?.rawValue),
                            \(RecordingState.recording.rawValue), \(request.routeTrackID?.rawValue),
                            \(Self.milliseconds(RecordingRules.startedAt(requested: request.startedAt, now: now))), \(Self.milliseconds(now)),
                            \(RecordingOptionsRecord.encode(request.options)), \(request.clientID))
                    ON CONFLICT (user_id, client_id) WHERE client_id IS NOT NULL DO NOTHING RETURNING id
                    """, logger: logger)
                guard try await inserted.collect().count == 1 else { throw ClientIDTaken() }
                guard let recording = try await Self.recording(connection, id: id, userID: userID, logger: logger) else {
                    throw RideStoreError.database("the recording just made is not found")
                }
                return recording
            }
        } catch is ClientIDTaken {
            guard let clientID = request.clientID, let existing = try await recording(clientID: clientID, userID: userID) else {
                throw RideStoreError.conflict("the recording's client id is taken")
            }
            return existing
        }
    }

    public func recording(id: RecordingID, userID: UserID) async throws -> Recording? {
        try await transaction(readOnly: true) { [logger] connection in try await Self.recording(connection, id: id, userID: userID, logger: logger) }
    }

    public func recording(clientID: String, userID: UserID) async throws -> Recording? {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.recording(connection, clientID: clientID, userID: userID, logger: logger)
        }
    }

    public func activeRecordings(userID: UserID) async throws -> [Recording] {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.recordings(
                connection.query(
                    """
                    SELECT \(unescaped: Self.recordingColumns) FROM recordings JOIN tracks ON tracks.id = recordings.track_id
                    WHERE recordings.user_id = \(userID.rawValue) AND recordings.state <> \(RecordingState.stopped.rawValue)
                    ORDER BY recordings.started_at DESC, recordings.id DESC
                    """, logger: logger))
        }
    }

    public func appendFixes(
        _ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, userID: UserID, expecting: RecordingVersion?,
        limits: StorageLimits
    ) async throws -> FixAppendResult {
        try RecordingRules.validate(fixes)
        return try await transaction { [logger] connection in
            // The row lock orders two batches of one recording (two instances, a retry racing its original): the
            // second reads the sequence number the first stored, so each fix is stored once.
            let locked = try await connection.execute(LockRecording(id: recordingID.rawValue, userID: userID.rawValue), logger: logger)
            guard var recording = try await locked.first(where: { _ in true }) else {
                throw RideStoreError.notFound(kind: "recording", id: recordingID.rawValue)
            }
            guard recording.state != .stopped else { throw RideStoreError.conflict("recording \(recordingID) is stopped") }
            try recording.version.require(expecting, recordingID: recordingID)
            let (fresh, last) = RecordingRules.fresh(fixes, after: recording.lastClientSequence, acknowledgedThrough: acknowledgedThrough)
            let points = fresh.map(\.point)
            let now = Self.milliseconds(Self.now())
            if !points.isEmpty {
                // The recording's row is locked, so its track's count is current.
                try TrackRules.checkTrackPoints(stored: recording.pointCount, adding: points.count, limit: limits.maximumTrackPoints)
                if limits.maximumUserPoints != nil {
                    try await Self.checkUserPoints(adding: points.count, userID: userID, limit: limits.maximumUserPoints, connection, logger: logger)
                }
                let segmentID = try await Self.appendToLastSegment(points, trackID: recording.trackID, connection, logger: logger)
                // The recording's row is locked: nobody else changes its track's counts meanwhile.
                _ = try await connection.execute(
                    CountAppendedPoints(
                        count: Int64(points.count), segmentID: segmentID, trackID: recording.trackID.rawValue,
                        recordingID: recordingID.rawValue, lastSequence: last, now: now),
                    logger: logger)
                recording.pointCount += points.count
            } else {
                _ = try await connection.execute(
                    AcknowledgeSequence(recordingID: recordingID.rawValue, lastSequence: last, now: now), logger: logger)
            }
            recording.lastClientSequence = last
            recording.updatedAt = Self.date(now)
            return FixAppendResult(recording: recording, appended: points, replayedCount: fixes.count - points.count)
        }
    }

    public func pauseRecording(id: RecordingID, userID: UserID) async throws -> Recording {
        try await transaction { [logger] connection in
            let recording = try await Self.liveRecording(connection, id: id, userID: userID, logger: logger)
            if recording.state == .recording {
                try await Self.setState(.paused, id: id, connection, logger: logger)
            }
            return try await Self.requireRecording(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func resumeRecording(id: RecordingID, userID: UserID) async throws -> Recording {
        try await transaction { [logger] connection in
            let recording = try await Self.liveRecording(connection, id: id, userID: userID, logger: logger)
            if recording.state == .paused {
                // Pause starts a new segment (DESIGN 2.1); an empty one left by a pause without fixes is reused.
                let rows = try await connection.query(
                    """
                    SELECT position, point_count FROM segments WHERE track_id = \(recording.trackID.rawValue) AND role = 0 AND part = 0
                    ORDER BY position DESC LIMIT 1
                    """, logger: logger)
                var position: Int64 = -1
                var count: Int64 = 0
                for try await (p, c) in rows.decode((Int64, Int64).self) { (position, count) = (p, c) }
                if position < 0 || count > 0 {
                    try await Self.insertPoints(
                        PackedPoints(), trackID: recording.trackID, role: .trackSegment, part: 0, position: Int(position + 1), connection,
                        logger: logger)
                    try await connection.query(
                        "UPDATE tracks SET segment_count = segment_count + 1 WHERE id = \(recording.trackID.rawValue)", logger: logger)
                }
                try await Self.setState(.recording, id: id, connection, logger: logger)
            }
            return try await Self.requireRecording(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func setRecordingRoute(id: RecordingID, routeTrackID: TrackID?, userID: UserID) async throws -> Recording {
        try await transaction { [logger] connection in
            let recording = try await Self.liveRecording(connection, id: id, userID: userID, logger: logger)
            if let route = routeTrackID, try await Self.optionalSummary(connection, id: route, userID: userID, logger: logger) == nil {
                throw RideStoreError.notFound(kind: "track", id: route.rawValue)
            }
            if recording.routeTrackID != routeTrackID {
                try await connection.query(
                    """
                    UPDATE recordings SET route_track_id = \(routeTrackID?.rawValue), updated_at = \(Self.milliseconds(Self.now()))
                    WHERE id = \(id.rawValue)
                    """, logger: logger)
            }
            return try await Self.requireRecording(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func stopRecording(id: RecordingID, userID: UserID, stats: TrackStats, expecting: RecordingVersion?) async throws -> TrackSummary {
        try await transaction { [logger] connection in
            guard let recording = try await Self.recording(connection, id: id, userID: userID, forUpdate: true, logger: logger) else {
                throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
            }
            if recording.state != .stopped {
                try recording.version.require(expecting, recordingID: id)
                let now = Self.now()
                try await connection.query(
                    """
                    UPDATE recordings SET state = \(RecordingState.stopped.rawValue), stopped_at = \(Self.milliseconds(now)),
                        updated_at = \(Self.milliseconds(now))
                    WHERE id = \(id.rawValue)
                    """, logger: logger)
                guard var track = try await Self.trackRecord(connection, id: recording.trackID, forUpdate: true, logger: logger) else {
                    throw RideStoreError.notFound(kind: "track", id: recording.trackID.rawValue)
                }
                try await Self.repackPoints(trackID: track.id, connection, logger: logger)
                var content = try TrackFigures.emptyContent(of: track, readingHeaders: true)
                try await Self.loadPoints(into: &content, trackID: track.id, connection, logger: logger)
                try TrackFigures.finish(&track, content: content, stats: stats, now: now)
                try await Self.updateTrackRecord(track, connection, logger: logger)
                try await Self.syncHeatmap(connection, trackIDs: [track.id], userID: userID, logger: logger)
            }
            return try await Self.summary(connection, id: recording.trackID, userID: userID, logger: logger)
        }
    }

    // MARK: Helpers

    /// The recording's columns and its track's counts.
    static let recordingColumns = """
        recordings.id, recordings.user_id, recordings.track_id, recordings.device_id, recordings.state, recordings.route_track_id, \
        recordings.last_client_sequence, recordings.started_at, recordings.updated_at, recordings.stopped_at, \
        tracks.point_count, tracks.segment_count, recordings.options, recordings.client_id
        """

    static func recordings(_ rows: PostgresRowSequence) async throws -> [Recording] {
        var result: [Recording] = []
        for try await row in rows { result.append(try recording(row)) }
        return result
    }

    /// A row of `recordingColumns`.
    static func recording(_ row: PostgresRow) throws -> Recording {
            let r = row.makeRandomAccess()
            return Recording(
                    id: try shortID(r[0].decode(String.self), column: "recordings.id"),
                    userID: try shortID(r[1].decode(String.self), column: "recordings.user_id"),
                    trackID: try shortID(r[2].decode(String.self), column: "recordings.track_id"),
                    deviceID: try r[3].decode(String?.self).map { try shortID($0, column: "recordings.device_id") },
                    state: try enumValue(RecordingState.self, r[4].decode(String.self), column: "recordings.state"),
                    routeTrackID: try r[5].decode(String?.self).map { try shortID($0, column: "recordings.route_track_id") },
                    lastClientSequence: try r[6].decode(Int64?.self), startedAt: date(try r[7].decode(Int64.self)),
                    updatedAt: date(try r[8].decode(Int64.self)), stoppedAt: try r[9].decode(Int64?.self).map(date),
                    pointCount: Int(try r[10].decode(Int64.self)), segmentCount: Int(try r[11].decode(Int64.self)),
                    options: RecordingOptionsRecord.decode(try r[12].decode(String?.self)), clientID: try r[13].decode(String?.self))
    }

    static func recording(
        _ connection: PostgresConnection, id: RecordingID, userID: UserID, forUpdate: Bool = false, logger: Logger
    ) async throws -> Recording? {
        try await recordings(
            connection.query(
                """
                SELECT \(unescaped: recordingColumns) FROM recordings JOIN tracks ON tracks.id = recordings.track_id
                WHERE recordings.id = \(id.rawValue) AND recordings.user_id = \(userID.rawValue)
                \(unescaped: forUpdate ? "FOR UPDATE OF recordings" : "")
                """, logger: logger)
        ).first
    }

    static func recording(_ connection: PostgresConnection, clientID: String, userID: UserID, logger: Logger) async throws -> Recording? {
        try await recordings(
            connection.query(
                """
                SELECT \(unescaped: recordingColumns) FROM recordings JOIN tracks ON tracks.id = recordings.track_id
                WHERE recordings.client_id = \(clientID) AND recordings.user_id = \(userID.rawValue)
                """, logger: logger)
        ).first
    }

    static func requireRecording(_ connection: PostgresConnection, id: RecordingID, userID: UserID, logger: Logger) async throws -> Recording {
        guard let recording = try await recording(connection, id: id, userID: userID, logger: logger) else {
            throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
        }
        return recording
    }

    /// The recording, locked for this transaction; not found or stopped is an error.
    static func liveRecording(_ connection: PostgresConnection, id: RecordingID, userID: UserID, logger: Logger) async throws -> Recording {
        guard let recording = try await recording(connection, id: id, userID: userID, forUpdate: true, logger: logger) else {
            throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
        }
        guard recording.state != .stopped else { throw RideStoreError.conflict("recording \(id) is stopped") }
        return recording
    }

    static func setState(_ state: RecordingState, id: RecordingID, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "UPDATE recordings SET state = \(state.rawValue), updated_at = \(milliseconds(now())) WHERE id = \(id.rawValue)", logger: logger)
    }

    /// Appends points to the last segment of the track's first `trk`, and counts them in the segment and the track.
    static func appendPoints(_ points: [TrackPoint], trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws {
        let segmentID = try await appendToLastSegment(points, trackID: trackID, connection, logger: logger)
        _ = try await connection.execute(
            CountPoints(count: Int64(points.count), segmentID: segmentID, trackID: trackID.rawValue, now: milliseconds(now())), logger: logger)
    }

    /// Appends points to the last segment of the track's first `trk` and returns that segment's id. The tail of the
    /// segment is a binary counter of blocks (`PointTail`, as on SQLite): the new points become a block of their own,
    /// merged with the newest blocks no bigger than the run so far while it fits in a block, so a batch of a few
    /// fixes re-encodes a few points, not the whole last block. The caller adds the count to the segment's and the
    /// track's; a finished track is packed into full blocks again (`repackPoints`).
    static func appendToLastSegment(_ points: [TrackPoint], trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        var segmentID: Int64?
        var tail: [TailBlocks.Block] = []
        for try await row in try await connection.execute(TailBlocks(trackID: trackID.rawValue), logger: logger) {
            segmentID = row.segmentID
            if let block = row.block { tail.append(block) }
        }
        guard let segmentID else { throw RideStoreError.damaged("recording track \(trackID) has no segment") }
        guard !points.isEmpty else { return segmentID }
        try await writeAppend(
            PointTail.append(points, tailNewestFirst: tail.map(\.tailBlock), points: { try TailBlocks.points(of: $0, in: tail, trackID: trackID) }),
            segmentID: segmentID, connection, logger: logger)
        return segmentID
    }

    /// Writes what appending to a segment's tail decided (`PointTail.append`).
    static func writeAppend(_ append: PointTail.Append, segmentID: Int64, _ connection: PostgresConnection, logger: Logger) async throws {
        switch append {
        case .insert(let blocks, let firstPosition):
            try await insertBlocks(blocks, segmentID: segmentID, firstPosition: firstPosition, connection, logger: logger)
        case .merge(let id, let block, let removed):
            _ = try await connection.execute(
                MergeBlocks(id: id, count: Int64(block.pointCount), data: ByteBuffer(bytes: block.data), removed: removed), logger: logger)
        }
    }

    /// Packs a finished track's segments into full blocks again where their tails were binary counters
    /// (`PointTail.needsRepacking`).
    static func repackPoints(trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query(
            """
            SELECT segments.id, array_agg(point_blocks.point_count ORDER BY point_blocks.position)
            FROM segments JOIN point_blocks ON point_blocks.segment_id = segments.id
            WHERE segments.track_id = \(trackID.rawValue) GROUP BY segments.id ORDER BY segments.id
            """, logger: logger)
        var due: [Int64] = []
        for try await (segmentID, counts) in rows.decode((Int64, [Int64]).self)
        where PointTail.needsRepacking(counts.map { Int(clamping: $0) }) {
            due.append(segmentID)
        }
        for segmentID in due {
            var points: [TrackPoint] = []
            let blocks = try await connection.query(
                "SELECT point_count, data FROM point_blocks WHERE segment_id = \(segmentID) ORDER BY position", logger: logger)
            for try await (count, data) in blocks.decode((Int64, Data).self) {
                guard count >= 0 else { throw RideStoreError.damaged("a point block of track \(trackID) claims \(count) points") }
                points += try PointBlock(pointCount: Int(count), data: data).points()
            }
            try await connection.query("DELETE FROM point_blocks WHERE segment_id = \(segmentID)", logger: logger)
            try await insertBlocks(PackedPoints(points[...]).packedBlocks, segmentID: segmentID, firstPosition: 0, connection, logger: logger)
        }
    }
}

// The statements of a recording's fix batch, the hot path of a ride (one batch every few seconds from every rider):
// prepared once per connection (postgres-nio keeps them by name), so each batch sends only their values.

/// The recording, its row locked for the transaction; `recordingColumns`.
struct LockRecording: PostgresPreparedStatement {
    static let sql = """
        SELECT \(PostgresRideStore.recordingColumns) FROM recordings JOIN tracks ON tracks.id = recordings.track_id
        WHERE recordings.id = $1 AND recordings.user_id = $2 FOR UPDATE OF recordings
        """
    typealias Row = Recording
    var id: String
    var userID: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(id)
        bindings.append(userID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Recording { try PostgresRideStore.recording(row) }
}

/// The last segment of a recording's track and its newest blocks (`PointTail.tailBlocksRead`), newest first, in one
/// round trip: a row with no block for a segment without any. A block's data comes only while the blocks up to it hold
/// a block's worth of points at most: no merge can take more (`PointTail.blocksToMerge`), so a tail of full blocks
/// is not read.
struct TailBlocks: PostgresPreparedStatement {
    static let sql = """
        SELECT s.id, b.id, b.position, b.point_count, CASE WHEN b.reach <= \(PackedPoints.blockCapacity) THEN b.data END
        FROM (SELECT id FROM segments WHERE track_id = $1 AND role = 0 AND part = 0 ORDER BY position DESC LIMIT 1) AS s
        LEFT JOIN LATERAL (
            SELECT id, position, point_count, data, sum(point_count) OVER (ORDER BY position DESC) AS reach
            FROM point_blocks WHERE segment_id = s.id ORDER BY position DESC LIMIT \(PointTail.tailBlocksRead)
        ) AS b ON true
        ORDER BY b.position DESC
        """
    struct Block {
        var id: Int64
        var position: Int64
        var count: Int64
        var data: Data?

        var tailBlock: PointTail.Block { PointTail.Block(id: id, position: Int(clamping: position), count: Int(clamping: count)) }
    }

    /// The points of a tail block that is merged (its data was read: a merge takes no more than a block's worth).
    static func points(of block: PointTail.Block, in tail: [Block], trackID: TrackID) throws -> [TrackPoint] {
        guard let stored = tail.first(where: { $0.id == block.id }), stored.count >= 0, let data = stored.data else {
            throw RideStoreError.damaged("point block \(block.id) of track \(trackID) claims \(block.count) points")
        }
        return try PointBlock(pointCount: Int(stored.count), data: data).points()
    }
    struct Row {
        var segmentID: Int64
        var block: Block?
    }
    var trackID: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(trackID)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let (segmentID, blockID, position, count, data) = try row.decode((Int64, Int64?, Int64?, Int64?, Data?).self)
        guard let blockID, let position, let count else { return Row(segmentID: segmentID, block: nil) }
        return Row(segmentID: segmentID, block: Block(id: blockID, position: position, count: count, data: data))
    }
}

/// Merged blocks: the run in the oldest one's row, the others removed.
struct MergeBlocks: PostgresPreparedStatement {
    static let sql = """
        WITH removed AS (DELETE FROM point_blocks WHERE id = ANY($4))
        UPDATE point_blocks SET point_count = $2, data = $3 WHERE id = $1
        """
    typealias Row = Void
    var id: Int64
    var count: Int64
    var data: ByteBuffer
    var removed: [Int64]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(id)
        bindings.append(count)
        bindings.append(data)
        bindings.append(removed)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// The appended points counted in the segment and the track, and the last sequence number kept, in one statement.
struct CountAppendedPoints: PostgresPreparedStatement {
    static let sql = """
        WITH segment AS (UPDATE segments SET point_count = point_count + $1 WHERE id = $2),
             track AS (UPDATE tracks SET point_count = point_count + $1, updated_at = $6 WHERE id = $3)
        UPDATE recordings SET last_client_sequence = $5, updated_at = $6 WHERE id = $4
        """
    typealias Row = Void
    var count: Int64
    var segmentID: Int64
    var trackID: String
    var recordingID: String
    var lastSequence: Int64?
    var now: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 6)
        bindings.append(count)
        bindings.append(segmentID)
        bindings.append(trackID)
        bindings.append(recordingID)
        bindings.append(lastSequence)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// Appended points counted in the segment and the track.
struct CountPoints: PostgresPreparedStatement {
    static let sql = """
        WITH segment AS (UPDATE segments SET point_count = point_count + $1 WHERE id = $2)
        UPDATE tracks SET point_count = point_count + $1, updated_at = $4 WHERE id = $3
        """
    typealias Row = Void
    var count: Int64
    var segmentID: Int64
    var trackID: String
    var now: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(count)
        bindings.append(segmentID)
        bindings.append(trackID)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

/// A batch with nothing new (a replay, or fixes sent while paused): only the last sequence number kept moves.
struct AcknowledgeSequence: PostgresPreparedStatement {
    static let sql = "UPDATE recordings SET last_client_sequence = $2, updated_at = $3 WHERE id = $1"
    typealias Row = Void
    var recordingID: String
    var lastSequence: Int64?
    var now: Int64

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(recordingID)
        bindings.append(lastSequence)
        bindings.append(now)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws {}
}

extension PostgresRideStore {
    public func addLapMark(recordingID: RecordingID, timeMilliseconds: Int64, userID: UserID) async throws -> [Int64] {
        try await transaction { [logger] connection in
            // The track's row locked: two marks at once each see the other's.
            let rows = try await connection.query(
                """
                SELECT tracks.id, tracks.lap_marks FROM recordings JOIN tracks ON tracks.id = recordings.track_id
                WHERE recordings.id = \(recordingID.rawValue) AND recordings.user_id = \(userID.rawValue) FOR UPDATE OF tracks
                """, logger: logger)
            var found: (String, String?)?
            for try await row in rows.decode((String, String?).self) { found = row }
            guard let (trackID, stored) = found else { throw RideStoreError.notFound(kind: "recording", id: recordingID.rawValue) }
            let (text, marks) = try LapRules.adding(timeMilliseconds, to: stored)
            try await connection.query("UPDATE tracks SET lap_marks = \(text) WHERE id = \(trackID)", logger: logger)
            return marks
        }
    }

    public func setLapMarks(_ marks: [Int64], trackID: TrackID, userID: UserID) async throws {
        let text = try LapRules.checked(marks)
        try await transaction { [logger] connection in
            let rows = try await connection.query(
                "UPDATE tracks SET lap_marks = \(text) WHERE id = \(trackID.rawValue) AND user_id = \(userID.rawValue) RETURNING id", logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.notFound(kind: "track", id: trackID.rawValue) }
        }
    }

    public func lapMarks(trackID: TrackID, userID: UserID) async throws -> [Int64] {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                "SELECT lap_marks FROM tracks WHERE id = \(trackID.rawValue) AND user_id = \(userID.rawValue)", logger: logger)
            var stored: String?
            for try await text in rows.decode(String?.self) { stored = text }
            return LapRules.decode(stored)
        }
    }
}
