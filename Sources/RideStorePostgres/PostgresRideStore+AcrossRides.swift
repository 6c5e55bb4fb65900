import Foundation
import PostgresNIO
import RideKit
import RideStore

// Best efforts, records, weekly goals and the overview's rows on PostgreSQL: the rules of `EffortRules` and
// `GoalRules` (RideStore's Core/), this store's SQL, the same queries as SQLite's.
extension PostgresRideStore {
    /// Replaces a track's effort rows by those of its stored figures: called wherever the track's row is written.
    static func writeEfforts(trackID: TrackID, stats: Data, _ connection: PostgresConnection, logger: Logger) async throws {
        try await writeEfforts([(trackID, stats)], connection, logger: logger)
    }

    /// `writeEfforts` for several tracks in one statement (it was one a row, a couple of dozen a track): the rows of
    /// keys a track no longer has deleted, the others written over, each track's efforts version set. No start or
    /// end travels as NaN.
    static func writeEfforts(_ tracks: [(TrackID, Data)], _ connection: PostgresConnection, logger: Logger) async throws {
        guard !tracks.isEmpty else { return }
        var ids: [String] = [], versions: [Int32] = []
        var rowTracks: [String] = [], keys: [String] = [], values: [Double] = [], scores: [Double] = [], starts: [Double] = [], ends: [Double] = []
        for (trackID, stats) in tracks {
            let (rows, version) = EffortRules.measured(fromStats: stats)
            ids.append(trackID.rawValue)
            versions.append(Int32(version))
            for row in rows {
                rowTracks.append(trackID.rawValue)
                keys.append(row.key)
                values.append(row.value)
                scores.append(row.score)
                starts.append(row.start ?? .nan)
                ends.append(row.end ?? .nan)
            }
        }
        try await connection.query(
            """
            WITH fresh AS (
                SELECT * FROM unnest(\(rowTracks)::text[], \(keys)::text[], \(values)::float8[], \(scores)::float8[], \(starts)::float8[],
                                     \(ends)::float8[]) AS r (t, k, v, s, b, e)),
            gone AS (
                DELETE FROM track_efforts WHERE track_id = ANY(\(ids)::text[])
                AND NOT EXISTS (SELECT 1 FROM fresh WHERE fresh.t = track_efforts.track_id AND fresh.k = track_efforts.key)),
            kept AS (
                INSERT INTO track_efforts (track_id, key, value, score, start_offset, end_offset)
                SELECT t, k, v, s, NULLIF(b, 'NaN'), NULLIF(e, 'NaN') FROM fresh
                ON CONFLICT (track_id, key) DO UPDATE
                SET value = excluded.value, score = excluded.score, start_offset = excluded.start_offset, end_offset = excluded.end_offset)
            UPDATE tracks SET efforts_version = v.version
            FROM unnest(\(ids)::text[], \(versions)::int4[]) AS v (id, version)
            WHERE tracks.id = v.id AND tracks.efforts_version <> v.version
            """, logger: logger)
    }

