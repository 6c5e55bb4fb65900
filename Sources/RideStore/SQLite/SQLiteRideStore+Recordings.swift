import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    public func startRecording(_ request: NewRecording, userID: UserID) async throws -> Recording {
        try TrackRules.validate(name: request.name)
        if let clientID = request.clientID { try RecordingRules.validate(clientID: clientID) }
        return try await write { db in
            try Self.requireUser(db, userID)
            if let clientID = request.clientID, let existing = try Self.recordingRecord(db, clientID: clientID, userID: userID) {
                return try Self.recording(db, existing)
            }
            if let route = request.routeTrackID, try Self.optionalSummary(db, id: route, userID: userID) == nil {
                throw RideStoreError.notFound(kind: "track", id: route.rawValue)
            }
            if let device = request.deviceID,
                try DeviceRecord.filter(key: device).filter(DeviceRecord.Columns.userId == userID).fetchCount(db) == 0
            {
                throw RideStoreError.notFound(kind: "device", id: device.rawValue)
            }
            let now = StoreClock.now()
            let trackID: TrackID = try Self.freshID(db, table: "track")
            let (record, content) = try TrackRules.recordingTrack(
                id: trackID, userID: userID, name: request.name, kind: request.kind, source: request.source, now: now)
            try record.insert(db)
            try Self.insertContent(content, trackID: trackID, db)
            let recording = RecordingRecord(
                id: try Self.freshID(db, table: "recording"), userId: userID, trackId: trackID, deviceId: request.deviceID,
                state: .recording, routeTrackId: request.routeTrackID, lastClientSequence: nil,
                startedAt: RecordingRules.startedAt(requested: request.startedAt, now: now), updatedAt: now,
                options: RecordingOptionsRecord.encode(request.options), clientId: request.clientID)
            try recording.insert(db)
            return try Self.recording(db, recording)
        }
    }

    public func recording(id: RecordingID, userID: UserID) async throws -> Recording? {
        try await read { db in
            guard let record = try Self.recordingRecord(db, id: id, userID: userID) else { return nil }
            return try Self.recording(db, record)
        }
    }

    public func recording(clientID: String, userID: UserID) async throws -> Recording? {
        try await read { db in
            guard let record = try Self.recordingRecord(db, clientID: clientID, userID: userID) else { return nil }
            return try Self.recording(db, record)
        }
    }

    public func activeRecordings(userID: UserID) async throws -> [Recording] {
        try await read { db in
            try RecordingRecord.filter(RecordingRecord.Columns.userId == userID && RecordingRecord.Columns.state != RecordingState.stopped)
                .order(RecordingRecord.Columns.startedAt.desc).fetchAll(db).map { try Self.recording(db, $0) }
        }
    }

    public func appendFixes(
        _ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, userID: UserID, expecting: RecordingVersion?,
        limits: StorageLimits
    ) async throws -> FixAppendResult {
        try RecordingRules.validate(fixes)
        return try await write { db in
            guard let record = try Self.recordingRecord(db, id: recordingID, userID: userID) else {
                throw RideStoreError.notFound(kind: "recording", id: recordingID.rawValue)
            }
            guard record.state != .stopped else { throw RideStoreError.conflict("recording \(recordingID) is stopped") }
            // Its track's counts read once: the version is checked against them, the limits hold against them (one
            // writer at a time, SQLite's write lock), and the answer adds what this batch appends.
            let (pointCount, segmentCount) = try Self.trackCounts(db, trackID: record.trackId)
            var recording = Self.recording(record, pointCount: pointCount, segmentCount: segmentCount)
            if expecting != nil { try recording.version.require(expecting, recordingID: recordingID) }
            let (fresh, last) = RecordingRules.fresh(fixes, after: record.lastClientSequence, acknowledgedThrough: acknowledgedThrough)
            let points = fresh.map(\.point)
            if !points.isEmpty {
                try TrackRules.checkTrackPoints(stored: pointCount, adding: points.count, limit: limits.maximumTrackPoints)
                if limits.maximumUserPoints != nil {
                    let stored = try Int.fetchOne(
                        db, sql: "SELECT COALESCE(SUM(pointCount), 0) FROM track WHERE userId = ?", arguments: [userID]) ?? 0
                    try TrackRules.checkUserPoints(stored: stored, adding: points.count, limit: limits.maximumUserPoints)
                }
                try Self.appendPoints(points, trackID: record.trackId, db)
            }
            recording.lastClientSequence = last
            recording.updatedAt = StoreClock.now()
            recording.pointCount += points.count
            try DirectStatement(db, "UPDATE recording SET lastClientSequence = ?, updatedAt = ? WHERE id = ?")
                .execute(last, StoreClock.milliseconds(recording.updatedAt), record.id)
            return FixAppendResult(recording: recording, appended: points, replayedCount: fixes.count - points.count)
        }
    }

    public func pauseRecording(id: RecordingID, userID: UserID) async throws -> Recording {
        try await write { db in
            guard var record = try Self.recordingRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
            }
            guard record.state != .stopped else { throw RideStoreError.conflict("recording \(id) is stopped") }
            if record.state == .recording {
                record.state = .paused
                record.updatedAt = StoreClock.now()
                try record.update(db)
            }
            return try Self.recording(db, record)
        }
    }

    public func resumeRecording(id: RecordingID, userID: UserID) async throws -> Recording {
        try await write { db in
            guard var record = try Self.recordingRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
            }
            guard record.state != .stopped else { throw RideStoreError.conflict("recording \(id) is stopped") }
            if record.state == .paused {
                // Pause starts a new segment (DESIGN 2.1); an empty one left by a pause without fixes is reused.
                let last = try Row.fetchOne(
                    db, sql: "SELECT position, pointCount FROM segment WHERE trackId = ? AND role = 0 AND part = 0 ORDER BY position DESC LIMIT 1",
                    arguments: [record.trackId])
                let position: Int = last?[0] ?? -1
                let count: Int = last?[1] ?? 0
                if position < 0 || count > 0 {
                    try Self.insertPoints(PackedPoints(), trackID: record.trackId, role: .trackSegment, part: 0, position: position + 1, db)
                    try db.execute(sql: "UPDATE track SET segmentCount = segmentCount + 1 WHERE id = ?", arguments: [record.trackId])
                }
                record.state = .recording
                record.updatedAt = StoreClock.now()
                try record.update(db)
            }
            return try Self.recording(db, record)
        }
    }

    public func setRecordingRoute(id: RecordingID, routeTrackID: TrackID?, userID: UserID) async throws -> Recording {
        try await write { db in
            guard var record = try Self.recordingRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
            }
            guard record.state != .stopped else { throw RideStoreError.conflict("recording \(id) is stopped") }
            if let route = routeTrackID, try Self.optionalSummary(db, id: route, userID: userID) == nil {
                throw RideStoreError.notFound(kind: "track", id: route.rawValue)
            }
            if record.routeTrackId != routeTrackID {
                record.routeTrackId = routeTrackID
                record.updatedAt = StoreClock.now()
                try record.update(db)
            }
            return try Self.recording(db, record)
        }
    }

    public func stopRecording(id: RecordingID, userID: UserID, stats: TrackStats, expecting: RecordingVersion?) async throws -> TrackSummary {
        try await write { db in
            guard var record = try Self.recordingRecord(db, id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "recording", id: id.rawValue)
            }
            if record.state != .stopped {
                if expecting != nil { try Self.recording(db, record).version.require(expecting, recordingID: id) }
                let now = StoreClock.now()
                record.state = .stopped
                record.stoppedAt = now
                record.updatedAt = now
                try record.update(db)
                guard var track = try TrackRecord.fetchOne(db, key: record.trackId) else {
                    throw RideStoreError.notFound(kind: "track", id: record.trackId.rawValue)
                }
                try Self.repackPoints(trackID: track.id, db)
                var content = try TrackFigures.emptyContent(of: track, readingHeaders: true)
                try Self.loadPoints(into: &content, trackID: track.id, db)
                try TrackFigures.finish(&track, content: content, stats: stats, now: now)
                try track.update(db)
                try Self.syncHeatmap(db, trackIDs: [track.id], userID: userID)
            }
            return try Self.summary(db, id: record.trackId, userID: userID)
        }
    }

    // MARK: Helpers

    /// Read on every fix batch: a statement of the connection's cache (the query interface built and authorised
    /// its SQL again on every call, a tenth of a batch's time in a profile).
    static func recordingRecord(_ db: Database, id: RecordingID, userID: UserID) throws -> RecordingRecord? {
        try RecordingRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM recording WHERE id = ? AND userId = ?"), arguments: [id, userID])
    }

    static func recordingRecord(_ db: Database, clientID: String, userID: UserID) throws -> RecordingRecord? {
        try RecordingRecord.filter(RecordingRecord.Columns.userId == userID && RecordingRecord.Columns.clientId == clientID).fetchOne(db)
    }

    static func recording(_ db: Database, _ record: RecordingRecord) throws -> Recording {
        let (pointCount, segmentCount) = try trackCounts(db, trackID: record.trackId)
        return recording(record, pointCount: pointCount, segmentCount: segmentCount)
    }

    static func recording(_ record: RecordingRecord, pointCount: Int, segmentCount: Int) -> Recording {
        Recording(
            id: record.id, userID: record.userId, trackID: record.trackId, deviceID: record.deviceId, state: record.state,
            routeTrackID: record.routeTrackId, lastClientSequence: record.lastClientSequence, startedAt: record.startedAt,
            updatedAt: record.updatedAt, stoppedAt: record.stoppedAt, pointCount: pointCount, segmentCount: segmentCount,
            options: RecordingOptionsRecord.decode(record.options), clientID: record.clientId)
    }

    /// A recording's track's point and segment counts (what its version is made of, with the record's own columns).
    static func trackCounts(_ db: Database, trackID: TrackID) throws -> (points: Int, segments: Int) {
        try DirectStatement(db, "SELECT pointCount, segmentCount FROM track WHERE id = ?").fetchOne(trackID) { ($0.int(0), $0.int(1)) } ?? (0, 0)
    }

    /// Appends points to the last segment of the track's first `trk`.
    ///
    /// A post of a few fixes must not cost the re-encoding of a whole block (up to 1,024 points, as it did:
    /// a phone posting every second rewrote ~500 points a post). The tail of a growing segment is kept as a
    /// binary counter of blocks: the new points become a block of their own, which is merged with the block
    /// before it while that one is no bigger and the two fit in one block. Each point is then re-encoded
    /// about log₂(1,024) = 10 times in all, the tail holds a handful of short blocks, and a block that stays
    /// short for good holds more than half a block's points. Readers see blocks in position order, whatever
    /// their sizes; a finished track is packed into full blocks again (`repackPoints`).
    ///
    /// `countingTrack: false` leaves the track's point count alone (a device track counts its fixes as they come).
    static func appendPoints(_ points: [TrackPoint], trackID: TrackID, countingTrack: Bool = true, _ db: Database) throws {
        guard !points.isEmpty else { return }
        guard let segmentID = try DirectStatement(
            db, "SELECT id FROM segment WHERE trackId = ? AND role = 0 AND part = 0 ORDER BY position DESC LIMIT 1"
        ).fetchOne(trackID, decode: { $0.int64(0) })
        else { throw RideStoreError.damaged("recording track \(trackID) has no segment") }
        // The tail's blocks, newest first: sizes only, so that nothing is decoded that is not merged.
        let tail = try DirectStatement(
            db, "SELECT id, position, pointCount FROM pointBlock WHERE segmentId = ? ORDER BY position DESC LIMIT \(PointTail.tailBlocksRead)"
        ).fetchAll(segmentID) { PointTail.Block(id: $0.int64(0), position: $0.int(1), count: $0.int(2)) }
        let select = try DirectStatement(db, "SELECT pointCount, data FROM pointBlock WHERE id = ?")
        switch try PointTail.append(points, tailNewestFirst: tail, points: { block in
            guard let stored = try select.fetchOne(block.id, decode: { PointBlock(pointCount: $0.int(0), data: $0.data(1)) }) else {
                throw RideStoreError.damaged("point block \(block.id) vanished")
            }
            return try stored.points()
        }) {
        case .insert(let blocks, let firstPosition):
            try insertBlocks(blocks, segmentID: segmentID, firstPosition: firstPosition, db)
        case .merge(let id, let block, let removed):
            try DirectStatement(db, "UPDATE pointBlock SET pointCount = ?, data = ? WHERE id = ?").execute(block.pointCount, block.data, id)
            let delete = try DirectStatement(db, "DELETE FROM pointBlock WHERE id = ?")
            for id in removed { try delete.execute(id) }
        }
        try countAppended(points.count, segmentID: segmentID, trackID: countingTrack ? trackID : nil, db)
    }

    /// Packs a segment's points into full blocks again (a finished recording: its tail was a binary counter).
    static func repackPoints(trackID: TrackID, _ db: Database) throws {
        try blockPendingFixes(trackID: trackID, db)
        let segments = try Int64.fetchAll(db, sql: "SELECT id FROM segment WHERE trackId = ?", arguments: [trackID])
        for segmentID in segments {
            let rows = try Row.fetchAll(db, sql: "SELECT pointCount, data FROM pointBlock WHERE segmentId = ? ORDER BY position", arguments: [segmentID])
            guard PointTail.needsRepacking(rows.map { $0[0] as Int }) else { continue }
            var points: [TrackPoint] = []
            for row in rows { points += try PointBlock(pointCount: row[0], data: row[1]).points() }
            try db.execute(sql: "DELETE FROM pointBlock WHERE segmentId = ?", arguments: [segmentID])
            try insertBlocks(PackedPoints(points[...]).packedBlocks, segmentID: segmentID, firstPosition: 0, db)
        }
    }

    private static func countAppended(_ count: Int, segmentID: Int64, trackID: TrackID?, _ db: Database) throws {
        try DirectStatement(db, "UPDATE segment SET pointCount = pointCount + ? WHERE id = ?").execute(count, segmentID)
        guard let trackID else { return }
        try DirectStatement(db, "UPDATE track SET pointCount = pointCount + ?, updatedAt = ? WHERE id = ?")
            .execute(count, StoreClock.milliseconds(StoreClock.now()), trackID)
    }
}

