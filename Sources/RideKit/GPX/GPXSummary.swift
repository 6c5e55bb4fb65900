/// What `bikeride stats` reports for one file: counts and the figures of all its tracks, computed while the
/// file streams by, so that a file of any size is summarised in a few MiB.
public struct GPXSummary: Sendable, Hashable {
    public var tracks = 0
    public var segments = 0
    public var points = 0
    public var waypoints = 0
    public var routes = 0
    public var routePoints = 0
    /// Figures over all track points (segment by segment); for a file with routes only, over its routes.
    public var stats: TrackStats
    public var report = GPXReadReport()
}

/// A `GPXContentHandler` that keeps nothing but counts and running figures.
///
/// The track figures are computed on a second thread while the reader goes on (`BackgroundStatsAccumulator`);
/// `summary()` waits for them. A handler is for one file.
public struct GPXSummaryHandler: GPXContentHandler, SpeculatedPartConsumer {
    private let trackStats: BackgroundStatsAccumulator
    private var routeStats: TrackStatsAccumulator
    private var counts: (tracks: Int, segments: Int, points: Int, waypoints: Int, routes: Int, routePoints: Int) = (0, 0, 0, 0, 0, 0)

    public init(activity: ActivityKind = .ride) {
        trackStats = BackgroundStatsAccumulator(activity: activity)
        routeStats = TrackStatsAccumulator(activity: activity)
    }

    public var keepsUnknownExtensions: Bool { false }

    public mutating func beginDocument(version: String, creator: String?) {}

    public mutating func waypoint(_ waypoint: Waypoint) { counts.waypoints += 1 }

    public mutating func route(_ route: Route) {
        counts.routes += 1
        counts.routePoints += route.points.count
        routeStats.beginSegment()
        for point in route.points {
            routeStats.add(point)
        }
    }

    public mutating func beginTrack() {
        counts.tracks += 1
        trackStats.beginTrack()
    }

    public mutating func beginSegment() {
        counts.segments += 1
        trackStats.beginSegment()
    }

    public mutating func trackPoint(_ point: TrackPoint) {
        counts.points += 1
        trackStats.add(point)
    }

    public mutating func endSegment(extensions: [XMLElementNode]) {}

    mutating func absorb(_ part: SpeculatedPart) {
        counts.segments += part.segments
        counts.points += part.points
        trackStats.append(contentsOf: part.steps)
    }

    public mutating func endTrack(_ track: Track) {}

    public mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode]) {}

    /// The summary of everything read so far.
    public func summary(report: GPXReadReport = GPXReadReport()) -> GPXSummary {
        let stats = counts.points == 0 && counts.routePoints > 0 ? routeStats.finish() : trackStats.finish()
        return GPXSummary(
            tracks: counts.tracks, segments: counts.segments, points: counts.points, waypoints: counts.waypoints,
            routes: counts.routes, routePoints: counts.routePoints, stats: stats, report: report)
    }
}
