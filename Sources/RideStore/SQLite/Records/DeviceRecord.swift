import Foundation
import GRDB
import RideKit

/// A row of `device`.
struct DeviceRecord: Hashable {
    var id: DeviceID
    var userId: UserID
    var name: String
    var tokenHash: String
    var `protocol`: String
    var createdAt: Date
    var lastSeenAt: Date?
}

extension DeviceRecord: StoreRecord {
    static let databaseTableName = "device"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let tokenHash = Column(CodingKeys.tokenHash)
        static let lastSeenAt = Column(CodingKeys.lastSeenAt)
        static let createdAt = Column(CodingKeys.createdAt)
    }

    var device: Device {
        Device(
            id: id, userID: userId, name: name, tokenHash: tokenHash, protocolName: `protocol`, createdAt: createdAt,
            lastSeenAt: lastSeenAt)
    }
}
