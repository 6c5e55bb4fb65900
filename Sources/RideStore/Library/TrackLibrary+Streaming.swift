import Foundation
import RideKit

// Reading a long track for a view or a download without holding it (issue 20, finding 5): the outline first, then
// the points a page of blocks at a time (`RideStore.forEachPointBlock`), each block decimated or written as it comes.

extension TrackLibrary {
    /// The track without its stored points, unless unknown.
    public func outline(_ id: TrackID) async throws -> TrackOutline? {
        try await store.trackOutline(id: id, userID: userID)
    }

    /// The lines of `runs` (the map's `lineRuns` unless said), as `StoredTrack.boundedLineSegments`: never more than
    /// about `maximumPoints` points, every n-th point of each line beyond (its first and last always), in one pass
    /// over the blocks with one line's kept points and one block in memory.
    public func boundedLines(_ outline: TrackOutline, runs: [TrackPointRun]? = nil, maximumPoints: Int) async throws -> [TrackSegment] {
        let runs = runs ?? outline.lineRuns
        let total = runs.reduce(0) { $0 + outline.pointCount(of: $1) }
        let stride = StoredTrack.stride(count: total, maximumPoints: maximumPoints)
        var lines = runs.map { StridedLine(stride: stride, count: outline.pointCount(of: $0)) }
        var index = 0
        var current: TrackPointRun?
        try await store.forEachPointBlock(of: outline, runs: runs, userID: userID) { run, points in
            if current != run {
                // Runs come in the order asked; a run without blocks is skipped over.
                while index < runs.count, runs[index] != run { index += 1 }
                current = run
            }
            guard index < runs.count else { return }
            for point in points { lines[index].add(point) }
        }
        var segments: [TrackSegment] = []
        for index in lines.indices { segments.append(TrackSegment(points: lines[index].take())) }
        return segments
    }

    /// The track's waypoints, at most about `maximumPoints` of them (every n-th beyond), as `StoredTrack.boundedWaypoints`.
    public func boundedWaypoints(_ outline: TrackOutline, maximumPoints: Int) async throws -> [TrackPoint] {
        let runs = outline.runs.filter { $0.role == .waypoints }
        guard !runs.isEmpty else { return [] }
        return try await boundedLines(outline, runs: runs, maximumPoints: maximumPoints).flatMap(\.points)
    }

    /// Writes the track as a GPX 1.1 file a page of blocks at a time, as `TrackContent.writeGPX` writes a content it
    /// holds: the same file, in chunks of tens of kilobytes.
    public func writeGPX(
        _ outline: TrackOutline, kind: TrackKind, extraWaypoints: [TrackPoint] = [], write: ([UInt8]) async throws -> Void
    ) async throws {
        try await outline.track.content.writeGPX(
            kind: kind, extraWaypoints: extraWaypoints,
            points: { role, part, position, body in try await forEachPoints(outline, role: role, part: part, position: position, body) },
            write: write)
    }

    /// Writes the track as GeoJSON a page of blocks at a time, the same bytes as `GeoJSONWriter` writes of its whole
    /// document (with `kind` as each `trk`'s type and `extraWaypoints` after the stored ones).
    public func writeGeoJSON(
        _ outline: TrackOutline, kind: TrackKind, extraWaypoints: [TrackPoint] = [], write: ([UInt8]) async throws -> Void
    ) async throws {
        let content = outline.track.content
        var typed = GPXDocument(tracks: content.tracks.map(\.header))
        typed.setActivityType(kind)
        try await GeoJSONWriter.stream(
            tracks: typed.tracks, segmentCounts: content.tracks.map(\.segments.count), routes: content.routes.map(\.header),
            extraWaypoints: extraWaypoints,
            points: { part, body in
                switch part {
                case .trackSegment(let track, let segment):
                    try await forEachPoints(outline, role: .trackSegment, part: track, position: segment, body)
                case .route(let route): try await forEachPoints(outline, role: .route, part: route, position: 0, body)
                case .waypoints: try await forEachPoints(outline, role: .waypoints, part: 0, position: 0, body)
                }
            },
            write: write)
    }

    /// The points of one run, a block at a time (nothing for a run the track does not have).
    private func forEachPoints(
        _ outline: TrackOutline, role: TrackPointRun.Role, part: Int, position: Int, _ body: ([TrackPoint]) async throws -> Void
    ) async throws {
        guard let run = outline.runs.first(where: { $0.role == role && $0.part == part && $0.position == position }) else { return }
        try await store.forEachPointBlock(of: outline, runs: [run], userID: userID) { _, points in try await body(points) }
    }
}

/// Every `stride`-th point of a line (its first included) and its last, as `PackedPoints.strided(by:)` keeps them,
/// in an array reserved for them once (grown by doubling, it could hold twice the points kept).
struct StridedLine {
    let stride: Int
    private var kept: [TrackPoint] = []
    private var last: TrackPoint?
    private var index = 0

    /// `count`: the points the line has (a capacity, not a limit).
    init(stride: Int, count: Int) {
        self.stride = max(1, stride)
        kept.reserveCapacity(max(0, count) / self.stride + 2)
    }

    mutating func add(_ point: TrackPoint) {
        if index % stride == 0 {
            kept.append(point)
            last = nil
        } else {
            last = point
        }
        index += 1
    }

    /// The points kept, handed over without a copy.
    mutating func take() -> [TrackPoint] {
        if let last { kept.append(last) }
        last = nil
        defer { kept = [] }
        return kept
    }
}
