import Foundation
import GRDB
import RideKit

extension SegmentRecord.Role: DatabaseValueConvertible {}

// `package`, as the row type is: a conformance's members are as visible as it.
extension SegmentRecord: StoreRecord {
    package static let databaseTableName = "segment"
    package static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    package static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }

    package enum Columns {
        static let id = Column("id")
        static let trackId = Column("trackId")
        static let role = Column("role")
        static let part = Column("part")
        static let position = Column("position")
        static let pointCount = Column("pointCount")
    }

    package mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}
