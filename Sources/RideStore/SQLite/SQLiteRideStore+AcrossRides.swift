import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Best efforts per track (derived from the track's stored figures whenever its row is written) and weekly
    /// goals per user and kind.
    static func registerAcrossRidesMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9 best efforts and weekly goals") { db in
            try db.create(table: "trackEffort") { t in
                t.column("trackId", .text).notNull().references("track", onDelete: .cascade)
                t.column("key", .text).notNull()
                t.column("value", .double).notNull()
                // Higher is better, whichever way the key counts (`EffortRules.score`).
                t.column("score", .double).notNull()
                t.column("startOffset", .double)
                t.column("endOffset", .double)
                t.primaryKey(["trackId", "key"])
            }
            // The records: the best scores of a key first.
            try db.create(index: "trackEffort_best", on: "trackEffort", columns: ["key", "score"])
            try db.create(table: "userGoal") { t in
                t.column("userId", .text).notNull().references("user", onDelete: .cascade)
                t.column("kind", .text).notNull()
                t.column("measure", .text).notNull()
                t.column("target", .double).notNull()
                t.primaryKey(["userId", "kind"])
            }
            // Tracks saved before efforts were measured get theirs from `remeasureEfforts` (v12).
        }
    }

    /// The version of the measurement that made each track's efforts (`TrackStats.effortsVersion`, 0 for none), so that
    /// tracks saved before efforts, or measured by an older version, are found down an index and measured again.
    static func registerEffortsVersionMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12 efforts version") { db in
            try db.alter(table: "track") { t in t.add(column: "effortsVersion", .integer).notNull().defaults(to: 0) }
            try db.create(index: "track_effortsVersion", on: "track", columns: ["effortsVersion"])
            // Efforts stored before the version was kept are version 1's.
            try db.execute(sql: "UPDATE track SET effortsVersion = 1 WHERE id IN (SELECT trackId FROM trackEffort)")
        }
    }

    /// Replaces a track's effort rows by those of its stored figures (`TrackRecord.aroundSave`).
    static func writeEfforts(_ db: Database, trackID: TrackID, stats: Data) throws {
        try db.execute(sql: "DELETE FROM trackEffort WHERE trackId = ?", arguments: [trackID])
        let (rows, version) = EffortRules.measured(fromStats: stats)
        try db.execute(sql: "UPDATE track SET effortsVersion = ? WHERE id = ? AND effortsVersion != ?", arguments: [version, trackID, version])
        guard !rows.isEmpty else { return }
        let statement = try db.cachedStatement(
            sql: "INSERT INTO trackEffort (trackId, key, value, score, startOffset, endOffset) VALUES (?, ?, ?, ?, ?, ?)")
        for row in rows {
            try statement.execute(arguments: [trackID, row.key, row.value, row.score, row.start, row.end])
        }
    }

    public func personalRecords(kind: TrackKind, userID: UserID) async throws -> [PersonalRecord] {
        try await read { db in
            // Per key, down the (key, score) index: the second best score, then every effort at least that good (two,
            // or more on a tie, which `EffortRules.best` breaks by start). A few rows read per key, whatever the library.
            let live = "t.userId = ? AND t.kind = ? AND t.deletedAt IS NULL AND t.state = ? AND "
                + StatisticsRules.sqlCondition(kind: "t.kind", source: "t.source")
            var candidates: [EffortRules.Candidate] = []
            for key in EffortKey.allCases {
                let arguments: StatementArguments = [key.rawValue, userID, kind, TrackState.complete]
                let scores = try Double.fetchAll(
                    db,
                    sql: """
                        SELECT e.score FROM trackEffort e JOIN track t ON t.id = e.trackId
                        WHERE e.key = ? AND \(live) ORDER BY e.score DESC LIMIT 2
                        """, arguments: arguments)
                guard let floor = scores.last else { continue }
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT e.key, e.value, e.score, e.startOffset, e.endOffset, t.id, t.name, t.startTime, t.sortKey
                        FROM trackEffort e JOIN track t ON t.id = e.trackId
                        WHERE e.key = ? AND \(live) AND e.score >= ?
                        """, arguments: arguments + [floor])
                candidates += rows.map { row in
                    EffortRules.Candidate(
                        key: row[0], value: row[1], score: row[2], start: row[3], end: row[4], trackID: row[5], name: row[6], startTime: row[7],
                        sortKey: row[8])
                }
            }
            return EffortRules.best(candidates)
        }
    }

    public func rankedEfforts(trackID: TrackID, userID: UserID) async throws -> [RankedEffort] {
        try await read { db in
            // Better: a higher score, or the same score on a track that started earlier (it was first). Counted up
            // to two: the page marks a PR and a second best, and "third or worse" costs no more than that.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT e.key, e.value, e.startOffset, e.endOffset, 1 + (
                        SELECT COUNT(*) FROM (
                            SELECT 1 FROM trackEffort o JOIN track u ON u.id = o.trackId
                            WHERE o.key = e.key AND o.score >= e.score AND u.id != t.id AND u.userId = t.userId AND u.kind = t.kind
                                AND u.deletedAt IS NULL AND u.state = ? AND u.sortKey <= t.sortKey
                                AND \(StatisticsRules.sqlCondition(kind: "u.kind", source: "u.source"))
                                AND (o.score > e.score OR u.sortKey < t.sortKey OR u.id < t.id)
                            LIMIT 2)
                    ), t.kind, t.source FROM track t JOIN trackEffort e ON e.trackId = t.id
                    WHERE t.id = ? AND t.userId = ?
                    """, arguments: [TrackState.complete, trackID, userID])
            let ranked = rows.compactMap { row in
                EffortRules.ranked(key: row[0], value: row[1], start: row[2], end: row[3], rank: row[4], kind: row[5], source: row[6])
            }
            let order = Dictionary(uniqueKeysWithValues: EffortKey.allCases.enumerated().map { ($1, $0) })
            return ranked.sorted { order[$0.effort.key]! < order[$1.effort.key]! }
        }
    }

    public func overviewTracks(userID: UserID) async throws -> [OverviewTrack] {
        try await read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, kind, startTime, minLongitude, maxLongitude, distanceMeters, movingSeconds, ascentMeters, minLatitude, maxLatitude
                    FROM track INDEXED BY track_list
                    WHERE userId = ? AND deletedAt IS NULL AND state = ? AND startTime IS NOT NULL
                        AND \(StatisticsRules.sqlCondition(kind: "kind", source: "source"))
                    ORDER BY sortKey, id
                    """, arguments: [userID, TrackState.complete])
            var tracks: [OverviewTrack] = []
            while let row = try rows.next() {
                guard let id = TrackID(row[0] as String), let kind = TrackKind(rawValue: row[1]) else { continue }
                let west: Double? = row[3], east: Double? = row[4], south: Double? = row[8], north: Double? = row[9]
                tracks.append(
                    OverviewTrack(
                        id: id, kind: kind, startTime: row[2], latitude: south.flatMap { s in north.map { (s + $0) / 2 } }, longitude: west.flatMap { w in east.map { (w + $0) / 2 } },
                        distanceMeters: row[5], movingSeconds: row[6], ascentMeters: row[7]))
            }
            return tracks
        }
    }

    public func remeasureEfforts(limit: Int) async throws -> Int {
        let ids = try await read { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM track WHERE effortsVersion < ? AND state = ? ORDER BY id LIMIT ?",
                arguments: [BestEfforts.currentVersion, TrackState.complete, max(0, limit)])
        }
        for id in ids.compactMap({ TrackID($0) }) {
            // Read and measured outside the write transaction: the writer is held only for the rows.
            guard let (stored, content) = try await read({ db -> (TrackRecord, TrackContent)? in
                guard let record = try TrackRecord.fetchOne(db, key: id) else { return nil }
                var content = try TrackFigures.emptyContent(of: record, readingHeaders: false)
                try Self.loadPoints(into: &content, trackID: id, db)
                return (record, content)
            }) else { continue }
            var record = stored
            do {
                try EffortRules.remeasure(&record, content: content)
            } catch {
                // Points that cannot be measured (damaged blocks): given up on, so that the backfill ends.
                try await write { db in
                    try db.execute(sql: "UPDATE track SET effortsVersion = ? WHERE id = ?", arguments: [BestEfforts.currentVersion, id])
                }
                continue
            }
            let measured = record
            try await write { db in
                // Changed meanwhile (its points replaced, renamed): left for the next call, which reads it again.
                guard let current = try TrackRecord.fetchOne(db, key: id), current.stats == stored.stats,
                    current.updatedAt == stored.updatedAt, current.pointCount == stored.pointCount, current.kind == stored.kind
                else { return }
                try measured.update(db)
            }
        }
        return ids.count
    }

    public func invalidateEfforts(userID: UserID) async throws -> Int {
        try await write { db in
            try db.execute(sql: "UPDATE track SET effortsVersion = 0 WHERE userId = ?", arguments: [userID])
            return db.changesCount
        }
    }

    public func weeklyGoals(userID: UserID) async throws -> [WeeklyGoal] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT kind, measure, target FROM userGoal WHERE userId = ? ORDER BY kind", arguments: [userID])
                .compactMap { row in
                    guard let kind = TrackKind(rawValue: row[0]), let measure = WeeklyGoal.Measure(rawValue: row[1]) else { return nil }
                    return WeeklyGoal(kind: kind, measure: measure, target: row[2])
                }
        }
    }

    public func setWeeklyGoal(_ goal: WeeklyGoal?, kind: TrackKind, userID: UserID) async throws {
        if let goal {
            guard goal.kind == kind else { throw RideStoreError.invalid(field: "kind", reason: "the goal is for another kind") }
            try GoalRules.validate(goal)
        }
        try await write { db in
            try Self.requireUser(db, userID)
            if let goal {
                try db.execute(
                    sql: """
                        INSERT INTO userGoal (userId, kind, measure, target) VALUES (?, ?, ?, ?)
                        ON CONFLICT (userId, kind) DO UPDATE SET measure = excluded.measure, target = excluded.target
                        """, arguments: [userID, kind, goal.measure.rawValue, goal.target])
            } else {
                try db.execute(sql: "DELETE FROM userGoal WHERE userId = ? AND kind = ?", arguments: [userID, kind])
            }
        }
    }
}
