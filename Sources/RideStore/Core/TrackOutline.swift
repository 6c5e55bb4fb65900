import Foundation
import RideKit

/// One run of a stored track's points: a `trkseg`, a route's points or the waypoints, as `TrackContent` holds
/// them, and where its blocks are stored.
public struct TrackPointRun: Sendable, Hashable {
    /// What the points are (the stored number is `SegmentRecord.Role`'s, the same in both stores).
    public enum Role: Int, Sendable, Hashable {
        case trackSegment = 0
        case route = 1
        case waypoints = 2
    }

    public var role: Role
    /// The index of the `trk` (or of the route).
    public var part: Int
    /// The index of the segment within its `trk` (0 for routes and waypoints).
    public var position: Int
    /// Points in the run's stored blocks.
    public var storedPointCount: Int
    /// The stored segment; nil for a run that only the outline holds (a device's fixes before its first block).
    package var segmentID: Int64?
}

/// A stored track without its stored points: its row, figures, headers (`track.content`, every run present but
/// holding only the points not in blocks yet: a live device track's waiting fixes) and its runs in order, with
/// how many points each holds. What a request reads first, so that it then reads the points a page of blocks at a
/// time (`RideStore.forEachPointBlock`) instead of the whole track at once: a 10-million-point track is about
/// 100 MB of blocks, and ten times that unpacked.
public struct TrackOutline: Sendable {
    public var track: StoredTrack
    /// Ordered by role, part and position: the order of `RideStore.track(id:userID:)`'s content.
    public var runs: [TrackPointRun]

    public var summary: TrackSummary { track.summary }

    /// The points of a run that the outline holds itself (read with it, not in blocks).
    public func heldPoints(of run: TrackPointRun) throws -> [TrackPoint] {
        let content = track.content
        switch run.role {
        case .trackSegment:
            guard content.tracks.indices.contains(run.part), content.tracks[run.part].segments.indices.contains(run.position) else { return [] }
            return try content.tracks[run.part].segments[run.position].points.points()
        case .route:
            guard content.routes.indices.contains(run.part) else { return [] }
            return try content.routes[run.part].points.points()
        case .waypoints:
            return try content.waypoints.points()
        }
    }

    /// All points of a run: stored and held.
    public func pointCount(of run: TrackPointRun) -> Int {
        let content = track.content
        let held: Int
        switch run.role {
        case .trackSegment:
            held = content.tracks.indices.contains(run.part) && content.tracks[run.part].segments.indices.contains(run.position)
                ? content.tracks[run.part].segments[run.position].points.count : 0
        case .route: held = content.routes.indices.contains(run.part) ? content.routes[run.part].points.count : 0
        case .waypoints: held = content.waypoints.count
        }
        return run.storedPointCount + held
    }

    /// The runs a map draws, as `StoredTrack.lineSegments`: the track segments, or the routes' points when the
    /// track has no `trk` (a planned route).
    public var lineRuns: [TrackPointRun] {
        runs.filter { $0.role == (track.content.tracks.isEmpty ? .route : .trackSegment) }
    }

    /// The runs a route is followed along, as the cue sheet takes them: the routes' points when there is no track
    /// point, else the track segments.
    public var routeRuns: [TrackPointRun] {
        let segments = runs.filter { $0.role == .trackSegment }
        let routes = runs.filter { $0.role == .route }
        return segments.allSatisfy({ pointCount(of: $0) == 0 }) && !track.content.routes.isEmpty ? routes : segments
    }

    /// Points in all runs: what a download writes.
    public var pointCount: Int { runs.reduce(0) { $0 + pointCount(of: $1) } }
}

