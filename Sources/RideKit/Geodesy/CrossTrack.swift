import Foundation

extension Coordinate {
    /// Signed distance in metres from this point to the great circle through `start` and `end`: positive
    /// when the point is to the right of the direction of travel, negative to the left.
    ///
    /// Spherical on the mean radius (within 0.6 % of the ellipsoid, plenty to tell on-route from off-route).
    ///
    ///     let start = Coordinate(latitude: 0, longitude: 0), end = Coordinate(latitude: 0, longitude: 1)
    ///     Coordinate(latitude: -0.001, longitude: 0.5).crossTrackDistanceMeters(fromPathStart: start, to: end)
    ///     // 111.19… (south of an eastbound path is to its right)
    public func crossTrackDistanceMeters(fromPathStart start: Coordinate, to end: Coordinate) -> Double {
        let (angularDistance, angle) = sphericalTriangle(start: start, end: end)
        return asin(max(-1, min(1, sin(angularDistance) * sin(angle)))) * WGS84.meanRadiusMeters
    }

    /// Distance in metres from `start`, along the great circle towards `end`, to the foot of the
    /// perpendicular from this point; negative when the foot lies behind `start`.
    ///
    ///     let start = Coordinate(latitude: 0, longitude: 0), end = Coordinate(latitude: 0, longitude: 1)
    ///     Coordinate(latitude: 0.001, longitude: 0.5).alongTrackDistanceMeters(fromPathStart: start, to: end)
    ///     // 55597.5… (half a degree of the equator on the mean sphere)
    public func alongTrackDistanceMeters(fromPathStart start: Coordinate, to end: Coordinate) -> Double {
        let (angularDistance, angle) = sphericalTriangle(start: start, end: end)
        // Napier's rule for the right triangle start–foot–point: tan(along) = tan(δ13) cos A. The atan2 form
        // stays accurate for metre-scale distances, where acos(cos δ13 / cos δxt) loses most of its digits.
        return atan2(sin(angularDistance) * cos(angle), cos(angularDistance)) * WGS84.meanRadiusMeters
    }

    /// Angular distance start→self (radians) and the angle at `start` between the path and self (radians).
    private func sphericalTriangle(start: Coordinate, end: Coordinate) -> (Double, Double) {
        let angularDistance = start.haversineDistanceMeters(to: self, radiusMeters: 1)
        let angle = (start.initialBearingDegrees(to: self) - start.initialBearingDegrees(to: end)) * .pi / 180
        return (angularDistance, angle)
    }
}
