import Foundation

/// A pin dropped on the way: where the rider was, and how far they had come.
public struct Breadcrumb: Sendable, Hashable {
    /// Where the pin stands: the fix that was more than the spacing away from the previous pin.
    public var coordinate: Coordinate
    /// The sequence number of that fix.
    public var sequence: Int64
    /// Distance recorded up to the pin, metres.
    public var distanceMeters: Double
    /// "(longitude, latitude)", five decimals (about a metre): the brief's title.
    public var title: String
    /// The distance so far for people, e.g. "1.24 km" or "0.77 mi": the brief's subtitle.
    public var subtitle: String

    public init(coordinate: Coordinate, sequence: Int64, distanceMeters: Double, units: UnitSystem) {
        self.coordinate = coordinate
        self.sequence = sequence
        self.distanceMeters = distanceMeters
        title = Breadcrumb.title(for: coordinate)
        subtitle = units.formatDistance(meters: distanceMeters)
    }

    /// "(longitude, latitude)" with five decimals: `(-122.03118, 37.33182)`.
    public static func title(for coordinate: Coordinate) -> String {
        "(\(fixed(coordinate.longitude)), \(fixed(coordinate.latitude)))"
    }

    private static func fixed(_ value: Double) -> String {
        // Locale-independent, no `e` notation, "-0.00000" written as "0.00000".
        let scaled = (value * 100_000).rounded()
        let negative = scaled < 0
        let magnitude = Int64(abs(scaled))
        let whole = magnitude / 100_000
        let fraction = String(magnitude % 100_000)
        return (negative ? "-" : "") + "\(whole)." + String(repeating: "0", count: 5 - fraction.count) + fraction
    }
}

/// Drops a breadcrumb each time the rider is more than `spacingMeters` from the last one.
///
/// The first fix gets a pin too: it marks the start. Distance is measured in a straight line from the last
/// pin, so riding in circles around it drops nothing.
public struct BreadcrumbTrail: Sendable, Hashable {
    /// 50 m: the brief's breadcrumb spacing.
    public static let defaultSpacingMeters = 50.0

    /// A pin is dropped when the rider is more than this far from the last pin, metres.
    public var spacingMeters: Double
    /// The units of the subtitles.
    public var units: UnitSystem
    /// Every pin dropped so far, in order.
    public private(set) var pins: [Breadcrumb] = []

    public init(spacingMeters: Double = BreadcrumbTrail.defaultSpacingMeters, units: UnitSystem = .metric) {
        self.spacingMeters = spacingMeters
        self.units = units
    }

    /// True when a pin would be dropped at `coordinate`: there is none yet, or the last one is more than
    /// `spacingMeters` away.
    public func isDue(at coordinate: Coordinate) -> Bool {
        guard let last = pins.last else { return true }
        return last.coordinate.distanceMeters(to: coordinate) > spacingMeters
    }

    /// Offers the next position; returns the pin dropped there, if any.
    public mutating func add(_ coordinate: Coordinate, sequence: Int64, distanceMeters: Double) -> Breadcrumb? {
        guard isDue(at: coordinate) else { return nil }
        let pin = Breadcrumb(coordinate: coordinate, sequence: sequence, distanceMeters: distanceMeters, units: units)
        pins.append(pin)
        return pin
    }
}