extension SQLiteRideStore {
    public func addLapMark(recordingID: RecordingID, timeMilliseconds: Int64, userID: UserID) async throws -> [Int64] {
        try await write { db in
            guard let record = try Self.recordingRecord(db, id: recordingID, userID: userID) else {
                throw RideStoreError.notFound(kind: "recording", id: recordingID.rawValue)
            }
            let stored = try String?.fetchOne(db, sql: "SELECT lapMarks FROM track WHERE id = ?", arguments: [record.trackId]) ?? nil
            let (text, marks) = try LapRules.adding(timeMilliseconds, to: stored)
            try db.execute(sql: "UPDATE track SET lapMarks = ? WHERE id = ?", arguments: [text, record.trackId])
            return marks
        }
    }

    public func setLapMarks(_ marks: [Int64], trackID: TrackID, userID: UserID) async throws {
        let text = try LapRules.checked(marks)
        try await write { db in
            try db.execute(sql: "UPDATE track SET lapMarks = ? WHERE id = ? AND userId = ?", arguments: [text, trackID, userID])
            guard db.changesCount > 0 else { throw RideStoreError.notFound(kind: "track", id: trackID.rawValue) }
        }
    }

    public func lapMarks(trackID: TrackID, userID: UserID) async throws -> [Int64] {
        try await read { db in
            LapRules.decode(try String?.fetchOne(db, sql: "SELECT lapMarks FROM track WHERE id = ? AND userId = ?", arguments: [trackID, userID]) ?? nil)
        }
    }
}
