import Foundation

/// The one function that decides what of a ride someone other than its owner sees (issue 23): every shared
/// surface (ride pages and their downloads, live shares) passes its points through `clip(_:)` or `hides(_:)`.
///
/// - A point inside a zone is not shown, and neither is a straight line between two shown points that passes
///   through a zone: the ride shows a gap there (a new segment), never a line across.
/// - The first and last `hiddenEndMeters` of the ride are not shown: a point is hidden when it is that close to
///   the start or the end along the ride, or as the crow flies from the first or the last point (a winding
///   street near home stays hidden too); lines across those circles are cut as across a zone.
/// - Each cut is moved outwards by a distance fixed for the ride, from 0 to a quarter of the radius (or of the
///   hidden length), taken from `seed`: several shared rides then end at different distances from home and do
///   not draw its circle. The seed must not be guessable from what is shown (the store derives it from a
///   secret and the ride's id), and is the same each time the ride is shown, so showing it twice reveals no more.
///   The cut only ever grows: no shown point is ever closer to a zone's centre than its radius.
///
/// Cost: O(points × zones).
///
///     let clip = PrivacyClip(rules: PrivacyRules(zones: [home]), seed: 42)
///     clip.clip(ride).segments  // the ride without the part near home
public struct PrivacyClip: Sendable {
    public let rules: PrivacyRules
    /// Each zone's radius for this ride, metres: its radius plus 0–25 %.
    public let zoneRadiiMeters: [Double]
    /// The hidden length at each end for this ride, metres: `hiddenEndMeters` plus 0–25 % (0 when none).
    public let hiddenEndMeters: Double

    /// Which ends of the ride are cut: both for a finished ride, only the start for a live one still moving (its
    /// end is where the rider is now).
    public enum Ends: Sendable { case both, startOnly }

    public init(rules: PrivacyRules, seed: UInt64) {
        self.rules = rules
        var state = seed
        // 2–100 % of the quarter: never exactly the radius, so that a rounding in a distance cannot show a
        // point on the circle itself.
        func nextFraction() -> Double { 0.02 + 0.98 * Double(Self.splitMix(&state) >> 11) / Double(1 << 53) }
        hiddenEndMeters = rules.hiddenEndMeters > 0 ? rules.hiddenEndMeters * (1 + 0.25 * nextFraction()) : 0
        zoneRadiiMeters = rules.zones.map { $0.radiusMeters * (1 + 0.25 * nextFraction()) }
    }

    /// True when `coordinate` lies in one of the zones (as moved for this ride): a live position there is not shown.
    public func hides(_ coordinate: Coordinate) -> Bool {
        for (zone, radius) in zip(rules.zones, zoneRadiiMeters) where Self.distance(zone.center, coordinate) < radius {
            return true
        }
        return false
    }

    /// What may be shown of `segments`: the same points in the same order, without those hidden, split into a new
    /// segment wherever something between two points was hidden. No empty segment is returned.
    public func clip(_ segments: [[TrackPoint]], ends: Ends = .both) -> [[TrackPoint]] {
        if rules.isEmpty { return segments.filter { !$0.isEmpty } }
        // Circles to avoid: the zones, and around the first and last point the hidden length.
        var circles = Array(zip(rules.zones.map(\.center), zoneRadiiMeters))
        var alongStart = 0.0, alongEnd = Double.infinity
        let valid = segments.lazy.flatMap { $0 }.filter(\.coordinate.isValid)
        if hiddenEndMeters > 0, let first = valid.first, let last = segments.reversed().lazy.flatMap({ $0.reversed() }).first(where: \.coordinate.isValid) {
            circles.append((first.coordinate, hiddenEndMeters))
            var total = 0.0
            var previous: Coordinate?
            for segment in segments {
                for point in segment where point.coordinate.isValid {
                    if let previous { total += Self.distance(previous, point.coordinate) }
                    previous = point.coordinate
                }
            }
            alongStart = hiddenEndMeters
            if ends == .both {
                circles.append((last.coordinate, hiddenEndMeters))
                alongEnd = total - hiddenEndMeters
            }
        }
        var result: [[TrackPoint]] = []
        var run: [TrackPoint] = []
        var along = 0.0
        var previous: Coordinate?
        for segment in segments {
            if !run.isEmpty { result.append(run); run = [] }
            for point in segment {
                let here = point.coordinate
                guard here.isValid else { continue }
                if let previous { along += Self.distance(previous, here) }
                previous = here
                let shown = along >= alongStart && along <= alongEnd
                    && !circles.contains { Self.distance($0.0, here) < $0.1 }
                guard shown else {
                    if !run.isEmpty { result.append(run); run = [] }
                    continue
                }
                if let before = run.last, circles.contains(where: { Self.lineComesNear(before.coordinate, here, center: $0.0, radius: $0.1) }) {
                    result.append(run)
                    run = []
                }
                run.append(point)
            }
        }
        if !run.isEmpty { result.append(run) }
        return result
    }

    /// `track` with its segments clipped (`clip(_:ends:)`), everything else kept.
    public func clip(_ track: Track, ends: Ends = .both) -> Track {
        var clipped = track
        clipped.segments = clip(track.segments.map(\.points), ends: ends).map { TrackSegment(points: $0) }
        return clipped
    }

    // MARK: Geometry

    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        EllipsoidalDistance.meters(fromLatitude: a.latitude, longitude: a.longitude, toLatitude: b.latitude, longitude: b.longitude)
    }

    /// True when the straight line from `a` to `b` (as a map draws it) passes within `radius` of `center`, with a
    /// margin for the flat approximation: east and north metres on the plane tangent at the centre (longitudes
    /// taken across the antimeridian the short way).
    static func lineComesNear(_ a: Coordinate, _ b: Coordinate, center: Coordinate, radius: Double) -> Bool {
        let scale = LocalScale(latitudeDegrees: center.latitude)
        func plane(_ c: Coordinate) -> (x: Double, y: Double) {
            (scale.metersPerRadianEast * EllipsoidalDistance.longitudeDifferenceRadians(from: center.longitude, to: c.longitude),
             scale.metersPerRadianNorth * (c.latitude - center.latitude) * (.pi / 180))
        }
        let p = plane(a), q = plane(b)
        let dx = q.x - p.x, dy = q.y - p.y
        let lengthSquared = dx * dx + dy * dy
        guard lengthSquared > 0 else { return false }
        // Both ends are outside (they are shown): the line enters the circle only if its nearest point to the
        // centre lies between them and inside.
        let t = -(p.x * dx + p.y * dy) / lengthSquared
        guard t > 0, t < 1 else { return false }
        let x = p.x + t * dx, y = p.y + t * dy
        let closest = (x * x + y * y).squareRoot()
        // The plane drifts from the ellipsoid with distance from the centre: a margin of 1 % of the hop's length.
        return closest < radius + 0.01 * lengthSquared.squareRoot()
    }

    /// SplitMix64: spreads a seed into independent fractions.
    static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
