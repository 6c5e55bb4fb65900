import Foundation
import RideKit

/// Everything a saved track holds beyond its figures, with its points packed: what export writes back.
///
/// A saved track is what the Tracks list shows one row for. It holds one GPX `trk` (or, when imported as one
/// piece, several), the waypoints and routes that came with it, and the file's metadata, so that exporting
/// it gives back the file it came from (`document()`), every field and extension included.
public struct TrackContent: Sendable, Hashable {
    /// The GPX version the file was read as (files are always written as 1.1).
    public var version: String
    public var creator: String?
    public var metadata: GPXMetadata
    /// Extensions of the file's `gpx` element.
    public var extensions: [XMLElementNode]
    public var waypoints: PackedPoints
    public var routes: [PackedRoute]
    public var tracks: [PackedTrack]

    public init(
        version: String = "1.1", creator: String? = nil, metadata: GPXMetadata = GPXMetadata(),
        extensions: [XMLElementNode] = [], waypoints: PackedPoints = PackedPoints(), routes: [PackedRoute] = [],
        tracks: [PackedTrack] = []
    ) {
        self.version = version
        self.creator = creator
        self.metadata = metadata
        self.extensions = extensions
        self.waypoints = waypoints
        self.routes = routes
        self.tracks = tracks
    }

    /// A whole document, packed.
    public init(document: GPXDocument) {
        self.init(
            version: document.version, creator: document.creator, metadata: document.metadata,
            extensions: document.extensions, waypoints: PackedPoints(document.waypoints),
            routes: document.routes.map(PackedRoute.init), tracks: document.tracks.map(PackedTrack.init))
    }

    /// The document, unpacked.
    public func document() throws(PointBlockError) -> GPXDocument {
        var routes: [Route] = []
        for route in self.routes { routes.append(try route.route()) }
        var tracks: [Track] = []
        for track in self.tracks { tracks.append(try track.track()) }
        return GPXDocument(
            version: version, creator: creator, metadata: metadata, waypoints: try waypoints.points(), routes: routes,
            tracks: tracks, extensions: extensions)
    }

    /// Track points in all segments of all tracks.
    public var trackPointCount: Int { tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } } }
    /// Segments of all tracks, empty ones included.
    public var segmentCount: Int { tracks.reduce(0) { $0 + $1.segments.count } }
}

/// A GPX route with its points packed.
public struct PackedRoute: Sendable, Hashable {
    /// The route's own fields; its `points` are empty.
    public var header: Route
    public var points: PackedPoints

    public init(header: Route, points: PackedPoints) {
        var header = header
        header.points = []
        self.header = header
        self.points = points
    }

    public init(_ route: Route) { self.init(header: route, points: PackedPoints(route.points)) }

    public func route() throws(PointBlockError) -> Route {
        var route = header
        route.points = try points.points()
        return route
    }
}

/// A GPX track with its segments' points packed.
public struct PackedTrack: Sendable, Hashable {
    /// The track's own fields; its `segments` are empty.
    public var header: Track
    public var segments: [PackedSegment]

    public init(header: Track, segments: [PackedSegment]) {
        var header = header
        header.segments = []
        self.header = header
        self.segments = segments
    }

    public init(_ track: Track) {
        self.init(header: track, segments: track.segments.map { PackedSegment(points: PackedPoints($0.points), extensions: $0.extensions) })
    }

    public func track() throws(PointBlockError) -> Track {
        var track = header
        track.segments = []
        for segment in segments {
            track.segments.append(TrackSegment(points: try segment.points.points(), extensions: segment.extensions))
        }
        return track
    }
}

/// A track segment with its points packed.
public struct PackedSegment: Sendable, Hashable {
    public var points: PackedPoints
    public var extensions: [XMLElementNode]

    public init(points: PackedPoints = PackedPoints(), extensions: [XMLElementNode] = []) {
        self.points = points
        self.extensions = extensions
    }
}
