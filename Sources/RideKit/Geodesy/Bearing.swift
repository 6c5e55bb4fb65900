import Foundation

extension Coordinate {
    /// Initial bearing of the great circle from this point to `other`, degrees clockwise from true north,
    /// 0..<360 (0 when the points coincide).
    ///
    /// Spherical, which is what turn detection needs: it differs from the geodesic's azimuth on WGS-84 by
    /// at most about 0.2° (`Vincenty.inverse` gives the exact one).
    ///
    ///     Coordinate(latitude: 0, longitude: 0).initialBearingDegrees(to: Coordinate(latitude: 0, longitude: 1))  // 90
    @inlinable
    public func initialBearingDegrees(to other: Coordinate) -> Double {
        let φ1 = latitude * (.pi / 180), φ2 = other.latitude * (.pi / 180)
        let dλ = EllipsoidalDistance.longitudeDifferenceRadians(from: longitude, to: other.longitude)
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        if x == 0 && y == 0 { return 0 }
        return normalizedBearing(atan2(y, x) * 180 / .pi)
    }

    /// The point reached by travelling `distanceMeters` along the geodesic that leaves this point at
    /// `bearingDegrees` (clockwise from true north), on WGS-84 (`Vincenty.direct`, exact to well under a
    /// millimetre, so lines built with it have a known length).
    ///
    ///     Coordinate(latitude: 0, longitude: 0).destination(distanceMeters: 111_319.491, bearingDegrees: 90)
    ///     // (0.0, 1.0000…): one degree of longitude on the equator is a·π/180 metres
    public func destination(distanceMeters: Double, bearingDegrees: Double) -> Coordinate {
        Vincenty.direct(from: self, distanceMeters: distanceMeters, initialBearingDegrees: bearingDegrees).coordinate
    }
}
