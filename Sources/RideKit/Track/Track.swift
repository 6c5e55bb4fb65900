/// A GPX track (`trk`): an ordered list of segments, each an unbroken run of points.
public struct Track: Sendable, Hashable {
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    public var links: [GPXLink]
    public var number: Int?
    public var type: String?
    public var segments: [TrackSegment]
    public var extensions: [XMLElementNode]

    public init(
        name: String? = nil, comment: String? = nil, description: String? = nil, source: String? = nil,
        links: [GPXLink] = [], number: Int? = nil, type: String? = nil, segments: [TrackSegment] = [],
        extensions: [XMLElementNode] = []
    ) {
        self.name = name
        self.comment = comment
        self.description = description
        self.source = source
        self.links = links
        self.number = number
        self.type = type
        self.segments = segments
        self.extensions = extensions
    }

    /// All points of all segments, in order.
    public var points: [TrackPoint] { segments.flatMap(\.points) }
}

/// A GPX track segment (`trkseg`). Empty segments are kept: they are part of the file.
public struct TrackSegment: Sendable, Hashable {
    public var points: [TrackPoint]
    public var extensions: [XMLElementNode]

    public init(points: [TrackPoint] = [], extensions: [XMLElementNode] = []) {
        self.points = points
        self.extensions = extensions
    }
}

/// A GPX route (`rte`): an ordered list of points to follow, without the recorded detail of a track.
public struct Route: Sendable, Hashable {
    public var name: String?
    public var comment: String?
    public var description: String?
    public var source: String?
    public var links: [GPXLink]
    public var number: Int?
    public var type: String?
    public var points: [TrackPoint]
    public var extensions: [XMLElementNode]

    public init(
        name: String? = nil, comment: String? = nil, description: String? = nil, source: String? = nil,
        links: [GPXLink] = [], number: Int? = nil, type: String? = nil, points: [TrackPoint] = [],
        extensions: [XMLElementNode] = []
    ) {
        self.name = name
        self.comment = comment
        self.description = description
        self.source = source
        self.links = links
        self.number = number
        self.type = type
        self.points = points
        self.extensions = extensions
    }
}
