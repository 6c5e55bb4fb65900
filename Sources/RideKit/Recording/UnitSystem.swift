import Foundation

/// Units for people: metric (km, m, km/h) or imperial (mi, ft, mph), and the one place where figures become
/// text for the CLI, the recorder and anything else written in Swift.
///
///     UnitSystem.metric.formatDistance(meters: 1234.5)              // "1.23 km"
///     UnitSystem.imperial.formatSpeed(metersPerSecond: 5)           // "11.2 mph"
///     UnitSystem.metric.formatElevation(meters: 431.6)              // "432 m"
///     UnitSystem.metric.formatPace(secondsPerKilometer: 330)        // "5:30 /km"
///     UnitSystem.formatDuration(seconds: 5097)                      // "1:24:57"
public enum UnitSystem: String, Sendable, Hashable, Codable, CaseIterable {
    case metric
    case imperial

    /// Metres in a foot (international foot).
    public static let footMeters = 0.3048

    /// A distance as people read it: metres under a kilometre ("850 m"), else kilometres with two decimals
    /// ("12.34 km"); feet under a tenth of a mile ("420 ft"), else miles ("7.67 mi"). With `smallUnits` false,
    /// always kilometres or miles ("0.09 km"), as in a column of figures that compare.
    ///
    ///     UnitSystem.metric.formatDistance(meters: 1234.5)    // "1.23 km"
    ///     UnitSystem.imperial.formatDistance(meters: 100)     // "328 ft"
    public func formatDistance(meters: Double, smallUnits: Bool = true) -> String {
        switch self {
        case .metric:
            if smallUnits && meters < 1000 { return "\(Self.whole(meters)) m" }
            return Self.fixed(meters / 1000, decimals: 2) + " km"
        case .imperial:
            let miles = meters / Split.mileMeters
            if smallUnits && miles < 0.1 { return "\(Self.whole(meters / Self.footMeters)) ft" }
            return Self.fixed(miles, decimals: 2) + " mi"
        }
    }

    /// An elevation, a climb or a descent, to the whole metre or foot: "432 m", "1417 ft".
    public func formatElevation(meters: Double) -> String {
        switch self {
        case .metric: return "\(Self.whole(meters)) m"
        case .imperial: return "\(Self.whole(meters / Self.footMeters)) ft"
        }
    }

    /// A speed to a tenth: "21.6 km/h", "13.4 mph".
    public func formatSpeed(metersPerSecond: Double) -> String {
        switch self {
        case .metric: return Self.fixed(metersPerSecond * 3.6, decimals: 1) + " km/h"
        case .imperial: return Self.fixed(metersPerSecond * 3600 / Split.mileMeters, decimals: 1) + " mph"
        }
    }

    /// A pace, minutes and seconds per kilometre or per mile: "5:30 /km", "8:51 /mi".
    public func formatPace(secondsPerKilometer: Double) -> String {
        switch self {
        case .metric: return Self.minutesAndSeconds(secondsPerKilometer) + " /km"
        case .imperial: return Self.minutesAndSeconds(secondsPerKilometer * Split.mileMeters / 1000) + " /mi"
        }
    }

    /// A pace from a speed, as `formatPace(secondsPerKilometer:)`; "-" when standing still.
    public func formatPace(metersPerSecond: Double) -> String {
        guard metersPerSecond > 0, metersPerSecond.isFinite else { return "-" }
        return formatPace(secondsPerKilometer: 1000 / metersPerSecond)
    }

    /// A duration, the same in every unit system: hours, minutes and seconds ("1:24:57", "0:04:05"), to the
    /// nearest second.
    public static func formatDuration(seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int64(seconds.rounded())) : 0
        return "\(total / 3600):" + twoDigits(total / 60 % 60) + ":" + twoDigits(total % 60)
    }

    /// `formatDuration` as a method, for callers that hold a unit system.
    public func formatDuration(seconds: Double) -> String { Self.formatDuration(seconds: seconds) }

    // MARK: - Numbers

    /// Rounded to a whole number; non-finite values read 0 rather than trap.
    private static func whole(_ value: Double) -> Int64 {
        guard value.isFinite else { return 0 }
        return Int64(value.rounded().clamped(to: -9e18...9e18))
    }

    /// `value` with a fixed number of decimals (0–3), rounded half away from zero: "12.35".
    private static func fixed(_ value: Double, decimals: Int) -> String {
        let scale = [1.0, 10, 100, 1000][max(0, min(3, decimals))]
        let scaled = whole(value * scale)
        let sign = scaled < 0 ? "-" : ""
        let magnitude = scaled.magnitude
        let unit = UInt64(scale)
        guard decimals > 0 else { return sign + "\(magnitude)" }
        let fraction = String(magnitude % unit)
        return sign + "\(magnitude / unit)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }

    private static func minutesAndSeconds(_ seconds: Double) -> String {
        let total = seconds.isFinite ? max(0, Int64(seconds.rounded())) : 0
        return "\(total / 60):" + twoDigits(total % 60)
    }

    private static func twoDigits(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}

extension Double {
    fileprivate func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}
