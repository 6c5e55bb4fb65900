/// The part of the map to show: a circle around a centre, and the box that holds it.
///
/// While recording, the centre is the last fix of each batch and the radius 300 m, street level (the
/// brief's numbers, DESIGN 2.1). The web app fits its map to `bounds`.
///
///     CameraRegion(center: Coordinate(latitude: 37.3318, longitude: -122.0312)).bounds
///     // 37.32909…–37.33450… N, 122.03459…–122.02780… W: 300 m each way
public struct CameraRegion: Sendable, Hashable {
    /// 300 m: the brief's street-level region around the rider.
    public static let recordingRadiusMeters = 300.0

    /// Centre of the region.
    public var center: Coordinate
    /// Distance from the centre to each edge of `bounds`, metres.
    public var radiusMeters: Double

    public init(center: Coordinate, radiusMeters: Double = CameraRegion.recordingRadiusMeters) {
        self.center = center
        self.radiusMeters = radiusMeters
    }

    /// The box whose edges lie `radiusMeters` north, east, south and west of the centre, on WGS-84.
    public var bounds: GPXBounds {
        let north = center.destination(distanceMeters: radiusMeters, bearingDegrees: 0)
        let east = center.destination(distanceMeters: radiusMeters, bearingDegrees: 90)
        let south = center.destination(distanceMeters: radiusMeters, bearingDegrees: 180)
        let west = center.destination(distanceMeters: radiusMeters, bearingDegrees: 270)
        return GPXBounds(
            minLatitude: max(-90, south.latitude), minLongitude: west.longitude,
            maxLatitude: min(90, north.latitude), maxLongitude: east.longitude
        )
    }
}
