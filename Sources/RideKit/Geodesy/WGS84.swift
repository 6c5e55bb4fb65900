import Foundation

/// The WGS-84 ellipsoid, the datum of GPS and GPX, and the radii bikeride derives from it.
///
///     WGS84.semiMajorAxisMeters                          // 6378137.0
///     WGS84.meridionalRadiusMeters(latitudeDegrees: 0)   // 6335439.327… (north–south curvature at the equator)
public enum WGS84 {
    /// Equatorial radius *a*, metres (defining constant).
    public static let semiMajorAxisMeters: Double = 6_378_137
    /// Flattening *f* = (a − b) / a (defining constant 1 / 298.257223563).
    public static let flattening: Double = 1 / 298.257_223_563
    /// Polar radius *b* = a (1 − f), metres.
    public static let semiMinorAxisMeters: Double = semiMajorAxisMeters * (1 - flattening)
    /// First eccentricity squared, e² = f (2 − f).
    public static let eccentricitySquared: Double = flattening * (2 - flattening)
    /// The IUGG mean radius R₁ = (2a + b) / 3, metres: the sphere that spherical formulas use.
    public static let meanRadiusMeters: Double = (2 * semiMajorAxisMeters + semiMinorAxisMeters) / 3

    /// Radius of curvature along the meridian, *M*, metres: metres per radian of latitude.
    ///
    ///     WGS84.meridionalRadiusMeters(latitudeDegrees: 90)  // 6399593.626…
    public static func meridionalRadiusMeters(latitudeDegrees: Double) -> Double {
        let sine = sin(latitudeDegrees * .pi / 180)
        let w = 1 - eccentricitySquared * sine * sine
        return semiMajorAxisMeters * (1 - eccentricitySquared) / (w * w.squareRoot())
    }
}
