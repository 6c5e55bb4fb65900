import Foundation
import RideKit

/// How a track's best efforts are kept beside it (`trackEffort` / `track_efforts`), the same in both stores: one
/// row per effort, derived from the efforts inside the track's stored figures whenever its row is written, with a
/// `score` that is higher for better whichever way the key counts, so that "best" is one index order.
package enum EffortRules {
    /// A row of the efforts table.
    package struct Row: Sendable, Hashable {
        package var key: String
        package var value: Double
        package var score: Double
        package var start: Double?
        package var end: Double?
    }

    /// The rows of a track's stored figures (`TrackRecord.stats`) and the version that measured them: no rows and
    /// version 0 when they hold no efforts (a recording in progress, figures stored before efforts were measured).
    package static func measured(fromStats stats: Data) -> (rows: [Row], version: Int) {
        // Most writes of a track's row (a recording's points arriving) carry no efforts: not worth a decode.
        guard stats.range(of: Data("\"efforts\"".utf8)) != nil,
            let decoded = try? JSONDecoder().decode(EffortsOnly.self, from: stats), let efforts = decoded.efforts
        else { return ([], 0) }
        let rows = efforts.filter { $0.value.isFinite }.map { effort in
            Row(key: effort.key.rawValue, value: effort.value, score: score(effort.key, effort.value), start: effort.start, end: effort.end)
        }
        // Efforts stored before their version was kept are version 1's (as `TrackStats` decodes them).
        return (rows, decoded.effortsVersion ?? 1)
    }

    // MARK: Measuring again (tracks saved before efforts, or by an older measurement)

    /// A track's row with its efforts measured again by the current version (`BestEfforts.currentVersion`) from
    /// its points; only the efforts change, the other figures stay as stored. A track without a position keeps the
    /// efforts its device gave (there is nothing else to measure them from) and is marked current. The content is
    /// the track's points (`TrackFigures.emptyContent` with the points loaded).
    package static func remeasure(_ record: inout TrackRecord, content: TrackContent) throws {
        guard var stats = try? JSONDecoder().decode(TrackStats.self, from: record.stats) else {
            // Figures that do not decode: all of them computed again.
            try TrackFigures.apply(content, headersRead: false, to: &record)
            return
        }
        if content.trackPointCount > 0 || !content.routes.isEmpty {
            stats.efforts = try TrackLibrary.stats(of: content, kind: record.kind).efforts ?? BestEfforts()
        } else if stats.efforts == nil {
            stats.efforts = BestEfforts()
        }
        stats.effortsVersion = BestEfforts.currentVersion
        try record.apply(stats)
    }

    /// Higher is better.
    package static func score(_ key: EffortKey, _ value: Double) -> Double { key.lowerIsBetter ? -value : value }

    private struct EffortsOnly: Decodable { var efforts: [BestEffort]?; var effortsVersion: Int? }

    /// Records from rows read in key then rank order, with keys the store does not know (a newer bikeride's) left out.
    package static func record(key: String, rank: Int, value: Double, start: Double?, end: Double?, trackID: String, name: String, startTime: String?) -> PersonalRecord? {
        guard let key = EffortKey(rawValue: key), let id = TrackID(trackID) else { return nil }
        return PersonalRecord(key: key, rank: rank, value: value, start: start, end: end, trackID: id, trackName: name, startTime: startTime)
    }

    /// An effort that may be a record, as a store read it.
    package struct Candidate: Sendable {
        package var key: String, value: Double, score: Double, start: Double?, end: Double?
        package var trackID: String, name: String, startTime: String?, sortKey: Int64

        package init(
            key: String, value: Double, score: Double, start: Double?, end: Double?, trackID: String, name: String, startTime: String?, sortKey: Int64
        ) {
            self.key = key
            self.value = value
            self.score = score
            self.start = start
            self.end = end
            self.trackID = trackID
            self.name = name
            self.startTime = startTime
            self.sortKey = sortKey
        }
    }

    /// The best two of each key among `candidates` (each key's efforts at least as good as its second best): higher
    /// score first, on a tie the track that started first (it set the record), then the smaller id.
    package static func best(_ candidates: [Candidate]) -> [PersonalRecord] {
        var records: [PersonalRecord] = []
        for (_, group) in Dictionary(grouping: candidates, by: \.key) {
            let ranked = group.sorted { ($0.score, -$0.sortKey) > ($1.score, -$1.sortKey) || (($0.score, $0.sortKey) == ($1.score, $1.sortKey) && $0.trackID < $1.trackID) }
            for (index, candidate) in ranked.prefix(2).enumerated() {
                if let record = record(
                    key: candidate.key, rank: index + 1, value: candidate.value, start: candidate.start, end: candidate.end, trackID: candidate.trackID,
                    name: candidate.name, startTime: candidate.startTime)
                {
                    records.append(record)
                }
            }
        }
        return sorted(records)
    }

    /// In `EffortKey` order, then rank.
    package static func sorted(_ records: [PersonalRecord]) -> [PersonalRecord] {
        let order = Dictionary(uniqueKeysWithValues: EffortKey.allCases.enumerated().map { ($1, $0) })
        return records.sorted { (order[$0.key]!, $0.rank) < (order[$1.key]!, $1.rank) }
    }

    /// A track's effort as stored, with its rank among the user's efforts of that key (1 the best).
    ///
    /// A track that does not count toward the statistics (`StatisticsRules`: a simulated ride, a route) ranks 0: it
    /// holds no record, whatever its efforts.
    package static func ranked(
        key: String, value: Double, start: Double?, end: Double?, rank: Int, kind: String, source: String
    ) -> RankedEffort? {
        guard let key = EffortKey(rawValue: key) else { return nil }
        let counts = TrackKind(rawValue: kind).flatMap { kind in TrackSource(rawValue: source).map { StatisticsRules.counts(kind: kind, source: $0) } } ?? false
        return RankedEffort(effort: BestEffort(key: key, value: value, start: start, end: end), rank: counts ? rank : 0)
    }
}

/// What a weekly goal may be.
package enum GoalRules {
    /// 10,000 km a week: over any human's riding (the Race Across America's winners ride about 5,000 km in 8 days).
    package static let maximumDistanceMeters = 10_000_000.0
    /// A week has 168 hours.
    package static let maximumSeconds = 7 * 86_400.0

    package static func validate(_ goal: WeeklyGoal) throws {
        guard goal.kind != .route else { throw RideStoreError.invalid(field: "kind", reason: "a route is a plan: it has no goal") }
        guard goal.target.isFinite, goal.target > 0 else { throw RideStoreError.invalid(field: "target", reason: "must be a number over 0") }
        switch goal.measure {
        case .distance:
            guard goal.target <= maximumDistanceMeters else { throw RideStoreError.invalid(field: "target", reason: "is over 10,000 km a week") }
        case .time:
            guard goal.target <= maximumSeconds else { throw RideStoreError.invalid(field: "target", reason: "is over the 168 hours of a week") }
        }
    }
}
