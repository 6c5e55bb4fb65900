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
    public var magneticVariation: Double? {
        get { details?.magneticVariation ?? TrackPointDetails.empty.magneticVariation }
        set { updateDetails { $0.magneticVariation = newValue } }
    }
    /// GPX `geoidheight`, metres.
    public var geoidHeight: Double? {
        get { details?.geoidHeight ?? TrackPointDetails.empty.geoidHeight }
        set { updateDetails { $0.geoidHeight = newValue } }
    }
    public var name: String? {
        get { details?.name ?? TrackPointDetails.empty.name }
        set { updateDetails { $0.name = newValue } }
    }
    public var comment: String? {
        get { details?.comment ?? TrackPointDetails.empty.comment }
        set { updateDetails { $0.comment = newValue } }
    }
    public var description: String? {
        get { details?.description ?? TrackPointDetails.empty.description }
        set { updateDetails { $0.description = newValue } }
    }
    public var source: String? {
        get { details?.source ?? TrackPointDetails.empty.source }
        set { updateDetails { $0.source = newValue } }
    }
    public var links: [GPXLink] {
        get { details?.links ?? TrackPointDetails.empty.links }
        set { updateDetails { $0.links = newValue } }
    }
    public var symbol: String? {
        get { details?.symbol ?? TrackPointDetails.empty.symbol }
        set { updateDetails { $0.symbol = newValue } }
    }
    public var type: String? {
        get { details?.type ?? TrackPointDetails.empty.type }
        set { updateDetails { $0.type = newValue } }
    }
    /// GPX `fix` as written (`none`, `2d`, `3d`, `dgps`, `pps`; anything else is kept too).
    public var fix: String? {
        get { details?.fix ?? TrackPointDetails.empty.fix }
        set { updateDetails { $0.fix = newValue } }
    }
    public var satellites: Int? {
        get { details?.satellites ?? TrackPointDetails.empty.satellites }
        set { updateDetails { $0.satellites = newValue } }
    }
    public var horizontalDilution: Double? {
        get { details?.horizontalDilution ?? TrackPointDetails.empty.horizontalDilution }
        set { updateDetails { $0.horizontalDilution = newValue } }
    }
    public var verticalDilution: Double? {
        get { details?.verticalDilution ?? TrackPointDetails.empty.verticalDilution }
        set { updateDetails { $0.verticalDilution = newValue } }
    }
    public var positionDilution: Double? {
        get { details?.positionDilution ?? TrackPointDetails.empty.positionDilution }
        set { updateDetails { $0.positionDilution = newValue } }
    }
    public var ageOfDGPSDataSeconds: Double? {
        get { details?.ageOfDGPSDataSeconds ?? TrackPointDetails.empty.ageOfDGPSDataSeconds }
        set { updateDetails { $0.ageOfDGPSDataSeconds = newValue } }
    }
    public var dgpsStationID: Int? {
        get { details?.dgpsStationID ?? TrackPointDetails.empty.dgpsStationID }
        set { updateDetails { $0.dgpsStationID = newValue } }
    }
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
    public var waterTemperatureCelsius: Double? {
        get { details?.waterTemperatureCelsius ?? TrackPointDetails.empty.waterTemperatureCelsius }
        set { updateDetails { $0.waterTemperatureCelsius = newValue } }
    }
    /// TrackPointExtension `depth`, metres.
    public var depthMeters: Double? {
        get { details?.depthMeters ?? TrackPointDetails.empty.depthMeters }
        set { updateDetails { $0.depthMeters = newValue } }
    }
    /// PowerExtension `PowerInWatts`, or a bare `power` extension element.
    public var powerWatts: Double?
    /// Extension elements bikeride does not interpret, kept for round trip.
    public var extensions: [XMLElementNode] {
        get { details?.extensions ?? TrackPointDetails.empty.extensions }
        set { updateDetails { $0.extensions = newValue } }
    }

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
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.heartRate = heartRate
        self.cadence = cadence
        self.temperatureCelsius = temperatureCelsius
        self.powerWatts = powerWatts
        let hasDetails =
            magneticVariation != nil || geoidHeight != nil || name != nil || comment != nil || description != nil
            || source != nil || !links.isEmpty || symbol != nil || type != nil || fix != nil || satellites != nil
            || horizontalDilution != nil || verticalDilution != nil || positionDilution != nil
            || ageOfDGPSDataSeconds != nil || dgpsStationID != nil || waterTemperatureCelsius != nil
            || depthMeters != nil || !extensions.isEmpty
        guard hasDetails else { return }
        let details = TrackPointDetails()
        details.magneticVariation = magneticVariation
        details.geoidHeight = geoidHeight
        details.name = name
        details.comment = comment
        details.description = description
        details.source = source
        details.links = links
        details.symbol = symbol
        details.type = type
        details.fix = fix
        details.satellites = satellites
        details.horizontalDilution = horizontalDilution
        details.verticalDilution = verticalDilution
        details.positionDilution = positionDilution
        details.ageOfDGPSDataSeconds = ageOfDGPSDataSeconds
        details.dgpsStationID = dgpsStationID
        details.waterTemperatureCelsius = waterTemperatureCelsius
        details.depthMeters = depthMeters
        details.extensions = extensions
        self.details = details
    }

    /// A point with a position and nothing else, where the readers start: the same as the initialiser above
    /// with its defaults, without building the point twice to check nineteen empty fields (a reader makes a
    /// million of these for a big file).
    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Fields most points do not have, boxed so that a point stays small (about 150 bytes) and cheap to copy:
    /// a million-point track is held, copied and stored often.
    private var details: TrackPointDetails?

    private mutating func updateDetails(_ change: (TrackPointDetails) -> Void) {
        if details == nil {
            details = TrackPointDetails()
        } else if !isKnownUniquelyReferenced(&details!) {
            details = details!.copy()
        }
        change(details!)
        if details!.isEmpty { details = nil }
    }

    /// The point's position.
    public var coordinate: Coordinate { Coordinate(latitude: latitude, longitude: longitude) }

    /// True when any of the rarely set fields is (every field other than position, elevation, time, speed,
    /// course, heart rate, cadence, temperature and power): a compact store checks this once a point instead
    /// of reading each of those fields.
    public var hasDetails: Bool { details != nil }
}

