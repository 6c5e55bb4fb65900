import Foundation
import RideKit

/// A row of `segment` (`segments`): one run of points of a track — a `trkseg`, a route's points, or the waypoints.
package struct SegmentRecord: Hashable, Codable, Sendable {
    var id: Int64?
    var trackId: TrackID
    var role: Role
    /// The index of the `trk` (or of the route) within the track.
    var part: Int
    /// The index of the segment within its `trk` (0 for routes and waypoints).
    var position: Int
    var pointCount: Int

    /// What the points are: the stored number is the same in both stores.
    package enum Role: Int, Codable, Sendable {
        case trackSegment = 0
        case route = 1
        case waypoints = 2
    }
}
