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
    /// Points one track may have (`StorageLimits.maximumTrackPoints`); past it the points are counted, not kept,
    /// and the import is refused once the file is read (`limitError`).
    let maximumTrackPoints: Int?
    /// Points of the track being read (of the file, for a one-track import), and the most any track had.
    private var currentTrackPoints = 0
    private(set) var largestTrackPoints = 0

    init(oneTrack: Bool, activity: ActivityKind, maximumTrackPoints: Int? = nil) {
        self.oneTrack = oneTrack
        self.activity = activity
        self.maximumTrackPoints = maximumTrackPoints
        worker = ImportWorker(oneTrack: oneTrack, activity: activity)
    }

    /// Why the file cannot be saved under the limits, nil when it can.
    var limitError: RideStoreError? {
        guard let maximumTrackPoints, largestTrackPoints > maximumTrackPoints else { return nil }
        return .limitExceeded(
            "a track of this file has \(largestTrackPoints) points, more than the \(maximumTrackPoints) this server keeps in one track "
                + "(serve --max-track-points)")
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
        if !oneTrack { currentTrackPoints = 0 }
        segmentExtensions.append([])
        worker.submit(.beginTrack)
    }

    mutating func beginSegment() {
        worker.submit(.beginSegment)
        chunk.reserveCapacity(PackedPoints.blockCapacity)
    }

    mutating func trackPoint(_ point: TrackPoint) {
        pointCount += 1
        currentTrackPoints += 1
        largestTrackPoints = max(largestTrackPoints, currentTrackPoints)
        // Over the limit the file will be refused: nothing more is kept, so that memory stays bounded however
        // many points follow (the reading goes on, in time linear in the file, to count them).
        if let maximumTrackPoints, currentTrackPoints > maximumTrackPoints { return }
        chunk.append(point)
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
