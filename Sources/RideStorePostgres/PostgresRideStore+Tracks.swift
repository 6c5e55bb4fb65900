import Foundation
import PostgresNIO
import RideKit
import RideStore

extension PostgresRideStore {
    public func saveImport(_ batch: TrackImport, userID: UserID) async throws -> TrackImportResult {
        try TrackRules.validate(batch)
        // A file of millions of points is written in one transaction: it gets the long deadline.
        return try await transaction(long: true) { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            if batch.replacing == nil, !batch.allowsDuplicate {
                let existing = try await Self.importedTracks(connection, contentHash: batch.source.contentHash, userID: userID, logger: logger)
                if !existing.isEmpty { return .duplicate(of: existing) }
            }
            if batch.maximumUserPoints != nil {
                try await Self.checkUserPoints(
                    adding: batch.pointCount, replacing: batch.replacing, userID: userID, limit: batch.maximumUserPoints, connection, logger: logger)
            }
            let now = Self.now()
            let importID = ImportID.random()
            try await connection.query(
                """
                INSERT INTO track_imports (id, user_id, content_hash, file_name, format, byte_count, imported_at)
                VALUES (\(importID.rawValue), \(userID.rawValue), \(batch.source.contentHash), \(TrackRules.importFileName(batch.source.fileName)),
                        \(batch.source.format.rawValue), \(Int64(batch.source.byteCount)), \(Self.milliseconds(now)))
                """, logger: logger)
            if let original = OriginalFileRules.bytes(of: batch) {
                try await connection.query(
                    "INSERT INTO import_originals (import_id, bytes) VALUES (\(importID.rawValue), \(original))", logger: logger)
            }
            var summaries: [TrackSummary] = []
            if let replacing = batch.replacing {
                guard var record = try await Self.trackRecord(connection, id: replacing, userID: userID, logger: logger) else {
                    throw RideStoreError.notFound(kind: "track", id: replacing.rawValue)
                }
                let track = batch.tracks[0]
                try await connection.query("DELETE FROM segments WHERE track_id = \(replacing.rawValue)", logger: logger)
                try TrackRules.fill(&record, with: track, importID: importID, position: 0, now: now)
                try await Self.updateTrackRecord(record, connection, logger: logger)
                try await Self.insertContent(track.content, trackID: replacing, connection, logger: logger)
                summaries.append(try await Self.summary(connection, id: replacing, userID: userID, logger: logger))
            } else {
                for (position, track) in batch.tracks.enumerated() {
                    let id = TrackID.random()
                    var record = TrackRules.emptyRecord(id: id, userID: userID, name: track.name, kind: track.kind, source: track.source, now: now)
                    try TrackRules.fill(&record, with: track, importID: importID, position: position, now: now)
                    try await Self.insertTrackRecord(record, connection, logger: logger)
                    try await Self.insertContent(track.content, trackID: id, connection, logger: logger)
                    summaries.append(try await Self.summary(connection, id: id, userID: userID, logger: logger))
                }
            }
            try await Self.syncHeatmap(connection, trackIDs: summaries.map(\.id), userID: userID, logger: logger)
            var placeIDs: [PlaceID] = []
            for place in batch.places { placeIDs.append(try await Self.insertPlace(place, userID: userID, now: now, connection, logger: logger)) }
            return .imported(importID, tracks: summaries, places: placeIDs)
        }
    }