    public func personalRecords(kind: TrackKind, userID: UserID) async throws -> [PersonalRecord] {
        try await transaction(readOnly: true) { [logger] connection in
            // As on SQLite: per key down the (key, score) index, the second best score, then every effort at least
            // that good, ties broken by `EffortRules.best`.
            // One statement for every key (one round trip): per key, the floor is the second best score (or the
            // best, alone), read down the (key, score) index; then the efforts at least that good.
            let live = "deleted_at IS NULL AND state = '\(TrackState.complete.rawValue)' AND "
                + StatisticsRules.sqlCondition(kind: "kind", source: "source")
            let rows = try await connection.query(
                """
                SELECT e.key, e.value, e.score, e.start_offset, e.end_offset, t.id, t.name, t.start_time, t.sort_key
                FROM unnest(\(EffortKey.allCases.map(\.rawValue))::text[]) AS k(key)
                CROSS JOIN LATERAL (
                    SELECT min(best.score) AS floor FROM (
                        SELECT e2.score FROM track_efforts e2 JOIN tracks t2 ON t2.id = e2.track_id
                        WHERE e2.key = k.key AND t2.user_id = \(userID.rawValue) AND t2.kind = \(kind.rawValue) AND t2.\(unescaped: live)
                        ORDER BY e2.score DESC LIMIT 2) best
                ) f
                JOIN track_efforts e ON e.key = k.key AND e.score >= f.floor
                JOIN tracks t ON t.id = e.track_id
                WHERE t.user_id = \(userID.rawValue) AND t.kind = \(kind.rawValue) AND t.\(unescaped: live)
                """, logger: logger)
            var candidates: [EffortRules.Candidate] = []
            for try await (key, value, score, start, end, trackID, name, startTime, sortKey) in rows.decode(
                (String, Double, Double, Double?, Double?, String, String, String?, Int64).self)
            {
                candidates.append(
                    EffortRules.Candidate(
                        key: key, value: value, score: score, start: start, end: end, trackID: trackID, name: name, startTime: startTime,
                        sortKey: sortKey))
            }
            return EffortRules.best(candidates)
        }
    }

    public func rankedEfforts(trackID: TrackID, userID: UserID) async throws -> [RankedEffort] {
        try await transaction(readOnly: true) { [logger] connection in
            // As on SQLite: better is a higher score, or the same score on a track that started earlier.
            let rows = try await connection.query(
                """
                SELECT e.key, e.value, e.start_offset, e.end_offset, 1 + (
                    SELECT count(*) FROM (
                        SELECT 1 FROM track_efforts o JOIN tracks u ON u.id = o.track_id
                        WHERE o.key = e.key AND o.score >= e.score AND u.id <> t.id AND u.user_id = t.user_id AND u.kind = t.kind
                            AND u.deleted_at IS NULL AND u.state = \(TrackState.complete.rawValue) AND u.sort_key <= t.sort_key
                            AND \(unescaped: StatisticsRules.sqlCondition(kind: "u.kind", source: "u.source"))
                            AND (o.score > e.score OR u.sort_key < t.sort_key OR u.id < t.id)
                        LIMIT 2) better
                ), t.kind, t.source FROM tracks t JOIN track_efforts e ON e.track_id = t.id
                WHERE t.id = \(trackID.rawValue) AND t.user_id = \(userID.rawValue)
                """, logger: logger)
            var ranked: [RankedEffort] = []
            for try await (key, value, start, end, rank, kind, source) in rows.decode((String, Double, Double?, Double?, Int64, String, String).self) {
                if let effort = EffortRules.ranked(key: key, value: value, start: start, end: end, rank: Int(rank), kind: kind, source: source) {
                    ranked.append(effort)
                }
            }
            let order = Dictionary(uniqueKeysWithValues: EffortKey.allCases.enumerated().map { ($1, $0) })
            return ranked.sorted { order[$0.effort.key]! < order[$1.effort.key]! }
        }
    }

