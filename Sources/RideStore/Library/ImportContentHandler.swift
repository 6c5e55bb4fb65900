import Foundation
import RideKit

/// Receives a GPX file from the reader and packs it as it streams by: points go into blocks, their figures
/// into a stats accumulator on a second core, a thinned line into the preview. A million-point file ends as
/// about 10 MB of blocks, never as 150 MB of `TrackPoint`s.
struct ImportContentHandler: GPXContentHandler {
    /// One `trk` as it arrives.
    struct PendingTrack {
        var track: PackedTrack
        var stats: BackgroundStatsAccumulator?
        var preview: PreviewSampler
    }

    let oneTrack: Bool
    let activity: ActivityKind
    var version = "1.1"
    var creator: String?
    var metadata = GPXMetadata()
    var extensions: [XMLElementNode] = []
    var waypoints = PackedPoints()
    var routes: [PackedRoute] = []
    var routeStats: [TrackStats] = []
    var tracks: [PendingTrack] = []
    /// For one-track imports: the accumulator and preview of every `trk` together.
    var sharedStats: BackgroundStatsAccumulator?
    var sharedPreview = PreviewSampler()
    private var segments: [PackedSegment] = []
    private var points = PackedPoints()
    private var trackStats: BackgroundStatsAccumulator?
    private var trackPreview = PreviewSampler()
    /// Points seen in track segments.
    private(set) var pointCount = 0

    init(oneTrack: Bool, activity: ActivityKind) {
        self.oneTrack = oneTrack
        self.activity = activity
    }

    var keepsUnknownExtensions: Bool { true }

    mutating func beginDocument(version: String, creator: String?) {
        self.version = version
        self.creator = creator
    }

    mutating func waypoint(_ waypoint: Waypoint) { waypoints.append(waypoint) }

    mutating func route(_ route: Route) {
        routes.append(PackedRoute(route))
        var accumulator = TrackStatsAccumulator(activity: activity)
        accumulator.beginSegment()
        for point in route.points { accumulator.add(point) }
        routeStats.append(accumulator.finish())
        if oneTrack, tracks.isEmpty { for point in route.points { sharedPreview.add(point.coordinate) } }
    }

    mutating func beginTrack() {
        segments = []
        if oneTrack {
            if sharedStats == nil { sharedStats = BackgroundStatsAccumulator(activity: activity) }
        } else {
            trackStats = BackgroundStatsAccumulator(activity: activity)
            trackPreview = PreviewSampler()
        }
    }

    mutating func beginSegment() {
        points = PackedPoints()
        (oneTrack ? sharedStats : trackStats)?.beginSegment()
    }

    mutating func trackPoint(_ point: TrackPoint) {
        points.append(point)
        pointCount += 1
        let stats = oneTrack ? sharedStats : trackStats
        stats?.add(latitude: point.latitude, longitude: point.longitude, elevation: point.elevation, time: point.time)
        if oneTrack { sharedPreview.add(point.coordinate) } else { trackPreview.add(point.coordinate) }
    }

    mutating func endSegment(extensions: [XMLElementNode]) {
        segments.append(PackedSegment(points: points, extensions: extensions))
        points = PackedPoints()
    }

    mutating func endTrack(_ track: Track) {
        tracks.append(
            PendingTrack(track: PackedTrack(header: track, segments: segments), stats: oneTrack ? nil : trackStats, preview: trackPreview))
        segments = []
        trackStats = nil
    }

    mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode]) {
        self.metadata = metadata
        self.extensions = extensions
    }
}

/// Keeps at most about 8,192 evenly spaced positions of a line of any length, for the list's preview.
struct PreviewSampler {
    private(set) var coordinates: [Coordinate] = []
    private var stride = 1
    private var seen = 0
    private var last: Coordinate?

    mutating func add(_ coordinate: Coordinate) {
        if seen % stride == 0 {
            coordinates.append(coordinate)
            if coordinates.count >= 8192 {
                coordinates = Swift.stride(from: 0, to: coordinates.count, by: 2).map { coordinates[$0] }
                stride *= 2
            }
        }
        seen += 1
        last = coordinate
    }

    /// The kept positions and the very last one.
    var line: [Coordinate] {
        guard let last, coordinates.last != last else { return coordinates }
        return coordinates + [last]
    }
}
