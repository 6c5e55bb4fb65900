import Foundation
import GRDB
import RideKit

/// A row of `recording`.
struct RecordingRecord: Hashable {
    var id: RecordingID
    var userId: UserID
    var trackId: TrackID
    var deviceId: DeviceID?
    var state: RecordingState
    var routeTrackId: TrackID?
    var lastClientSequence: Int64?
    var startedAt: Date
    var updatedAt: Date
    var stoppedAt: Date?
}

extension RecordingRecord: StoreRecord {
    static let databaseTableName = "recording"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let state = Column(CodingKeys.state)
        static let startedAt = Column(CodingKeys.startedAt)
    }
}