/// The rarely set fields of a `TrackPoint`, shared between copies until one changes.
final class TrackPointDetails: @unchecked Sendable, Hashable {
    var magneticVariation: Double? = nil
    var geoidHeight: Double? = nil
    var name: String? = nil
    var comment: String? = nil
    var description: String? = nil
    var source: String? = nil
    var links: [GPXLink] = []
    var symbol: String? = nil
    var type: String? = nil
    var fix: String? = nil
    var satellites: Int? = nil
    var horizontalDilution: Double? = nil
    var verticalDilution: Double? = nil
    var positionDilution: Double? = nil
    var ageOfDGPSDataSeconds: Double? = nil
    var dgpsStationID: Int? = nil
    var waterTemperatureCelsius: Double? = nil
    var depthMeters: Double? = nil
    var extensions: [XMLElementNode] = []

    static let empty = TrackPointDetails()

    func copy() -> TrackPointDetails {
        let copy = TrackPointDetails()
        copy.magneticVariation = magneticVariation
        copy.geoidHeight = geoidHeight
        copy.name = name
        copy.comment = comment
        copy.description = description
        copy.source = source
        copy.links = links
        copy.symbol = symbol
        copy.type = type
        copy.fix = fix
        copy.satellites = satellites
        copy.horizontalDilution = horizontalDilution
        copy.verticalDilution = verticalDilution
        copy.positionDilution = positionDilution
        copy.ageOfDGPSDataSeconds = ageOfDGPSDataSeconds
        copy.dgpsStationID = dgpsStationID
        copy.waterTemperatureCelsius = waterTemperatureCelsius
        copy.depthMeters = depthMeters
        copy.extensions = extensions
        return copy
    }

    var isEmpty: Bool { self == TrackPointDetails.empty }

    static func == (lhs: TrackPointDetails, rhs: TrackPointDetails) -> Bool {
        lhs === rhs || (lhs.magneticVariation == rhs.magneticVariation
            && lhs.geoidHeight == rhs.geoidHeight
            && lhs.name == rhs.name
            && lhs.comment == rhs.comment
            && lhs.description == rhs.description
            && lhs.source == rhs.source
            && lhs.links == rhs.links
            && lhs.symbol == rhs.symbol
            && lhs.type == rhs.type
            && lhs.fix == rhs.fix
            && lhs.satellites == rhs.satellites
            && lhs.horizontalDilution == rhs.horizontalDilution
            && lhs.verticalDilution == rhs.verticalDilution
            && lhs.positionDilution == rhs.positionDilution
            && lhs.ageOfDGPSDataSeconds == rhs.ageOfDGPSDataSeconds
            && lhs.dgpsStationID == rhs.dgpsStationID
            && lhs.waterTemperatureCelsius == rhs.waterTemperatureCelsius
            && lhs.depthMeters == rhs.depthMeters
            && lhs.extensions == rhs.extensions)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(magneticVariation)
        hasher.combine(geoidHeight)
        hasher.combine(name)
        hasher.combine(comment)
        hasher.combine(description)
        hasher.combine(source)
        hasher.combine(links)
        hasher.combine(symbol)
        hasher.combine(type)
        hasher.combine(fix)
        hasher.combine(satellites)
        hasher.combine(horizontalDilution)
        hasher.combine(verticalDilution)
        hasher.combine(positionDilution)
        hasher.combine(ageOfDGPSDataSeconds)
        hasher.combine(dgpsStationID)
        hasher.combine(waterTemperatureCelsius)
        hasher.combine(depthMeters)
        hasher.combine(extensions)
    }
}

/// A GPX waypoint: the same fields as a track point.
public typealias Waypoint = TrackPoint
