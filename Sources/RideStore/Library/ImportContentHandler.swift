import Foundation
import RideKit

/// Receives a GPX file from the reader as it streams by and hands its track points, a block's worth at a
/// time, to an `ImportWorker` on the second core, which packs them and computes their figures. A
/// million-point file ends as about 10 MB of blocks, never as 150 MB of `TrackPoint`s.
struct ImportContentHandler: GPXContentHandler, Sendable {
    let oneTrack: Bool
    let activity: ActivityKind
    var version = "1.1"
    var creator: String?
    var metadata = GPXMetadata()
    var extensions: [XMLElementNode] = []
    var waypoints = PackedPoints()
    var routes: [PackedRoute] = []
    /// Each route's figures (routes are small: computed here).
    var routeStats: [TrackStats] = []
    /// Each `trk`'s own fields and its segments' extensions; the points are with the worker.
    private var headers: [Track] = []
    private var segmentExtensions: [[[XMLElementNode]]] = []
    private var chunk: [TrackPoint] = []
    private let worker: ImportWorker
    /// What lenient reading left out (set by the reader's caller).
    var readReport = GPXReadReport()
    /// A device's file (FIT, TCX): its kind, totals and laps beside the points (set by the reader's caller).
    var device: DeviceActivity?
    /// Points seen in track segments.
    private(set) var pointCount = 0

    init(oneTrack: Bool, activity: ActivityKind) {
        self.oneTrack = oneTrack
        self.activity = activity
        worker = ImportWorker(oneTrack: oneTrack, activity: activity)
    }

    var keepsUnknownExtensions: Bool { true }

    mutating func beginDocument(version: String, creator: String?) {
        self.version = version
        self.creator = creator
    }

    mutating func waypoint(_ waypoint: Waypoint) { waypoints.append(waypoint) }

    mutating func route(_ route: Route) {
        routes.append(PackedRoute(route))
        var accumulator = TrackStatsAccumulator(activity: activity, measuringEfforts: true)
        accumulator.beginSegment()
        for point in route.points { accumulator.add(point) }
        routeStats.append(accumulator.finish())
    }

    mutating func beginTrack() {
        segmentExtensions.append([])
        worker.submit(.beginTrack)
    }

    mutating func beginSegment() {
        worker.submit(.beginSegment)
        chunk.reserveCapacity(PackedPoints.blockCapacity)
    }

    mutating func trackPoint(_ point: TrackPoint) {
        chunk.append(point)
        pointCount += 1
        if chunk.count == PackedPoints.blockCapacity { handOver() }
    }

    private mutating func handOver() {
        guard !chunk.isEmpty else { return }
        worker.submit(.points(chunk))
        chunk = []
        chunk.reserveCapacity(PackedPoints.blockCapacity)
    }

    mutating func endSegment(extensions: [XMLElementNode]) {
        handOver()
        segmentExtensions[segmentExtensions.count - 1].append(extensions)
    }

    mutating func endTrack(_ track: Track) { headers.append(track) }

    mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode]) {
        self.metadata = metadata
        self.extensions = extensions
    }

    /// Stops the worker when the file turned out bad.
    func discard() { worker.discard() }

    /// Waits for the worker: the tracks with their blocks, and the figures and preview of each `trk` (one of
    /// each for a one-track import).
    func finish() -> (tracks: [PackedTrack], stats: [TrackStats], previews: [[Coordinate]]) {
        let result = worker.finish()
        var tracks: [PackedTrack] = []
        for (index, header) in headers.enumerated() {
            let blocks = index < result.tracks.count ? result.tracks[index].segments : []
            let segments = segmentExtensions[index].enumerated().map { position, extensions in
                PackedSegment(points: PackedPoints(blocks: position < blocks.count ? blocks[position] : []), extensions: extensions)
            }
            tracks.append(PackedTrack(header: header, segments: segments))
        }
        return (tracks, result.stats, result.previews)
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