    public func overviewTracks(userID: UserID) async throws -> [OverviewTrack] {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id, kind, start_time, min_longitude, max_longitude, distance_meters, moving_seconds, ascent_meters,
                    (min_latitude + max_latitude) / 2
                FROM tracks
                WHERE user_id = \(userID.rawValue) AND deleted_at IS NULL AND state = \(TrackState.complete.rawValue)
                    AND \(unescaped: StatisticsRules.sqlCondition(kind: "kind", source: "source")) AND start_time IS NOT NULL
                ORDER BY sort_key, id
                """, logger: logger)
            var tracks: [OverviewTrack] = []
            for try await (id, kind, startTime, west, east, distance, moving, ascent, latitude) in rows.decode(
                (String, String, String, Double?, Double?, Double, Double, Double, Double?).self)
            {
                guard let id = TrackID(id), let kind = TrackKind(rawValue: kind) else { continue }
                tracks.append(
                    OverviewTrack(
                        id: id, kind: kind, startTime: startTime, latitude: latitude, longitude: west.flatMap { w in east.map { (w + $0) / 2 } },
                        distanceMeters: distance, movingSeconds: moving, ascentMeters: ascent))
            }
            return tracks
        }
    }

    public func remeasureEfforts(limit: Int) async throws -> Int {
        let current = Int32(BestEfforts.currentVersion)
        let ids = try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT id FROM tracks WHERE efforts_version < \(current) AND state = \(TrackState.complete.rawValue)
                ORDER BY id LIMIT \(Int64(max(0, limit)))
                """, logger: logger)
            var ids: [TrackID] = []
            for try await id in rows.decode(String.self) { ids.append(try Self.shortID(id, column: "tracks.id")) }
            return ids
        }
        for id in ids {
            // Read and measured outside the writing transaction, which holds the row only to write it.
            let read = try await transaction(readOnly: true) { [logger] connection -> (TrackRecord, TrackContent)? in
                guard let record = try await Self.trackRecord(connection, id: id, logger: logger) else { return nil }
                var content = try TrackFigures.emptyContent(of: record, readingHeaders: false)
                try await Self.loadPoints(into: &content, trackID: id, connection, logger: logger)
                return (record, content)
            }
            guard let (stored, content) = read else { continue }
            var record = stored
            do {
                try EffortRules.remeasure(&record, content: content)
            } catch {
                // Points that cannot be measured (damaged blocks): given up on, so that the backfill ends.
                try await transaction { [logger] connection in
                    try await connection.query("UPDATE tracks SET efforts_version = \(current) WHERE id = \(id.rawValue)", logger: logger)
                }
                continue
            }
            let measured = record
            try await transaction { [logger] connection in
                // Changed meanwhile (its points replaced, renamed): left for the next call, which reads it again.
                guard let now = try await Self.trackRecord(connection, id: id, forUpdate: true, logger: logger), now.stats == stored.stats,
                    now.updatedAt == stored.updatedAt, now.pointCount == stored.pointCount, now.kind == stored.kind
                else { return }
                try await Self.updateTrackRecord(measured, connection, logger: logger)
            }
        }
        return ids.count
    }

    public func invalidateEfforts(userID: UserID) async throws -> Int {
        try await transaction { [logger] connection in
            let rows = try await connection.query(
                "UPDATE tracks SET efforts_version = 0 WHERE user_id = \(userID.rawValue) RETURNING 1", logger: logger)
            var count = 0
            for try await _ in rows { count += 1 }
            return count
        }
    }

    public func weeklyGoals(userID: UserID) async throws -> [WeeklyGoal] {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                "SELECT kind, measure, target FROM user_goals WHERE user_id = \(userID.rawValue) ORDER BY kind", logger: logger)
            var goals: [WeeklyGoal] = []
            for try await (kind, measure, target) in rows.decode((String, String, Double).self) {
                guard let kind = TrackKind(rawValue: kind), let measure = WeeklyGoal.Measure(rawValue: measure) else { continue }
                goals.append(WeeklyGoal(kind: kind, measure: measure, target: target))
            }
            return goals
        }
    }

    public func setWeeklyGoal(_ goal: WeeklyGoal?, kind: TrackKind, userID: UserID) async throws {
        if let goal {
            guard goal.kind == kind else { throw RideStoreError.invalid(field: "kind", reason: "the goal is for another kind") }
            try GoalRules.validate(goal)
        }
        try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            if let goal {
                try await connection.query(
                    """
                    INSERT INTO user_goals (user_id, kind, measure, target)
                    VALUES (\(userID.rawValue), \(kind.rawValue), \(goal.measure.rawValue), \(goal.target))
                    ON CONFLICT (user_id, kind) DO UPDATE SET measure = excluded.measure, target = excluded.target
                    """, logger: logger)
            } else {
                try await connection.query(
                    "DELETE FROM user_goals WHERE user_id = \(userID.rawValue) AND kind = \(kind.rawValue)", logger: logger)
            }
        }
    }
}
