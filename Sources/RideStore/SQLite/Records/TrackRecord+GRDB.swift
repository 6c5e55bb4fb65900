import Foundation
import GRDB
import RideKit

// `package`, as the row type is (the PostgreSQL store shares it): a conformance's members are as visible as it.
extension TrackRecord: StoreRecord {
    package static let databaseTableName = "track"
    package static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    package static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }

    package enum Columns {
        static let id = Column("id")
        static let userId = Column("userId")
        static let name = Column("name")
        static let kind = Column("kind")
        static let state = Column("state")
        static let importId = Column("importId")
        static let importPosition = Column("importPosition")
        static let sortKey = Column("sortKey")
        static let pointCount = Column("pointCount")
        static let segmentCount = Column("segmentCount")
        static let documentName = Column("documentName")
        static let deletedAt = Column("deletedAt")
        static let createdAt = Column("createdAt")
        static let updatedAt = Column("updatedAt")
        static let stats = Column("stats")
    }

    /// Every write of a track's row writes its best efforts too (`EffortRules`): whatever path changed its figures
    /// (an import, an edit, a recording stopped, a device's track grown), the records follow.
    package func aroundSave(_ db: Database, save: () throws -> PersistenceSuccess) throws {
        _ = try save()
        try SQLiteRideStore.writeEfforts(db, trackID: id, stats: stats)
    }
}

extension TrackSummaryRow: FetchableRecord, TableRecord {
    package static let databaseTableName = "track"
    package static var databaseSelection: [any SQLSelectable] { columnNames.map { Column($0) } }

    package static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }
}
