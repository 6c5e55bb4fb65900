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

    /// Read by column, not through `Decodable`: a device is read on every phone-app post, and GRDB's
    /// `Decodable` path cost more than the query.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        userId = try row.decode(forColumn: "userId")
        name = try row.decode(forColumn: "name")
        tokenHash = try row.decode(forColumn: "tokenHash")
        `protocol` = try row.decode(forColumn: "protocol")
        createdAt = Date(storeMilliseconds: try row.decode(forColumn: "createdAt"))
        lastSeenAt = (try row.decode(Double?.self, forColumn: "lastSeenAt")).map(Date.init(storeMilliseconds:))
    }

    var device: Device {
        Device(
            id: id, userID: userId, name: name, tokenHash: tokenHash, protocolName: `protocol`, createdAt: createdAt,
            lastSeenAt: lastSeenAt)
    }
}