/// How both stores build an outline and walk a track's blocks: one rule, one place.
package enum TrackOutlineRules {
    /// Blocks a store reads in one query: about 640 KB of a typical ride's blocks, whatever the track's length.
    package static let blocksPerPage = 64

    /// The outline from the track's headers (`content` as `TrackHeaderCodec` decodes it), its segment rows (any
    /// order) and a live device track's waiting fixes. Rows that cannot be a track's are damage, as in
    /// `PointRunAssembler`.
    package static func outline(
        summary: TrackSummary, stats: TrackStats, device: DeviceMeasurements?, headers content: TrackContent,
        segments: [(id: Int64, role: Int, part: Int, position: Int, pointCount: Int)], waiting: [TrackerFix]
    ) throws -> TrackOutline {
        var content = content
        var runs: [TrackPointRun] = []
        let trackID = summary.id
        for row in segments.sorted(by: { ($0.role, $0.part, $0.position) < ($1.role, $1.part, $1.position) }) {
            guard let role = TrackPointRun.Role(rawValue: row.role) else {
                throw RideStoreError.damaged("segment role \(row.role) of track \(trackID)")
            }
            guard (0..<PointRunAssembler.maximumIndex).contains(row.part), (0..<PointRunAssembler.maximumIndex).contains(row.position),
                  row.pointCount >= 0
            else { throw RideStoreError.damaged("segment \(row.part).\(row.position) of track \(trackID)") }
            // The run is made present in the content (empty), as the whole read's assembler places it.
            PointRunAssembler.place(PackedPoints(), role: role, part: row.part, position: row.position, into: &content)
            runs.append(TrackPointRun(role: role, part: row.part, position: row.position, storedPointCount: row.pointCount, segmentID: row.id))
        }
        DeviceIngestRules.appendWaiting(waiting, to: &content)
        // Waiting fixes of a device track without a segment yet: a run of the outline alone.
        if !waiting.isEmpty, !runs.contains(where: { $0.role == .trackSegment && $0.part == 0 && $0.position == content.tracks[0].segments.count - 1 }) {
            let run = TrackPointRun(role: .trackSegment, part: 0, position: content.tracks[0].segments.count - 1, storedPointCount: 0, segmentID: nil)
            runs.append(run)
            runs.sort { ($0.role.rawValue, $0.part, $0.position) < ($1.role.rawValue, $1.part, $1.position) }
        }
        return TrackOutline(
            track: StoredTrack(summary: summary, stats: stats, content: content, device: device), runs: runs)
    }

    /// Checks one page of a run's blocks (positions ascending after `after`, each a block's count at most) and
    /// unpacks each block in turn; returns the last position seen.
    package static func walk(
        page: [(position: Int, pointCount: Int, data: Data)], after: Int?, trackID: TrackID,
        _ body: (PointBlock) async throws -> Void
    ) async throws -> Int? {
        var last = after
        for row in page {
            guard last.map({ row.position > $0 }) ?? true else {
                throw RideStoreError.damaged("the point blocks of track \(trackID) are out of order")
            }
            guard (0...PackedPoints.blockCapacity).contains(row.pointCount) else {
                throw RideStoreError.damaged("a point block of track \(trackID) claims \(row.pointCount) points")
            }
            last = row.position
            try await body(PointBlock(pointCount: row.pointCount, data: row.data))
        }
        return last
    }
}

extension RideStore {
    /// Calls `body` with the points of each stored block of the outline's `runs` (all of them when nil), in the
    /// order given and each run's blocks in order, then the points the outline holds for the run (a device's
    /// waiting fixes): the same points, in the same order, as `track(id:userID:)`'s content, with no more than a
    /// page of blocks (`TrackOutlineRules.blocksPerPage`) read and one block unpacked at a time.
    ///
    /// A track changed between pages (a recording appending) may be seen partly before and partly after.
    public func forEachPointBlock(
        of outline: TrackOutline, runs: [TrackPointRun]? = nil, userID: UserID,
        _ body: (TrackPointRun, [TrackPoint]) async throws -> Void
    ) async throws {
        let trackID = outline.summary.id
        var points: [TrackPoint] = []
        points.reserveCapacity(PackedPoints.blockCapacity)
        for run in runs ?? outline.runs {
            if let segmentID = run.segmentID {
                var after: Int?
                while true {
                    let page = try await pointBlockPage(
                        segmentID: segmentID, trackID: trackID, userID: userID, after: after, limit: TrackOutlineRules.blocksPerPage)
                    after = try await TrackOutlineRules.walk(page: page, after: after, trackID: trackID) { block in
                        points.removeAll(keepingCapacity: true)
                        try PointBlockDecoder.decode(block.data, into: &points)
                        guard points.count == block.pointCount else {
                            throw RideStoreError.damaged("a point block of track \(trackID) says \(block.pointCount) points and holds \(points.count)")
                        }
                        try await body(run, points)
                    }
                    if page.count < TrackOutlineRules.blocksPerPage { break }
                }
            }
            let held = try outline.heldPoints(of: run)
            if !held.isEmpty { try await body(run, held) }
        }
    }
}
