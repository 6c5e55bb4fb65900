import Foundation
import RideKit

/// The one rule of which tracks count toward the rider's statistics, which every aggregate of both stores follows:
/// the Tracks tab's totals, records (`/api/records`) and a track page's "PR" marks, the overview (totals, calendar,
/// year against year, weekly goal, Eddington number), the heatmap and explorer tiles.
///
/// A route is a plan, not a ride. A simulated ride (the Record tab's demo mode) was never ridden: it stays out
/// until the rider keeps it as a real ride (its source set to `recording`, `TrackRules.validate(sourceChange:)`).
/// Each query adds its own conditions on state (complete, or a device's track in progress for the totals) and
/// deletion; this says which kinds and sources count.
package enum StatisticsRules {
    /// Kinds that never count.
    package static let excludedKinds: [TrackKind] = [.route]
    /// Sources that never count.
    package static let excludedSources: [TrackSource] = [.simulation]

    /// Whether a track of this kind and source counts.
    package static func counts(kind: TrackKind, source: TrackSource) -> Bool {
        !excludedKinds.contains(kind) && !excludedSources.contains(source)
    }

    /// `counts` as an SQL condition on a row's kind and source columns (`t.kind`, `source`), the same text on SQLite
    /// and PostgreSQL: the values are this enum's own constants (plain lower-case words), never user input.
    ///
    ///     StatisticsRules.sqlCondition(kind: "t.kind", source: "t.source")
    ///     // "t.kind NOT IN ('route') AND t.source NOT IN ('simulation')"
    package static func sqlCondition(kind: String, source: String) -> String {
        func list(_ values: [String]) -> String { values.map { "'\($0)'" }.joined(separator: ", ") }
        return "\(kind) NOT IN (\(list(excludedKinds.map(\.rawValue)))) AND \(source) NOT IN (\(list(excludedSources.map(\.rawValue))))"
    }
}
