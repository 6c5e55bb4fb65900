import Foundation
import RideKit

/// Puts a track's stored points into its content (made from its headers): both stores read the rows of its
/// segments joined with their blocks, ordered by role, part, position and block position, and hand each row here.
/// A row that cannot be a track's (a part or position out of range, an unknown role, a block claiming more points
/// than a block holds) is damage, said as `RideStoreError.damaged`, whichever the store.
package struct PointRunAssembler {
    /// Parts and positions beyond this are no file's: a damaged row, not a track to grow a million headers for.
    package static let maximumIndex = 1_000_000

    private let trackID: TrackID
    private var current: (role: Int, part: Int, position: Int)?
    private var blocks: [PointBlock] = []

    package init(trackID: TrackID) { self.trackID = trackID }

    /// One row: a segment and one of its blocks (`pointCount` and `data` nil for a segment without blocks).
    package mutating func add(
        role: Int, part: Int, position: Int, pointCount: Int?, data: Data?, into content: inout TrackContent
    ) throws {
        let key = (role: role, part: part, position: position)
        if current == nil || current! != key {
            try flush(into: &content)
            current = key
        }
        if let pointCount, let data {
            guard (0...PackedPoints.blockCapacity).contains(pointCount) else {
                throw RideStoreError.damaged("a point block of track \(trackID) claims \(pointCount) points")
            }
            blocks.append(PointBlock(pointCount: pointCount, data: data))
        }
    }

    /// After the last row: puts the last segment's points in place.
    package mutating func finish(into content: inout TrackContent) throws {
        try flush(into: &content)
        current = nil
    }

    private mutating func flush(into content: inout TrackContent) throws {
        guard let key = current else { return }
        let points = PackedPoints(blocks: blocks)
        blocks = []
        guard (0..<Self.maximumIndex).contains(key.part), (0..<Self.maximumIndex).contains(key.position) else {
            throw RideStoreError.damaged("segment \(key.part).\(key.position) of track \(trackID)")
        }
        guard let role = TrackPointRun.Role(rawValue: key.role) else {
            throw RideStoreError.damaged("segment role \(key.role) of track \(trackID)")
        }
        Self.place(points, role: role, part: key.part, position: key.position, into: &content)
    }

    /// Puts a run's points at its place in the content, making the tracks, segments and routes before it present.
    package static func place(_ points: PackedPoints, role: TrackPointRun.Role, part: Int, position: Int, into content: inout TrackContent) {
        switch role {
        case .trackSegment:
            while content.tracks.count <= part { content.tracks.append(PackedTrack(header: Track(), segments: [])) }
            while content.tracks[part].segments.count <= position { content.tracks[part].segments.append(PackedSegment()) }
            content.tracks[part].segments[position].points = points
        case .route:
            while content.routes.count <= part { content.routes.append(PackedRoute(header: Route(), points: PackedPoints())) }
            content.routes[part].points = points
        case .waypoints:
            content.waypoints = points
        }
    }
}
