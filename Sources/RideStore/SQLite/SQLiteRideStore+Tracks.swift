import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    public func saveImport(_ batch: TrackImport, userID: UserID) async throws -> TrackImportResult {
        try TrackRules.validate(batch)
        return try await write { db in
            try Self.requireUser(db, userID)
            if batch.replacing == nil, !batch.allowsDuplicate {
                let existing = try Self.importedTracks(db, contentHash: batch.source.contentHash, userID: userID)
                if !existing.isEmpty { return .duplicate(of: existing) }
            }
            if batch.maximumUserPoints != nil {
                // One writer at a time (SQLite's write lock): what is read here is what the limit is held against.
                let stored = try Int.fetchOne(
                    db, sql: "SELECT COALESCE(SUM(pointCount), 0) FROM track WHERE userId = ? AND id IS NOT ?",
                    arguments: [userID, batch.replacing]) ?? 0
                try TrackRules.checkUserPoints(stored: stored, adding: batch.pointCount, limit: batch.maximumUserPoints)
            }
            let now = StoreClock.now()
            let importRecord = ImportRecord(
                id: try Self.freshID(db, table: "trackImport"), userId: userID, contentHash: batch.source.contentHash,
                fileName: TrackRules.importFileName(batch.source.fileName), format: batch.source.format.rawValue, byteCount: batch.source.byteCount,
                importedAt: now)
            try importRecord.insert(db)
            if let original = OriginalFileRules.bytes(of: batch) {
                try db.execute(sql: "INSERT INTO importOriginal (importId, bytes) VALUES (?, ?)", arguments: [importRecord.id, original])
            }

            var summaries: [TrackSummary] = []
            if let replacing = batch.replacing {
                guard var record = try TrackRecord.filter(key: replacing).filter(TrackRecord.Columns.userId == userID).fetchOne(db) else {
                    throw RideStoreError.notFound(kind: "track", id: replacing.rawValue)
                }
                let track = batch.tracks[0]
                try db.execute(sql: "DELETE FROM segment WHERE trackId = ?", arguments: [replacing])
                try TrackRules.fill(&record, with: track, importID: importRecord.id, position: 0, now: now)
                try record.update(db)
                try Self.insertContent(track.content, trackID: replacing, db)
                summaries.append(try Self.summary(db, id: replacing, userID: userID))
            } else {
                for (position, track) in batch.tracks.enumerated() {
                    let id: TrackID = try Self.freshID(db, table: "track")
                    var record = TrackRules.emptyRecord(id: id, userID: userID, name: track.name, kind: track.kind, source: track.source, now: now)
                    try TrackRules.fill(&record, with: track, importID: importRecord.id, position: position, now: now)
                    try record.insert(db)
                    try Self.insertContent(track.content, trackID: id, db)
                    summaries.append(try Self.summary(db, id: id, userID: userID))
                }
            }
            try Self.syncHeatmap(db, trackIDs: summaries.map(\.id), userID: userID)
            var placeIDs: [PlaceID] = []
            for place in batch.places { placeIDs.append(try Self.insertPlace(place, userID: userID, now: now, db).id) }
            return .imported(importRecord.id, tracks: summaries, places: placeIDs)
        }
    }

    public func importedTracks(contentHash: String, userID: UserID) async throws -> [TrackID] {
        try await read { db in try Self.importedTracks(db, contentHash: contentHash, userID: userID) }
    }

    static func importedTracks(_ db: Database, contentHash: String, userID: UserID) throws -> [TrackID] {
        try TrackID.fetchAll(
            db,
            sql: """
                SELECT track.id FROM track JOIN trackImport ON track.importId = trackImport.id
                WHERE trackImport.userId = ? AND trackImport.contentHash = ? AND track.deletedAt IS NULL
                ORDER BY track.createdAt, track.importPosition
                """,
            arguments: [userID, contentHash])
    }

    public func tracks(_ query: TrackQuery, userID: UserID) async throws -> TrackPage {
        let plan = try TrackListPlan(query)
        return try await read { db in
            var conditions = ["userId = ?", plan.deletedOnly ? "deletedAt IS NOT NULL" : "deletedAt IS NULL"]
            var arguments: StatementArguments = [userID]
            if plan.completeOrDevice {
                conditions.append("(state = ? OR source = 'device')")
                _ = arguments.append(contentsOf: [TrackState.complete])
            }
            if let kinds = plan.kinds {
                conditions.append("kind IN (\(kinds.map { _ in "?" }.joined(separator: ", ")))")
                _ = arguments.append(contentsOf: StatementArguments(kinds))
            }
            // A scan of the user's rows in list order that stops once a page is full: linear in the tracks, never
            // more. (LIKE ignores the case of ASCII letters here, as the plan's folded pattern asks.)
            for word in plan.words {
                var alternatives = [
                    "name LIKE ? ESCAPE '\\'", "startTime LIKE ? ESCAPE '\\'",
                    "EXISTS (SELECT 1 FROM trackImport WHERE trackImport.id = track.importId AND trackImport.fileName LIKE ? ESCAPE '\\')",
                ]
                _ = arguments.append(contentsOf: [word.pattern, word.pattern, word.pattern])
                if let kind = word.kind {
                    alternatives.append("kind = ?")
                    _ = arguments.append(contentsOf: [kind])
                }
                conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
            }
            if let after = plan.after {
                conditions.append("(sortKey, id) < (?, ?)")
                _ = arguments.append(contentsOf: [after.sortKey, after.id])
            }
            let sql = """
                SELECT \(TrackSummaryRow.selectionSQL) FROM track INDEXED BY track_list
                WHERE \(conditions.joined(separator: " AND "))
                ORDER BY sortKey DESC, id DESC LIMIT \(plan.rowLimit)
                """
            return plan.page(try TrackSummaryRow.fetchAll(db, sql: sql, arguments: arguments))
        }
    }

    public func trackTotals(since starts: [Date], userID: UserID) async throws -> [TrackTotals] {
        try await read { db in
            try starts.map { start in
                // The list's own columns, summed: the totals are the figures the rows show. Routes are plans, not
                // rides; a track without times has no day it was ridden (its import day is not it); a recording in
                // the web app counts once it is saved (it may yet be discarded), a phone app's track in progress at
                // once, with the figures it has so far (a ride today shows in "This week"); a simulated ride never.
                guard let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT COUNT(*), TOTAL(distanceMeters), TOTAL(movingSeconds), TOTAL(elapsedSeconds), TOTAL(ascentMeters)
                        FROM track INDEXED BY track_list
                        WHERE userId = ? AND sortKey >= ? AND deletedAt IS NULL AND (state = ? OR source = ?)
                            AND startTime IS NOT NULL AND \(StatisticsRules.sqlCondition(kind: "kind", source: "source"))
                        """,
                    arguments: [userID, TrackRecord.sortKey(start: nil, createdAt: start), TrackState.complete, TrackSource.device])
                else {
                    return TrackTotals(since: start, trackCount: 0, distanceMeters: 0, movingSeconds: 0, elapsedSeconds: 0, ascentMeters: 0)
                }
                let count: Int = row[0]
                let distance: Double = row[1], moving: Double = row[2], elapsed: Double = row[3], ascent: Double = row[4]
                return TrackTotals(
                    since: start, trackCount: count, distanceMeters: distance, movingSeconds: moving, elapsedSeconds: elapsed,
                    ascentMeters: ascent)
            }
        }
    }

    public func trackCount(userID: UserID) async throws -> Int {
        try await read { db in
            try TrackRecord.filter(TrackRecord.Columns.userId == userID && TrackRecord.Columns.deletedAt == nil)
                .filter(TrackRecord.Columns.state == TrackState.complete).fetchCount(db)
        }
    }

    public func trackSummary(id: TrackID, userID: UserID) async throws -> TrackSummary? {
        try await read { db in try Self.optionalSummary(db, id: id, userID: userID) }
    }

    public func track(id: TrackID, userID: UserID) async throws -> StoredTrack? {
        try await read { db in
            guard let record = try TrackRecord.filter(key: id).filter(TrackRecord.Columns.userId == userID).fetchOne(db) else {
                return nil
            }
            var content = try TrackHeaderCodec.decode(record.gpxHeader, version: record.gpxVersion, creator: record.gpxCreator)
            try Self.loadPoints(into: &content, trackID: id, db)
            guard let summary = try Self.optionalSummary(db, id: id, userID: userID) else { return nil }
            return StoredTrack(summary: summary, stats: try record.decodedStats(), content: content, device: try record.decodedDevice())
        }
    }

    public func trackOutline(id: TrackID, userID: UserID) async throws -> TrackOutline? {
        try await read { db in
            guard let record = try TrackRecord.filter(key: id).filter(TrackRecord.Columns.userId == userID).fetchOne(db),
                  let summary = try Self.optionalSummary(db, id: id, userID: userID)
            else { return nil }
            let headers = try TrackHeaderCodec.decode(record.gpxHeader, version: record.gpxVersion, creator: record.gpxCreator)
            let segments = try Row.fetchAll(
                db, sql: "SELECT id, role, part, position, pointCount FROM segment WHERE trackId = ? ORDER BY role, part, position",
                arguments: [id]
            ).map { row in (id: row[0] as Int64, role: row[1] as Int, part: row[2] as Int, position: row[3] as Int, pointCount: row[4] as Int) }
            return try TrackOutlineRules.outline(
                summary: summary, stats: try record.decodedStats(), device: try record.decodedDevice(), headers: headers,
                segments: segments, waiting: try Self.waitingFixes(trackID: id, db))
        }
    }

    public func pointBlockPage(segmentID: Int64, trackID: TrackID, userID: UserID, after: Int?, limit: Int) async throws
        -> [(position: Int, pointCount: Int, data: Data)]
    {
        try await read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT pointBlock.position, pointBlock.pointCount, pointBlock.data
                    FROM pointBlock JOIN segment ON segment.id = pointBlock.segmentId JOIN track ON track.id = segment.trackId
                    WHERE pointBlock.segmentId = ? AND segment.trackId = ? AND track.userId = ? AND pointBlock.position > ?
                    ORDER BY pointBlock.position LIMIT ?
                    """,
                arguments: [segmentID, trackID, userID, after ?? Int.min, max(1, limit)])
            var page: [(position: Int, pointCount: Int, data: Data)] = []
            while let row = try rows.next() { page.append((row[0] as Int, row[1] as Int, row[2] as Data)) }
            return page
        }
    }

    public func updateTrack(id: TrackID, userID: UserID, _ changes: TrackChanges) async throws -> TrackSummary {
        if let name = changes.name { try TrackRules.validate(name: name) }
        return try await write { db in
            guard var record = try TrackRecord.filter(key: id).filter(TrackRecord.Columns.userId == userID).fetchOne(db) else {
                throw RideStoreError.notFound(kind: "track", id: id.rawValue)
            }
            try TrackRules.apply(changes, to: &record, now: StoreClock.now())
            try record.update(db)
            try Self.syncHeatmap(db, trackIDs: [id], userID: userID)
            return try Self.summary(db, id: id, userID: userID)
        }
    }

    public func deleteTracks(ids: [TrackID], userID: UserID) async throws -> [TrackID] {
        try await write { db in
            let found = try TrackRecord.select(TrackRecord.Columns.id, as: TrackID.self)
                .filter(keys: ids).filter(TrackRecord.Columns.userId == userID && TrackRecord.Columns.deletedAt == nil)
                .fetchAll(db)
            try TrackRecord.filter(keys: found).updateAll(db, TrackRecord.Columns.deletedAt.set(to: StoreClock.milliseconds(StoreClock.now())))
            try Self.syncHeatmap(db, trackIDs: found, userID: userID)
            return ids.filter(found.contains)
        }
    }

    public func restoreTracks(ids: [TrackID], userID: UserID) async throws -> [TrackID] {
        try await write { db in
            let found = try TrackRecord.select(TrackRecord.Columns.id, as: TrackID.self)
                .filter(keys: ids).filter(TrackRecord.Columns.userId == userID && TrackRecord.Columns.deletedAt != nil)
                .fetchAll(db)
            try TrackRecord.filter(keys: found).updateAll(db, TrackRecord.Columns.deletedAt.set(to: nil))
            try Self.syncHeatmap(db, trackIDs: found, userID: userID)
            return ids.filter(found.contains)
        }
    }

    public func purgeDeletedTracks(deletedBefore date: Date) async throws -> [TrackSummary] {
        try await write { db in
            let rows = try TrackSummaryRow.filter(TrackRecord.Columns.deletedAt != nil && TrackRecord.Columns.deletedAt < StoreClock.milliseconds(date)).fetchAll(db)
            try TrackRecord.filter(keys: rows.map(\.id)).deleteAll(db)
            // Imports that lost their last track are forgotten, so that the file can be imported again.
            try db.execute(sql: "DELETE FROM trackImport WHERE NOT EXISTS (SELECT 1 FROM track WHERE track.importId = trackImport.id)")
            return rows.map(\.summary)
        }
    }

    public func purgeTracks(ids: [TrackID], userID: UserID) async throws -> [TrackSummary] {
        try await write { db in
            let rows = try TrackSummaryRow.filter(keys: ids).filter(TrackRecord.Columns.userId == userID).fetchAll(db)
            try Self.syncHeatmap(db, trackIDs: rows.map(\.id), userID: userID, removing: true)
            try TrackRecord.filter(keys: rows.map(\.id)).deleteAll(db)
            try db.execute(sql: "DELETE FROM trackImport WHERE NOT EXISTS (SELECT 1 FROM track WHERE track.importId = trackImport.id)")
            return rows.map(\.summary)
        }
    }

    // MARK: Helpers

    static func summary(_ db: Database, id: TrackID, userID: UserID) throws -> TrackSummary {
        guard let summary = try optionalSummary(db, id: id, userID: userID) else {
            throw RideStoreError.notFound(kind: "track", id: id.rawValue)
        }
        return summary
    }

    static func optionalSummary(_ db: Database, id: TrackID, userID: UserID) throws -> TrackSummary? {
        try TrackSummaryRow.filter(key: id).filter(TrackRecord.Columns.userId == userID).fetchOne(db)?.summary
    }

    /// Inserts the segments and point blocks of a track's content.
    static func insertContent(_ content: TrackContent, trackID: TrackID, _ db: Database) throws {
        for (part, track) in content.tracks.enumerated() {
            for (position, segment) in track.segments.enumerated() {
                try insertPoints(segment.points, trackID: trackID, role: .trackSegment, part: part, position: position, db)
            }
        }
        for (part, route) in content.routes.enumerated() {
            try insertPoints(route.points, trackID: trackID, role: .route, part: part, position: 0, db)
        }
        if !content.waypoints.isEmpty {
            try insertPoints(content.waypoints, trackID: trackID, role: .waypoints, part: 0, position: 0, db)
        }
    }

    @discardableResult
    static func insertPoints(
        _ points: PackedPoints, trackID: TrackID, role: SegmentRecord.Role, part: Int, position: Int, _ db: Database
    ) throws -> Int64 {
        let segment = try db.cachedStatement(
            sql: "INSERT INTO segment (trackId, role, part, position, pointCount) VALUES (?, ?, ?, ?, ?)")
        try segment.execute(arguments: [trackID, role.rawValue, part, position, points.count])
        let segmentID = db.lastInsertedRowID
        try insertBlocks(points.packedBlocks, segmentID: segmentID, firstPosition: 0, db)
        return segmentID
    }

    static func insertBlocks(_ blocks: [PointBlock], segmentID: Int64, firstPosition: Int, _ db: Database) throws {
        let insert = try DirectStatement(db, "INSERT INTO pointBlock (segmentId, position, pointCount, data) VALUES (?, ?, ?, ?)")
        for (offset, block) in blocks.enumerated() {
            try insert.execute(segmentID, firstPosition + offset, block.pointCount, block.data)
        }
    }

    /// Fills the point runs of `content` (made from the headers) from the stored blocks, and a live device
    /// track's latest fixes (`blockPendingFixes`).
    static func loadPoints(into content: inout TrackContent, trackID: TrackID, _ db: Database) throws {
        var assembler = PointRunAssembler(trackID: trackID)
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT segment.role, segment.part, segment.position, pointBlock.pointCount, pointBlock.data
                FROM segment LEFT JOIN pointBlock ON pointBlock.segmentId = segment.id
                WHERE segment.trackId = ?
                ORDER BY segment.role, segment.part, segment.position, pointBlock.position
                """,
            arguments: [trackID])
        while let row = try rows.next() {
            try assembler.add(
                role: row[0] as Int, part: row[1] as Int, position: row[2] as Int, pointCount: row[3] as Int?, data: row[4] as Data?,
                into: &content)
        }
        try assembler.finish(into: &content)
        // A device track's latest fixes, not in its blocks yet, end its last segment (where they will be appended).
        DeviceIngestRules.appendWaiting(try waitingFixes(trackID: trackID, db), to: &content)
    }
}
