import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    public func documentFiles(userID: UserID) async throws -> [DocumentFile] {
        try await read { db in
            try DocumentFileRecord.filter(DocumentFileRecord.Columns.userId == userID).order(DocumentFileRecord.Columns.path).fetchAll(db).map(\.file)
        }
    }

    public func saveDocumentFile(_ file: DocumentFile, userID: UserID) async throws {
        try await write { db in
            try Self.requireUser(db, userID)
            try DocumentFileRecord(file, userId: userID).upsert(db)
            if let trackID = file.trackID {
                try db.execute(
                    sql: "UPDATE track SET documentName = ? WHERE id = ? AND userId = ?", arguments: [file.path, trackID, userID])
            }
        }
    }

    public func removeDocumentFile(path: String, userID: UserID) async throws {
        try await write { db in
            _ = try DocumentFileRecord.deleteOne(db, key: ["userId": userID.databaseValue, "path": path.databaseValue])
        }
    }

    public func tracksWithoutDocument(userID: UserID, limit: Int) async throws -> [TrackSummary] {
        try await read { db in
            try TrackSummaryRow.filter(
                TrackRecord.Columns.userId == userID && TrackRecord.Columns.deletedAt == nil
                    && TrackRecord.Columns.documentName == nil && TrackRecord.Columns.state == TrackState.complete
            ).order(TrackRecord.Columns.sortKey, TrackRecord.Columns.id).limit(max(0, limit)).fetchAll(db).map(\.summary)
        }
    }
}
