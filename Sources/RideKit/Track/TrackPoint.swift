/// One GPX point (`wptType`): a track point, a route point or a waypoint.
///
/// Every field GPX 1.0 and 1.1 define is kept, plus the Garmin TrackPointExtension and PowerExtension
/// values as typed fields. Extensions bikeride does not know are kept as XML trees in `extensions`, so that
/// reading and writing a file loses nothing.
public struct TrackPoint: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres above mean sea level (GPX `ele`).
    public var elevation: Double?
    public var time: GPXTime?
    /// GPX `magvar`, degrees.
    public var magneticVariation: Double?
    /// GPX `geoidheight`, metres.
    public var geoidHeight: Double?
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    public var links: [GPXLink]
    public var symbol: String?
    public var type: String?
    /// GPX `fix` as written (`none`, `2d`, `3d`, `dgps`, `pps`; anything else is kept too).
    public var fix: String?
    public var satellites: Int?
    public var horizontalDilution: Double?
    public var verticalDilution: Double?
    public var positionDilution: Double?
    public var ageOfDGPSDataSeconds: Double?
    public var dgpsStationID: Int?
    /// GPX 1.0 `speed`, or TrackPointExtension v2 `speed`, metres per second.
    public var speedMetersPerSecond: Double?
    /// GPX 1.0 `course`, or TrackPointExtension v2 `course`, degrees from true north.
    public var courseDegrees: Double?
    /// TrackPointExtension `hr`, beats per minute.
    public var heartRate: Double?
    /// TrackPointExtension `cad`, revolutions per minute.
    public var cadence: Double?
    /// TrackPointExtension `atemp`, degrees Celsius.
    public var temperatureCelsius: Double?
    /// TrackPointExtension `wtemp`, degrees Celsius.
    public var waterTemperatureCelsius: Double?
    /// TrackPointExtension `depth`, metres.
    public var depthMeters: Double?
    /// PowerExtension `PowerInWatts`, or a bare `power` extension element.
    public var powerWatts: Double?
    /// Extension elements bikeride does not interpret, kept for round trip.
    public var extensions: [XMLElementNode]

    public init(
        latitude: Double, longitude: Double, elevation: Double? = nil, time: GPXTime? = nil,
        magneticVariation: Double? = nil, geoidHeight: Double? = nil, name: String? = nil,
        comment: String? = nil, description: String? = nil, source: String? = nil,
        links: [GPXLink] = [], symbol: String? = nil, type: String? = nil, fix: String? = nil,
        satellites: Int? = nil, horizontalDilution: Double? = nil, verticalDilution: Double? = nil,
        positionDilution: Double? = nil, ageOfDGPSDataSeconds: Double? = nil, dgpsStationID: Int? = nil,
        speedMetersPerSecond: Double? = nil, courseDegrees: Double? = nil, heartRate: Double? = nil,
        cadence: Double? = nil, temperatureCelsius: Double? = nil, waterTemperatureCelsius: Double? = nil,
        depthMeters: Double? = nil, powerWatts: Double? = nil, extensions: [XMLElementNode] = []
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.elevation = elevation
        self.time = time
        self.magneticVariation = magneticVariation
        self.geoidHeight = geoidHeight
        self.name = name
        self.comment = comment
        self.description = description
        self.source = source
        self.links = links
        self.symbol = symbol
        self.type = type
        self.fix = fix
        self.satellites = satellites
        self.horizontalDilution = horizontalDilution
        self.verticalDilution = verticalDilution
        self.positionDilution = positionDilution
        self.ageOfDGPSDataSeconds = ageOfDGPSDataSeconds
        self.dgpsStationID = dgpsStationID
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.heartRate = heartRate
        self.cadence = cadence
        self.temperatureCelsius = temperatureCelsius
        self.waterTemperatureCelsius = waterTemperatureCelsius
        self.depthMeters = depthMeters
        self.powerWatts = powerWatts
        self.extensions = extensions
    }

    /// The point's position.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }
}

/// A GPX waypoint: the same fields as a track point.
public typealias Waypoint = TrackPoint
