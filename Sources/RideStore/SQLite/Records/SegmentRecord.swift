import Foundation
import GRDB
import RideKit

/// A row of `segment`: one run of points of a track — a `trkseg`, a route's points, or the waypoints.
struct SegmentRecord: Hashable {
    var id: Int64?
    var trackId: TrackID
    var role: Role
    /// The index of the `trk` (or of the route) within the track.
    var part: Int
    /// The index of the segment within its `trk` (0 for routes and waypoints).
    var position: Int
    var pointCount: Int

    /// What the points are.
    enum Role: Int, Codable, DatabaseValueConvertible {
        case trackSegment = 0
        case route = 1
        case waypoints = 2
    }
}

extension SegmentRecord: StoreRecord {
    static let databaseTableName = "segment"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let trackId = Column(CodingKeys.trackId)
        static let role = Column(CodingKeys.role)
        static let part = Column(CodingKeys.part)
        static let position = Column(CodingKeys.position)
        static let pointCount = Column(CodingKeys.pointCount)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
