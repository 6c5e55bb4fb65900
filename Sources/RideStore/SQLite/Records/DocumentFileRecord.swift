import Foundation
import GRDB
import RideKit

/// A row of `documentFile`.
struct DocumentFileRecord: Hashable {
    var userId: UserID
    var path: String
    var trackId: TrackID?
    var byteCount: Int
    var modifiedNanoseconds: Int64
    var contentHash: String
    var syncedAt: Date
}

extension DocumentFileRecord: StoreRecord {
    static let databaseTableName = "documentFile"

    enum Columns {
        static let userId = Column(CodingKeys.userId)
        static let path = Column(CodingKeys.path)
    }

    init(_ file: DocumentFile, userId: UserID) {
        self.init(
            userId: userId, path: file.path, trackId: file.trackID, byteCount: file.byteCount,
            modifiedNanoseconds: file.modifiedNanoseconds, contentHash: file.contentHash, syncedAt: file.syncedAt)
    }

    var file: DocumentFile {
        DocumentFile(
            path: path, trackID: trackId, byteCount: byteCount, modifiedNanoseconds: modifiedNanoseconds,
            contentHash: contentHash, syncedAt: syncedAt)
    }
}
