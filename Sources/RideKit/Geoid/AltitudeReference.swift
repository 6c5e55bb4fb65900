/// What a reported altitude is measured from. bikeride stores heights above sea level (the EGM96 geoid), as maps,
/// GPX files and bike computers give them; a phone's browser may report heights above the WGS-84 ellipsoid instead
/// (Android's browsers follow the W3C Geolocation definition; iOS and iPadOS browsers, all WebKit, give sea level),
/// up to 107 m apart.
public enum AltitudeReference: String, Codable, CaseIterable, Sendable {
    /// Above mean sea level (the geoid): stored as it is.
    case seaLevel
    /// Above the WGS-84 ellipsoid: the geoid's undulation is taken off.
    case ellipsoid

    /// `altitudeMeters`, measured from this reference at a position, as a height above sea level; nil when the
    /// position is invalid or the geoid grid cannot be read (no altitude rather than one up to 107 m wrong).
    public func seaLevelMeters(_ altitudeMeters: Double, latitude: Double, longitude: Double) -> Double? {
        switch self {
        case .seaLevel: altitudeMeters
        case .ellipsoid: EGM96Geoid.shared?.seaLevelMeters(ellipsoidalMeters: altitudeMeters, latitude: latitude, longitude: longitude)
        }
    }
}
