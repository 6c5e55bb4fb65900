/// A whole GPX file: metadata, waypoints, routes and tracks, in the order the file gave them.
public struct GPXDocument: Sendable, Hashable {
    /// The `version` attribute as read ("1.0" or "1.1"). Files are always written as 1.1.
    public var version: String
    public var creator: String?
    public var metadata: GPXMetadata
    public var waypoints: [Waypoint]
    public var routes: [Route]
    public var tracks: [Track]
    /// Extensions of the `gpx` element itself.
    public var extensions: [XMLElementNode]

    public init(
        version: String = "1.1", creator: String? = nil, metadata: GPXMetadata = GPXMetadata(),
        waypoints: [Waypoint] = [], routes: [Route] = [], tracks: [Track] = [], extensions: [XMLElementNode] = []
    ) {
        self.version = version
        self.creator = creator
        self.metadata = metadata
        self.waypoints = waypoints
        self.routes = routes
        self.tracks = tracks
        self.extensions = extensions
    }
}

/// GPX `metadata` (1.1), or the same fields at the top of a GPX 1.0 file.
public struct GPXMetadata: Sendable, Hashable {
    public var name: String?
    public var description: String?
    public var author: GPXPerson?
    public var copyright: GPXCopyright?
    public var links: [GPXLink]
    public var time: GPXTime?
    public var keywords: String?
    public var bounds: GPXBounds?
    public var extensions: [XMLElementNode]

    public init(
        name: String? = nil, description: String? = nil, author: GPXPerson? = nil, copyright: GPXCopyright? = nil,
        links: [GPXLink] = [], time: GPXTime? = nil, keywords: String? = nil, bounds: GPXBounds? = nil,
        extensions: [XMLElementNode] = []
    ) {
        self.name = name
        self.description = description
        self.author = author
        self.copyright = copyright
        self.links = links
        self.time = time
        self.keywords = keywords
        self.bounds = bounds
        self.extensions = extensions
    }

    /// True when no field is set: such metadata is not written.
    public var isEmpty: Bool { self == GPXMetadata() }
}

/// A person or organisation (`personType`).
public struct GPXPerson: Sendable, Hashable {
    public var name: String?
    /// The address as `id@domain`.
    public var email: String?
    public var link: GPXLink?

    public init(name: String? = nil, email: String? = nil, link: GPXLink? = nil) {
        self.name = name
        self.email = email
        self.link = link
    }
}

/// Copyright and licence (`copyrightType`).
public struct GPXCopyright: Sendable, Hashable {
    public var author: String
    public var year: Int?
    public var license: String?

    public init(author: String, year: Int? = nil, license: String? = nil) {
        self.author = author
        self.year = year
        self.license = license
    }
}

/// A link to an external resource (`linkType`; GPX 1.0 `url` and `urlname`).
public struct GPXLink: Sendable, Hashable {
    public var href: String
    public var text: String?
    public var type: String?

    public init(href: String, text: String? = nil, type: String? = nil) {
        self.href = href
        self.text = text
        self.type = type
    }
}

/// A latitude/longitude box (`boundsType`).
public struct GPXBounds: Sendable, Hashable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }
}
