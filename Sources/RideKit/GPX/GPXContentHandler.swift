/// Receives what the GPX reader finds, in file order, so that a caller can build a document or only
/// accumulate figures: track points are handed over one at a time and need not be kept.
public protocol GPXContentHandler {
    /// Whether extension elements bikeride does not interpret should be kept as trees. A handler that only
    /// computes figures says no, and the reader skips building them (it still checks them).
    var keepsUnknownExtensions: Bool { get }
    /// The `gpx` element's `version` and `creator`.
    mutating func beginDocument(version: String, creator: String?)
    mutating func waypoint(_ waypoint: Waypoint)
    mutating func route(_ route: Route)
    mutating func beginTrack()
    mutating func beginSegment()
    mutating func trackPoint(_ point: TrackPoint)
    mutating func endSegment(extensions: [XMLElementNode])
    /// The track's own fields; its segments were delivered before, between `beginTrack` and this call.
    mutating func endTrack(_ track: Track)
    /// The metadata (GPX 1.1 `metadata`, or the GPX 1.0 fields on the root) and the root's extensions.
    mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode])
}

/// What lenient reading left out.
public struct GPXReadReport: Sendable, Hashable {
    /// Points with a missing or invalid position, dropped.
    public var droppedPoints = 0
    /// Point or header values that were not valid (a time, an elevation …), dropped while the point was kept.
    public var droppedValues = 0
    /// Elements GPX does not define, skipped.
    public var skippedElements = 0
    /// How many of each kind were left out (undeclared prefixes included, which the counts above leave out).
    public var counts: [GPXReadWarning.Kind: Int] = [:]
    /// The first `maximumLocatedWarnings` of them, in file order, each with its reason and place.
    public var warnings: [GPXReadWarning] = []

    public init() {}

    /// True when nothing was left out.
    public var isClean: Bool { droppedPoints == 0 && droppedValues == 0 && skippedElements == 0 }
}

/// Builds a whole `GPXDocument`.
public struct GPXDocumentBuilder: GPXContentHandler {
    public private(set) var document = GPXDocument()
    private var segments: [TrackSegment] = []
    private var points: [TrackPoint] = []

    public init() {}

    public var keepsUnknownExtensions: Bool { true }

    public mutating func beginDocument(version: String, creator: String?) {
        document.version = version
        document.creator = creator
    }

    public mutating func waypoint(_ waypoint: Waypoint) { document.waypoints.append(waypoint) }

    public mutating func route(_ route: Route) { document.routes.append(route) }

    public mutating func beginTrack() { segments = [] }

    public mutating func beginSegment() { points = [] }

    public mutating func trackPoint(_ point: TrackPoint) { points.append(point) }

    public mutating func endSegment(extensions: [XMLElementNode]) {
        segments.append(TrackSegment(points: points, extensions: extensions))
        points = []
    }

    public mutating func endTrack(_ track: Track) {
        var track = track
        track.segments = segments
        segments = []
        document.tracks.append(track)
    }

    public mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode]) {
        document.metadata = metadata
        document.extensions = extensions
    }
}
