/// A position on the WGS-84 ellipsoid, in degrees.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…180.
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// True when both values are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }
}
