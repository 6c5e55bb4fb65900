import Foundation

/// Units for people: metric (km, m, km/h) or imperial (mi, ft, mph).
public enum UnitSystem: String, Sendable, Hashable, Codable, CaseIterable {
    case metric
    case imperial

    /// A distance as people read it: metres under a kilometre ("850 m"), else kilometres with two decimals
    /// ("12.34 km"); feet under a tenth of a mile ("420 ft"), else miles ("7.67 mi").
    ///
    ///     UnitSystem.metric.formatDistance(meters: 1234.5)    // "1.23 km"
    ///     UnitSystem.imperial.formatDistance(meters: 100)     // "328 ft"
    public func formatDistance(meters: Double) -> String {
        switch self {
        case .metric:
            if meters < 1000 { return "\(Int(meters.rounded())) m" }
            return Self.twoDecimals(meters / 1000) + " km"
        case .imperial:
            let miles = meters / Split.mileMeters
            if miles < 0.1 { return "\(Int((meters / 0.3048).rounded())) ft" }
            return Self.twoDecimals(miles) + " mi"
        }
    }

    private static func twoDecimals(_ value: Double) -> String {
        let hundredths = Int64((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }
}
