import Foundation
import RideKit

extension StoredTrack {
    /// Points at most in the line of the track page and in a profile's input (every n-th point beyond): a
    /// 10-million-point track is drawn from 100,000 of them, read one block at a time.
    public static let viewPointLimit = 100_000

    /// The lines a map draws of the track: its segments, or its routes' points when it has no `trk` (a
    /// planned route), points unpacked.
    public func lineSegments() throws -> [TrackSegment] {
        if content.tracks.isEmpty {
            return try content.routes.map { TrackSegment(points: try $0.points.points()) }
        }
        var segments: [TrackSegment] = []
        for packed in content.tracks {
            for segment in packed.segments { segments.append(TrackSegment(points: try segment.points.points())) }
        }
        return segments
    }

    /// The lines a map or a profile draws of the track, as `lineSegments()`, but never more than about
    /// `maximumPoints` of them: a longer track keeps every n-th point of each line (its first and last always),
    /// read one block at a time, so that a 10-million-point track is drawn in bounded memory. Up to
    /// `maximumPoints`, every point.
    public func boundedLineSegments(maximumPoints: Int) throws -> [TrackSegment] {
        let lines: [PackedPoints] =
            content.tracks.isEmpty ? content.routes.map(\.points) : content.tracks.flatMap { $0.segments.map(\.points) }
        let total = lines.reduce(0) { $0 + $1.count }
        let stride = Self.stride(count: total, maximumPoints: maximumPoints)
        return try lines.map { TrackSegment(points: try $0.strided(by: stride)) }
    }

    /// The track's waypoints, at most about `maximumPoints` of them (every n-th beyond).
    public func boundedWaypoints(maximumPoints: Int) throws -> [TrackPoint] {
        try content.waypoints.strided(by: Self.stride(count: content.waypoints.count, maximumPoints: maximumPoints))
    }

    /// Every how many points to keep so that `count` become at most about `maximumPoints`.
    static func stride(count: Int, maximumPoints: Int) -> Int {
        max(1, (count + max(1, maximumPoints) - 1) / max(1, maximumPoints))
    }

    /// Points in all of the track's lines, routes and waypoints: what a download writes.
    public var storedPointCount: Int {
        content.trackPointCount + content.routes.reduce(0) { $0 + $1.points.count } + content.waypoints.count
    }

    /// The latitude in the middle of the track's box: where a map's pixel is measured when its line is
    /// simplified for a zoom.
    public var middleLatitude: Double {
        if let bounds = summary.bounds { return (bounds.minLatitude + bounds.maxLatitude) / 2 }
        return summary.preview.first?.latitude ?? 0
    }
}
