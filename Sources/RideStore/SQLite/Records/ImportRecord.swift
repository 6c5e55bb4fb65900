import Foundation
import GRDB
import RideKit

/// A row of `trackImport`: one file imported in one transaction, remembered by its content hash.
struct ImportRecord: Hashable {
    var id: ImportID
    var userId: UserID
    var contentHash: String
    var fileName: String?
    var format: String
    var byteCount: Int
    var importedAt: Date
}

extension ImportRecord: StoreRecord {
    static let databaseTableName = "trackImport"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let contentHash = Column(CodingKeys.contentHash)
    }
}
