import Foundation

/// A circle around a place a rider keeps to themself (home, work): nothing inside it is shown to anyone else.
public struct PrivacyZone: Sendable, Hashable, Codable {
    /// The centre of the circle.
    public var center: Coordinate
    /// The radius, metres: `PrivacyZone.radiusRange`.
    public var radiusMeters: Double

    public init(center: Coordinate, radiusMeters: Double) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// 100 m – 2 km: smaller hides no house among its neighbours, larger hides a whole town (issue 23).
    public static let radiusRange: ClosedRange<Double> = 100...2_000

    /// Why a zone cannot be stored, or nil when it can: a position out of range or not a number, a radius out of
    /// `radiusRange`.
    public static func problem(latitude: Double, longitude: Double, radiusMeters: Double) -> String? {
        guard latitude.isFinite, (-90...90).contains(latitude) else { return "latitude must be a number from -90 to 90" }
        guard longitude.isFinite, (-180...180).contains(longitude) else { return "longitude must be a number from -180 to 180" }
        guard radiusMeters.isFinite, radiusRange.contains(radiusMeters) else {
            return "radiusMeters must be from \(Int(radiusRange.lowerBound)) to \(Int(radiusRange.upperBound))"
        }
        return nil
    }
}

/// What a rider hides from everyone else: their zones, and the first and last metres of every ride.
public struct PrivacyRules: Sendable, Hashable {
    public var zones: [PrivacyZone]
    /// Metres hidden at the start and at the end of every ride: `hiddenEndRange`.
    public var hiddenEndMeters: Double

    public init(zones: [PrivacyZone] = [], hiddenEndMeters: Double = 0) {
        self.zones = zones
        self.hiddenEndMeters = hiddenEndMeters
    }

    /// 0 – 1,600 m (a mile): the range.
    public static let hiddenEndRange: ClosedRange<Double> = 0...1_600
    /// The most zones a user keeps: every shown point is checked against each.
    public static let maximumZoneCount = 50

    /// Why a hidden length cannot be stored, or nil when it can.
    public static func problem(hiddenEndMeters: Double) -> String? {
        guard hiddenEndMeters.isFinite, hiddenEndRange.contains(hiddenEndMeters) else {
            return "hideEndsMeters must be a number from \(Int(hiddenEndRange.lowerBound)) to \(Int(hiddenEndRange.upperBound))"
        }
        return nil
    }

    /// True when nothing is hidden.
    public var isEmpty: Bool { zones.isEmpty && hiddenEndMeters <= 0 }
}
