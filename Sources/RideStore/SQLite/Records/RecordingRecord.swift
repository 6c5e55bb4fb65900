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
    /// JSON of `RecordingOptionsRecord` (migration v2); nil for older recordings.
    var options: String?
    /// The id the client chose, for a recording started offline (migration v2).
    var clientId: String?
    /// For a device's live track: how many points its stored figures cover, and the time (ms) of the last
    /// fix they cover (migration v7).
    var figuresPointCount: Int? = nil
    var figuresUntil: Int64? = nil
}

extension RecordingRecord: StoreRecord {
    static let databaseTableName = "recording"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let state = Column(CodingKeys.state)
        static let startedAt = Column(CodingKeys.startedAt)
        static let clientId = Column(CodingKeys.clientId)
    }

    /// Read by column, not through `Decodable`: a device's recording is read on every phone-app post.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        userId = try row.decode(forColumn: "userId")
        trackId = try row.decode(forColumn: "trackId")
        deviceId = try row.decode(forColumn: "deviceId")
        state = try row.decode(forColumn: "state")
        routeTrackId = try row.decode(forColumn: "routeTrackId")
        lastClientSequence = try row.decode(forColumn: "lastClientSequence")
        startedAt = Date(storeMilliseconds: try row.decode(forColumn: "startedAt"))
        updatedAt = Date(storeMilliseconds: try row.decode(forColumn: "updatedAt"))
        stoppedAt = (try row.decode(Double?.self, forColumn: "stoppedAt")).map(Date.init(storeMilliseconds:))
        options = try row.decode(forColumn: "options")
        clientId = try row.decode(forColumn: "clientId")
        figuresPointCount = try row.decode(forColumn: "figuresPointCount")
        figuresUntil = try row.decode(forColumn: "figuresUntil")
    }
}