    public func importedTracks(contentHash: String, userID: UserID) async throws -> [TrackID] {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.importedTracks(connection, contentHash: contentHash, userID: userID, logger: logger)
        }
    }

    static func importedTracks(_ connection: PostgresConnection, contentHash: String, userID: UserID, logger: Logger) async throws -> [TrackID] {
        let rows = try await connection.query(
            """
            SELECT tracks.id FROM tracks JOIN track_imports ON tracks.import_id = track_imports.id
            WHERE track_imports.user_id = \(userID.rawValue) AND track_imports.content_hash = \(contentHash) AND tracks.deleted_at IS NULL
            ORDER BY tracks.created_at, tracks.import_position
            """, logger: logger)
        var ids: [TrackID] = []
        for try await id in rows.decode(String.self) { ids.append(try shortID(id, column: "tracks.id")) }
        return ids
    }

    public func tracks(_ query: TrackQuery, userID: UserID) async throws -> TrackPage {
        let plan = try TrackListPlan(query)
        // The conditions are fixed SQL with numbered parameters; every value is bound.
        var binds = PostgresBindings()
        func parameter(_ value: some PostgresThrowingDynamicTypeEncodable) throws -> String {
            try binds.append(value)
            return "$\(binds.count)"
        }
        var conditions = ["user_id = \(try parameter(userID.rawValue))", plan.deletedOnly ? "deleted_at IS NOT NULL" : "deleted_at IS NULL"]
        if plan.completeOrDevice {
            conditions.append("(state = \(try parameter(TrackState.complete.rawValue)) OR source = \(try parameter(TrackSource.device.rawValue)))")
        }
        if let kinds = plan.kinds { conditions.append("kind = ANY(\(try parameter(kinds)))") }
        for word in plan.words {
            let pattern = try parameter(word.pattern)
            var alternatives = [
                "\(Self.asciiLower("name")) LIKE \(pattern) ESCAPE '\\'",
                "\(Self.asciiLower("start_time")) LIKE \(pattern) ESCAPE '\\'",
                """
                EXISTS (SELECT 1 FROM track_imports WHERE track_imports.id = tracks.import_id
                        AND \(Self.asciiLower("track_imports.file_name")) LIKE \(pattern) ESCAPE '\\')
                """,
            ]
            if let kind = word.kind { alternatives.append("kind = \(try parameter(kind.rawValue))") }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        if let after = plan.after {
            conditions.append("(sort_key, id) < (\(try parameter(after.sortKey)), \(try parameter(after.id)))")
        }
        let sql = """
            SELECT \(Self.summaryColumns) FROM tracks WHERE \(conditions.joined(separator: " AND "))
            ORDER BY sort_key DESC, id DESC LIMIT \(try parameter(Int64(plan.rowLimit)))
            """
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await transaction(readOnly: true) { [logger] connection in
            plan.page(try await Self.summaryRows(connection.query(statement, logger: logger)))
        }
    }

    public func trackTotals(since starts: [Date], userID: UserID) async throws -> [TrackTotals] {
        try await transaction(readOnly: true) { [logger] connection in
            var totals: [TrackTotals] = []
            for start in starts {
                // As on SQLite: the list's own columns summed, routes (plans), tracks without times and web recordings
                // not saved yet left out (a phone app's track in progress counts), in
                // the order of the list's index (oldest first), so that the sums come out the same to the last bit.
                let rows = try await connection.query(
                    """
                    SELECT count(*),
                        coalesce(sum(distance_meters ORDER BY sort_key, id), 0), coalesce(sum(moving_seconds ORDER BY sort_key, id), 0),
                        coalesce(sum(elapsed_seconds ORDER BY sort_key, id), 0), coalesce(sum(ascent_meters ORDER BY sort_key, id), 0)
                    FROM tracks
                    WHERE user_id = \(userID.rawValue) AND sort_key >= \(TrackRecord.sortKey(start: nil, createdAt: start))
                        AND deleted_at IS NULL AND (state = \(TrackState.complete.rawValue) OR source = \(TrackSource.device.rawValue))
                        AND \(unescaped: StatisticsRules.sqlCondition(kind: "kind", source: "source"))
                        AND start_time IS NOT NULL
                    """, logger: logger)
                var total = TrackTotals(since: start, trackCount: 0, distanceMeters: 0, movingSeconds: 0, elapsedSeconds: 0, ascentMeters: 0)
                for try await (count, distance, moving, elapsed, ascent) in rows.decode((Int64, Double, Double, Double, Double).self) {
                    total = TrackTotals(
                        since: start, trackCount: Int(count), distanceMeters: distance, movingSeconds: moving, elapsedSeconds: elapsed,
                        ascentMeters: ascent)
                }
                totals.append(total)
            }
            return totals
        }
    }

    public func trackCount(userID: UserID) async throws -> Int {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT count(*) FROM tracks
                WHERE user_id = \(userID.rawValue) AND deleted_at IS NULL AND state = \(TrackState.complete.rawValue)
                """, logger: logger)
            var count: Int64 = 0
            for try await value in rows.decode(Int64.self) { count = value }
            return Int(count)
        }
    }

    public func trackSummary(id: TrackID, userID: UserID) async throws -> TrackSummary? {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.optionalSummary(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func track(id: TrackID, userID: UserID) async throws -> StoredTrack? {
        try await transaction(readOnly: true) { [logger] connection in
            guard let record = try await Self.trackRecord(connection, id: id, userID: userID, logger: logger) else { return nil }
            var content = try TrackHeaderCodec.decode(record.gpxHeader, version: record.gpxVersion, creator: record.gpxCreator)
            try await Self.loadPoints(into: &content, trackID: id, connection, logger: logger)
            guard let summary = try await Self.optionalSummary(connection, id: id, userID: userID, logger: logger) else { return nil }
            return StoredTrack(summary: summary, stats: try record.decodedStats(), content: content, device: try record.decodedDevice())
        }
    }

    public func trackOutline(id: TrackID, userID: UserID) async throws -> TrackOutline? {
        try await transaction(readOnly: true) { [logger] connection in
            guard let record = try await Self.trackRecord(connection, id: id, userID: userID, logger: logger),
                  let summary = try await Self.optionalSummary(connection, id: id, userID: userID, logger: logger)
            else { return nil }
            let headers = try TrackHeaderCodec.decode(record.gpxHeader, version: record.gpxVersion, creator: record.gpxCreator)
            let rows = try await connection.query(
                """
                SELECT id, role, part, position, point_count FROM segments WHERE track_id = \(id.rawValue)
                ORDER BY role, part, position
                """, logger: logger)
            var segments: [(id: Int64, role: Int, part: Int, position: Int, pointCount: Int)] = []
            for try await (segmentID, role, part, position, count) in rows.decode((Int64, Int16, Int64, Int64, Int64).self) {
                // Out of Int's range is out of the outline's: clamped, so that it says the row is damaged.
                segments.append((segmentID, Int(role), Int(clamping: part), Int(clamping: position), Int(clamping: count)))
            }
            return try TrackOutlineRules.outline(
                summary: summary, stats: try record.decodedStats(), device: try record.decodedDevice(), headers: headers,
                segments: segments, waiting: try await Self.waitingFixes(trackID: id, connection, logger: logger))
        }
    }

    public func pointBlockPage(segmentID: Int64, trackID: TrackID, userID: UserID, after: Int?, limit: Int) async throws
        -> [(position: Int, pointCount: Int, data: Data)]
    {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT point_blocks.position, point_blocks.point_count, point_blocks.data
                FROM point_blocks JOIN segments ON segments.id = point_blocks.segment_id JOIN tracks ON tracks.id = segments.track_id
                WHERE point_blocks.segment_id = \(segmentID) AND segments.track_id = \(trackID.rawValue) AND tracks.user_id = \(userID.rawValue)
                    AND point_blocks.position > \(Int64(after ?? Int.min))
                ORDER BY point_blocks.position LIMIT \(Int64(max(1, limit)))
                """, logger: logger)
            var page: [(position: Int, pointCount: Int, data: Data)] = []
            for try await (position, count, data) in rows.decode((Int64, Int64, Data).self) {
                page.append((Int(clamping: position), Int(clamping: count), data))
            }
            return page
        }
    }

    public func updateTrack(id: TrackID, userID: UserID, _ changes: TrackChanges) async throws -> TrackSummary {
        if let name = changes.name { try TrackRules.validate(name: name) }
        return try await transaction { [logger] connection in
            guard var record = try await Self.trackRecord(connection, id: id, userID: userID, forUpdate: true, logger: logger) else {
                throw RideStoreError.notFound(kind: "track", id: id.rawValue)
            }
            try TrackRules.apply(changes, to: &record, now: Self.now())
            try await Self.updateTrackRecord(record, connection, logger: logger)
            try await Self.syncHeatmap(connection, trackIDs: [id], userID: userID, logger: logger)
            return try await Self.summary(connection, id: id, userID: userID, logger: logger)
        }
    }

    public func deleteTracks(ids: [TrackID], userID: UserID) async throws -> [TrackID] {
        let keys = ids.map(\.rawValue)
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                UPDATE tracks SET deleted_at = \(Self.milliseconds(Self.now()))
                WHERE id = ANY(\(keys)) AND user_id = \(userID.rawValue) AND deleted_at IS NULL RETURNING id
                """, logger: logger)
            var found = Set<String>()
            for try await id in rows.decode(String.self) { found.insert(id) }
            let changed = ids.filter { found.contains($0.rawValue) }
            try await Self.syncHeatmap(connection, trackIDs: changed, userID: userID, logger: logger)
            return changed
        }
    }

    public func restoreTracks(ids: [TrackID], userID: UserID) async throws -> [TrackID] {
        let keys = ids.map(\.rawValue)
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                UPDATE tracks SET deleted_at = NULL
                WHERE id = ANY(\(keys)) AND user_id = \(userID.rawValue) AND deleted_at IS NOT NULL RETURNING id
                """, logger: logger)
            var found = Set<String>()
            for try await id in rows.decode(String.self) { found.insert(id) }
            let changed = ids.filter { found.contains($0.rawValue) }
            try await Self.syncHeatmap(connection, trackIDs: changed, userID: userID, logger: logger)
            return changed
        }
    }

    public func purgeDeletedTracks(deletedBefore date: Date) async throws -> [TrackSummary] {
        try await transaction { [logger] connection in
            let rows = try await Self.summaryRows(
                connection.query(
                    """
                    DELETE FROM tracks WHERE deleted_at IS NOT NULL AND deleted_at < \(Self.milliseconds(date))
                    RETURNING \(unescaped: Self.summaryColumns)
                    """, logger: logger))
            try await Self.forgetEmptyImports(connection, logger: logger)
            return rows.map(\.summary)
        }
    }

    public func purgeTracks(ids: [TrackID], userID: UserID) async throws -> [TrackSummary] {
        let keys = ids.map(\.rawValue)
        return try await transaction { [logger] connection in
            try await Self.syncHeatmap(connection, trackIDs: ids, userID: userID, removing: true, logger: logger)
            let rows = try await Self.summaryRows(
                connection.query(
                    """
                    DELETE FROM tracks WHERE id = ANY(\(keys)) AND user_id = \(userID.rawValue)
                    RETURNING \(unescaped: Self.summaryColumns)
                    """, logger: logger))
            try await Self.forgetEmptyImports(connection, logger: logger)
            let byID = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            return ids.compactMap { byID[$0]?.summary }
        }
    }

    /// Imports that lost their last track are forgotten, so that the file can be imported again.
    static func forgetEmptyImports(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM track_imports WHERE NOT EXISTS (SELECT 1 FROM tracks WHERE tracks.import_id = track_imports.id)", logger: logger)
    }

    /// SQL that folds a text column's ASCII capitals to small letters, whatever the database's locale.
    static func asciiLower(_ column: String) -> String {
        "translate(\(column), 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')"
    }

    // MARK: Rows

    /// The columns of `tracks` that the list shows, in `TrackSummaryRow`'s order.
    static let summaryColumns = """
        id, name, kind, source, state, import_id, created_at, updated_at, start_time, end_time, sort_key, distance_meters, \
        ascent_meters, descent_meters, moving_seconds, elapsed_seconds, max_speed_meters_per_second, point_count, segment_count, \
        waypoint_count, route_count, min_latitude, min_longitude, max_latitude, max_longitude, preview, document_name, deleted_at
        """

    static func enumValue<T: RawRepresentable>(_ type: T.Type, _ text: String, column: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw RideStoreError.damaged("\(column) '\(text)' is not a known value") }
        return value
    }

    static func summaryRows(_ rows: PostgresRowSequence) async throws -> [TrackSummaryRow] {
        var result: [TrackSummaryRow] = []
        for try await row in rows {
            let r = row.makeRandomAccess()
            result.append(
                TrackSummaryRow(
                    id: try shortID(r[0].decode(String.self), column: "tracks.id"), name: try r[1].decode(String.self),
                    kind: try enumValue(TrackKind.self, r[2].decode(String.self), column: "tracks.kind"),
                    source: try enumValue(TrackSource.self, r[3].decode(String.self), column: "tracks.source"),
                    state: try enumValue(TrackState.self, r[4].decode(String.self), column: "tracks.state"),
                    importId: try r[5].decode(String?.self).map { try shortID($0, column: "tracks.import_id") },
                    createdAt: date(try r[6].decode(Int64.self)), updatedAt: date(try r[7].decode(Int64.self)),
                    startTime: try r[8].decode(String?.self), endTime: try r[9].decode(String?.self), sortKey: try r[10].decode(Int64.self),
                    distanceMeters: try r[11].decode(Double.self), ascentMeters: try r[12].decode(Double.self),
                    descentMeters: try r[13].decode(Double.self), movingSeconds: try r[14].decode(Double.self),
                    elapsedSeconds: try r[15].decode(Double.self), maxSpeedMetersPerSecond: try r[16].decode(Double.self),
                    pointCount: Int(try r[17].decode(Int64.self)), segmentCount: Int(try r[18].decode(Int64.self)),
                    waypointCount: Int(try r[19].decode(Int64.self)), routeCount: Int(try r[20].decode(Int64.self)),
                    minLatitude: try r[21].decode(Double?.self), minLongitude: try r[22].decode(Double?.self),
                    maxLatitude: try r[23].decode(Double?.self), maxLongitude: try r[24].decode(Double?.self),
                    preview: try r[25].decode(Data.self), documentName: try r[26].decode(String?.self),
                    deletedAt: try r[27].decode(Int64?.self).map(date)))
        }
        return result
    }

    static func summary(_ connection: PostgresConnection, id: TrackID, userID: UserID, logger: Logger) async throws -> TrackSummary {
        guard let summary = try await optionalSummary(connection, id: id, userID: userID, logger: logger) else {
            throw RideStoreError.notFound(kind: "track", id: id.rawValue)
        }
        return summary
    }

    static func optionalSummary(_ connection: PostgresConnection, id: TrackID, userID: UserID, logger: Logger) async throws -> TrackSummary? {
        try await summaryRows(
            connection.query(
                "SELECT \(unescaped: summaryColumns) FROM tracks WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue)",
                logger: logger)
        ).first?.summary
    }

    /// Every column of `tracks`, in `TrackRecord`'s order.
    static let recordColumns = """
        id, user_id, name, kind, source, state, import_id, import_position, created_at, updated_at, start_time, end_time, \
        sort_key, utc_offset_minutes, distance_meters, ascent_meters, descent_meters, moving_seconds, elapsed_seconds, \
        max_speed_meters_per_second, average_speed_meters_per_second, point_count, segment_count, waypoint_count, route_count, \
        min_latitude, min_longitude, max_latitude, max_longitude, preview, stats, gpx_version, gpx_creator, gpx_header, \
        document_name, deleted_at, device
        """

    static func trackRecord(
        _ connection: PostgresConnection, id: TrackID, userID: UserID? = nil, forUpdate: Bool = false, logger: Logger
    ) async throws -> TrackRecord? {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: recordColumns) FROM tracks
            WHERE id = \(id.rawValue) AND (\(userID?.rawValue)::text IS NULL OR user_id = \(userID?.rawValue))
            \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """, logger: logger)
        for try await row in rows { return try trackRecord(row) }
        return nil
    }

    /// Tracks' rows by id, locked for the transaction (in id order, as every writer of several takes them).
    static func lockedTrackRecords(_ connection: PostgresConnection, ids: [TrackID], logger: Logger) async throws -> [TrackID: TrackRecord] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: recordColumns) FROM tracks WHERE id = ANY(\(ids.map(\.rawValue))::text[]) ORDER BY id FOR UPDATE
            """, logger: logger)
        var records: [TrackID: TrackRecord] = [:]
        for try await row in rows {
            let record = try trackRecord(row)
            records[record.id] = record
        }
        return records
    }

    /// A row of `recordColumns`.
    static func trackRecord(_ row: PostgresRow) throws -> TrackRecord {
        let r = row.makeRandomAccess()
        return TrackRecord(
            id: try shortID(r[0].decode(String.self), column: "tracks.id"),
            userId: try shortID(r[1].decode(String.self), column: "tracks.user_id"), name: try r[2].decode(String.self),
            kind: try enumValue(TrackKind.self, r[3].decode(String.self), column: "tracks.kind"),
            source: try enumValue(TrackSource.self, r[4].decode(String.self), column: "tracks.source"),
            state: try enumValue(TrackState.self, r[5].decode(String.self), column: "tracks.state"),
            importId: try r[6].decode(String?.self).map { try shortID($0, column: "tracks.import_id") },
            importPosition: Int(try r[7].decode(Int64.self)), createdAt: date(try r[8].decode(Int64.self)),
            updatedAt: date(try r[9].decode(Int64.self)), startTime: try r[10].decode(String?.self),
            endTime: try r[11].decode(String?.self), sortKey: try r[12].decode(Int64.self),
            utcOffsetMinutes: try r[13].decode(Int64?.self).map { Int($0) }, distanceMeters: try r[14].decode(Double.self),
            ascentMeters: try r[15].decode(Double.self), descentMeters: try r[16].decode(Double.self),
            movingSeconds: try r[17].decode(Double.self), elapsedSeconds: try r[18].decode(Double.self),
            maxSpeedMetersPerSecond: try r[19].decode(Double.self), averageSpeedMetersPerSecond: try r[20].decode(Double.self),
            pointCount: Int(try r[21].decode(Int64.self)), segmentCount: Int(try r[22].decode(Int64.self)),
            waypointCount: Int(try r[23].decode(Int64.self)), routeCount: Int(try r[24].decode(Int64.self)),
            minLatitude: try r[25].decode(Double?.self), minLongitude: try r[26].decode(Double?.self),
            maxLatitude: try r[27].decode(Double?.self), maxLongitude: try r[28].decode(Double?.self),
            preview: try r[29].decode(Data.self), stats: try r[30].decode(Data.self), gpxVersion: try r[31].decode(String.self),
            gpxCreator: try r[32].decode(String?.self), gpxHeader: try r[33].decode(Data.self),
            documentName: try r[34].decode(String?.self), deletedAt: try r[35].decode(Int64?.self).map(date),
            device: try r[36].decode(Data?.self))
    }

    static func insertTrackRecord(_ t: TrackRecord, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            INSERT INTO tracks (\(unescaped: recordColumns)) VALUES (
                \(t.id.rawValue), \(t.userId.rawValue), \(t.name), \(t.kind.rawValue), \(t.source.rawValue), \(t.state.rawValue),
                \(t.importId?.rawValue), \(Int64(t.importPosition)), \(milliseconds(t.createdAt)), \(milliseconds(t.updatedAt)),
                \(t.startTime), \(t.endTime), \(t.sortKey), \(t.utcOffsetMinutes.map { Int64($0) }), \(t.distanceMeters),
                \(t.ascentMeters), \(t.descentMeters), \(t.movingSeconds), \(t.elapsedSeconds), \(t.maxSpeedMetersPerSecond),
                \(t.averageSpeedMetersPerSecond), \(Int64(t.pointCount)), \(Int64(t.segmentCount)), \(Int64(t.waypointCount)),
                \(Int64(t.routeCount)), \(t.minLatitude), \(t.minLongitude), \(t.maxLatitude), \(t.maxLongitude), \(t.preview),
                \(t.stats), \(t.gpxVersion), \(t.gpxCreator), \(t.gpxHeader), \(t.documentName), \(t.deletedAt.map(milliseconds)),
                \(t.device))
            """, logger: logger)
        try await writeEfforts(trackID: t.id, stats: t.stats, connection, logger: logger)
    }

    static func updateTrackRecord(_ t: TrackRecord, _ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE tracks SET
                name = \(t.name), kind = \(t.kind.rawValue), source = \(t.source.rawValue), state = \(t.state.rawValue),
                import_id = \(t.importId?.rawValue), import_position = \(Int64(t.importPosition)), updated_at = \(milliseconds(t.updatedAt)),
                start_time = \(t.startTime), end_time = \(t.endTime), sort_key = \(t.sortKey),
                utc_offset_minutes = \(t.utcOffsetMinutes.map { Int64($0) }), distance_meters = \(t.distanceMeters),
                ascent_meters = \(t.ascentMeters), descent_meters = \(t.descentMeters), moving_seconds = \(t.movingSeconds),
                elapsed_seconds = \(t.elapsedSeconds), max_speed_meters_per_second = \(t.maxSpeedMetersPerSecond),
                average_speed_meters_per_second = \(t.averageSpeedMetersPerSecond), point_count = \(Int64(t.pointCount)),
                segment_count = \(Int64(t.segmentCount)), waypoint_count = \(Int64(t.waypointCount)), route_count = \(Int64(t.routeCount)),
                min_latitude = \(t.minLatitude), min_longitude = \(t.minLongitude), max_latitude = \(t.maxLatitude),
                max_longitude = \(t.maxLongitude), preview = \(t.preview), stats = \(t.stats), gpx_version = \(t.gpxVersion),
                gpx_creator = \(t.gpxCreator), gpx_header = \(t.gpxHeader), document_name = \(t.documentName),
                deleted_at = \(t.deletedAt.map(milliseconds)), device = \(t.device)
            WHERE id = \(t.id.rawValue)
            """, logger: logger)
        try await writeEfforts(trackID: t.id, stats: t.stats, connection, logger: logger)
    }

    // MARK: Points

    /// Inserts the segments and point blocks of a track's content: the segments in one statement, the blocks with
    /// `insertBlocks`; all in the caller's transaction.
    static func insertContent(_ content: TrackContent, trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws {
        var segments: [(role: Int64, part: Int64, position: Int64, points: PackedPoints)] = []
        for (part, track) in content.tracks.enumerated() {
            for (position, segment) in track.segments.enumerated() {
                segments.append((Int64(SegmentRecord.Role.trackSegment.rawValue), Int64(part), Int64(position), segment.points))
            }
        }
        for (part, route) in content.routes.enumerated() {
            segments.append((Int64(SegmentRecord.Role.route.rawValue), Int64(part), 0, route.points))
        }
        if !content.waypoints.isEmpty {
            segments.append((Int64(SegmentRecord.Role.waypoints.rawValue), 0, 0, content.waypoints))
        }
        guard !segments.isEmpty else { return }
        let rows = try await connection.query(
            """
            INSERT INTO segments (track_id, role, part, position, point_count)
            SELECT \(trackID.rawValue), r::smallint, p, q, c
            FROM unnest(\(segments.map(\.role))::bigint[], \(segments.map(\.part))::bigint[], \(segments.map(\.position))::bigint[],
                        \(segments.map { Int64($0.points.count) })::bigint[]) AS t (r, p, q, c)
            RETURNING id, role, part, position
            """, logger: logger)
        var ids: [SegmentKey: Int64] = [:]
        for try await (id, role, part, position) in rows.decode((Int64, Int16, Int64, Int64).self) {
            ids[SegmentKey(role: Int64(role), part: part, position: position)] = id
        }
        var blocks: [(segmentID: Int64, blocks: [PointBlock])] = []
        for segment in segments {
            guard let id = ids[SegmentKey(role: segment.role, part: segment.part, position: segment.position)] else {
                throw RideStoreError.database("a segment was not inserted")
            }
            let packed = segment.points.packedBlocks
            if !packed.isEmpty { blocks.append((id, packed)) }
        }
        // By `insertBlocks` only: a `COPY` path measured no faster (a 1M-point track, 977 blocks: 0.18-0.20 s by
        // `insertBlocks`, 0.22 s by `COPY`; postgres-nio's `COPY` is text only, so the bytes go as hex) and was removed.
        for (segmentID, packed) in blocks {
            try await insertBlocks(packed, segmentID: segmentID, firstPosition: 0, connection, logger: logger)
        }
    }

    /// A segment's key within its track.
    struct SegmentKey: Hashable {
        var role: Int64
        var part: Int64
        var position: Int64
    }

    @discardableResult
    static func insertPoints(
        _ points: PackedPoints, trackID: TrackID, role: SegmentRecord.Role, part: Int, position: Int, _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> Int64 {
        let rows = try await connection.query(
            """
            INSERT INTO segments (track_id, role, part, position, point_count)
            VALUES (\(trackID.rawValue), \(Int16(role.rawValue)), \(Int64(part)), \(Int64(position)), \(Int64(points.count))) RETURNING id
            """, logger: logger)
        var segmentID: Int64?
        for try await id in rows.decode(Int64.self) { segmentID = id }
        guard let segmentID else { throw RideStoreError.database("a segment was not inserted") }
        try await insertBlocks(points.packedBlocks, segmentID: segmentID, firstPosition: 0, connection, logger: logger)
        return segmentID
    }

    /// Inserts point blocks, up to 100 a statement (a long track is thousands of blocks).
    static func insertBlocks(_ blocks: [PointBlock], segmentID: Int64, firstPosition: Int, _ connection: PostgresConnection, logger: Logger) async throws {
        var start = 0
        while start < blocks.count {
            let chunk = blocks[start..<min(start + 100, blocks.count)]
            var positions: [Int64] = []
            var counts: [Int64] = []
            var data: [ByteBuffer] = []
            for (offset, block) in zip(chunk.indices, chunk) {
                positions.append(Int64(firstPosition + offset))
                counts.append(Int64(block.pointCount))
                data.append(ByteBuffer(bytes: block.data))
            }
            try await connection.query(
                """
                INSERT INTO point_blocks (segment_id, position, point_count, data)
                SELECT \(segmentID), p, c, d FROM unnest(\(positions)::bigint[], \(counts)::bigint[], \(data)::bytea[]) AS t (p, c, d)
                """, logger: logger)
            start += chunk.count
        }
    }

    /// What `loadPoints` read besides the points, for a device track's waiting fixes to be appended to its blocks:
    /// the last segment of its first `trk` and that segment's newest blocks (newest first, `PointTail.tailBlocksRead`
    /// at most, with their data), and the waiting fixes.
    struct LoadedPoints {
        var tailSegmentID: Int64?
        var tail: [TailBlocks.Block] = []
        var waiting: [TrackerFix] = []
    }

    /// Fills the point runs of `content` (made from the headers) from the stored blocks, and a live device track's
    /// latest fixes (`blockWaitingFixes`).
    @discardableResult
    static func loadPoints(into content: inout TrackContent, trackID: TrackID, _ connection: PostgresConnection, logger: Logger) async throws
        -> LoadedPoints
    {
        var contents = [trackID: content]
        let loaded = try await loadPoints(into: &contents, connection, logger: logger)
        content = contents.removeValue(forKey: trackID) ?? content
        return loaded[trackID] ?? LoadedPoints()
    }

    /// `loadPoints` for several tracks (the keys of `contents`) in two statements, whatever their number.
    static func loadPoints(into contents: inout [TrackID: TrackContent], _ connection: PostgresConnection, logger: Logger) async throws
        -> [TrackID: LoadedPoints]
    {
        let ids = contents.keys.map(\.rawValue).sorted()
        var loaded: [TrackID: LoadedPoints] = [:]
        // The rows come track by track: each track's are put together in turn.
        var current: (id: TrackID, assembler: PointRunAssembler, loaded: LoadedPoints, tailPosition: Int64?)?
        func finishCurrent() throws {
            guard var done = current, var content = contents.removeValue(forKey: done.id) else { return }
            try done.assembler.finish(into: &content)
            done.loaded.tail.reverse()
            contents[done.id] = content
            loaded[done.id] = done.loaded
            current = nil
        }
        let rows = try await connection.query(
            """
            SELECT segments.track_id, segments.role, segments.part, segments.position, point_blocks.point_count, point_blocks.data,
                   segments.id, point_blocks.id, point_blocks.position
            FROM segments LEFT JOIN point_blocks ON point_blocks.segment_id = segments.id
            WHERE segments.track_id = ANY(\(ids)::text[])
            ORDER BY segments.track_id, segments.role, segments.part, segments.position, point_blocks.position
            """, logger: logger)
        for try await (track, role, part, position, count, data, segmentID, blockID, blockPosition) in rows.decode(
            (String, Int16, Int64, Int64, Int64?, Data?, Int64, Int64?, Int64?).self)
        {
            if current?.id.rawValue != track {
                try finishCurrent()
                let id: TrackID = try shortID(track, column: "segments.track_id")
                current = (id, PointRunAssembler(trackID: id), LoadedPoints(), nil)
            }
            guard contents[current!.id] != nil else { continue }
            // Out of Int's range is out of the assembler's: clamped, so that it says the row is damaged.
            try current!.assembler.add(
                role: Int(role), part: Int(clamping: part), position: Int(clamping: position), pointCount: count.map { Int(clamping: $0) },
                data: data, into: &contents[current!.id]!)
            // The first `trk`'s segments come in position order: the last one's blocks are what is kept.
            guard role == Int16(SegmentRecord.Role.trackSegment.rawValue), part == 0 else { continue }
            if current!.tailPosition != position {
                current!.tailPosition = position
                current!.loaded.tailSegmentID = segmentID
                current!.loaded.tail = []
            }
            if let blockID, let blockPosition, let count {
                current!.loaded.tail.append(TailBlocks.Block(id: blockID, position: blockPosition, count: count, data: data))
                if current!.loaded.tail.count > PointTail.tailBlocksRead { current!.loaded.tail.removeFirst() }
            }
        }
        try finishCurrent()
        // A device track's latest fixes, not in its blocks yet, end its last segment (where they will be appended).
        for (trackID, fixes) in try await waitingFixes(trackIDs: Array(contents.keys), connection, logger: logger) {
            DeviceIngestRules.appendWaiting(fixes, to: &contents[trackID, default: TrackContent()])
            loaded[trackID, default: LoadedPoints()].waiting = fixes
        }
        return loaded
    }
}

// The documents folder's bookkeeping (`document_files`), as the SQLite store keeps it: which file of a user's
// folder was imported as or written from which track, so that a sync on any instance sees the same state.
extension PostgresRideStore {
    public func documentFiles(userID: UserID) async throws -> [DocumentFile] {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT path, track_id, byte_count, modified_nanoseconds, content_hash, synced_at FROM document_files
                WHERE user_id = \(userID.rawValue) ORDER BY path COLLATE "C"
                """, logger: logger)
            var files: [DocumentFile] = []
            for try await (path, trackID, byteCount, modified, hash, syncedAt) in rows.decode((String, String?, Int64, Int64, String, Int64).self) {
                files.append(
                    DocumentFile(
                        path: path, trackID: try trackID.map { try Self.shortID($0, column: "document_files.track_id") }, byteCount: Int(byteCount),
                        modifiedNanoseconds: modified, contentHash: hash, syncedAt: Self.date(syncedAt)))
            }
            return files
        }
    }

    public func saveDocumentFile(_ file: DocumentFile, userID: UserID) async throws {
        try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            try await connection.query(
                """
                INSERT INTO document_files (user_id, path, track_id, byte_count, modified_nanoseconds, content_hash, synced_at)
                VALUES (\(userID.rawValue), \(file.path), \(file.trackID?.rawValue), \(Int64(file.byteCount)), \(file.modifiedNanoseconds),
                        \(file.contentHash), \(Self.milliseconds(file.syncedAt)))
                ON CONFLICT (user_id, path) DO UPDATE SET
                    track_id = excluded.track_id, byte_count = excluded.byte_count, modified_nanoseconds = excluded.modified_nanoseconds,
                    content_hash = excluded.content_hash, synced_at = excluded.synced_at
                """, logger: logger)
            if let trackID = file.trackID {
                try await connection.query(
                    "UPDATE tracks SET document_name = \(file.path) WHERE id = \(trackID.rawValue) AND user_id = \(userID.rawValue)", logger: logger)
            }
        }
    }

    public func removeDocumentFile(path: String, userID: UserID) async throws {
        try await transaction { [logger] connection in
            _ = try await connection.query("DELETE FROM document_files WHERE user_id = \(userID.rawValue) AND path = \(path)", logger: logger)
        }
    }

    public func tracksWithoutDocument(userID: UserID, limit: Int) async throws -> [TrackSummary] {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.summaryRows(
                connection.query(
                    """
                    SELECT \(unescaped: Self.summaryColumns) FROM tracks
                    WHERE user_id = \(userID.rawValue) AND deleted_at IS NULL AND document_name IS NULL AND state = \(TrackState.complete.rawValue)
                    ORDER BY sort_key, id COLLATE "C" LIMIT \(Int64(max(0, limit)))
                    """, logger: logger)
            ).map(\.summary)
        }
    }
}

extension PostgresRideStore {
    /// `TrackRules.checkUserPoints` against the points the user's tracks hold (less those of `replacing`), with the
    /// user's row locked until the transaction ends: a second write of theirs waits here, then reads the points
    /// this one added, so that two at once cannot both pass the limit.
    static func checkUserPoints(
        adding: Int, replacing: TrackID? = nil, userID: UserID, limit: Int?, _ connection: PostgresConnection, logger: Logger
    ) async throws {
        guard limit != nil else { return }
        try await connection.query("SELECT 1 FROM users WHERE id = \(userID.rawValue) FOR UPDATE", logger: logger)
        let rows = try await connection.query(
            """
            SELECT COALESCE(SUM(point_count), 0)::BIGINT FROM tracks
            WHERE user_id = \(userID.rawValue) AND id IS DISTINCT FROM \(replacing?.rawValue)
            """, logger: logger)
        var stored: Int64 = 0
        for try await sum in rows.decode(Int64.self) { stored = sum }
        try TrackRules.checkUserPoints(stored: Int(stored), adding: adding, limit: limit)
    }
}
