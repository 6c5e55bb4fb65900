import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Migration "v13 original files" (issue 23): `importOriginal`, the bytes of an imported file kept as it came
    /// (`OriginalFileRules`: FIT files up to 16 MiB), one row per import, gone with it.
    static func registerOriginalFilesMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13 original files") { db in
            try db.create(table: "importOriginal") { t in
                t.primaryKey("importId", .text).references("trackImport", onDelete: .cascade)
                t.column("bytes", .blob).notNull()
            }
        }
    }

    public func originalFile(trackID: TrackID, userID: UserID) async throws -> OriginalFile? {
        try await read { db in
            // Only when the file gave this one track: a file of several tracks is not each track's file.
            guard let row = try Row.fetchOne(
                db, sql: """
                    SELECT trackImport.fileName, trackImport.format, importOriginal.bytes FROM track
                    JOIN trackImport ON trackImport.id = track.importId
                    JOIN importOriginal ON importOriginal.importId = track.importId
                    WHERE track.id = ? AND track.userId = ? AND (SELECT COUNT(*) FROM track AS other WHERE other.importId = track.importId) = 1
                    """, arguments: [trackID, userID]),
                  let format = TrackFileFormat(rawValue: row[1])
            else { return nil }
            return OriginalFile(fileName: row[0], format: format, bytes: row[2])
        }
    }
}
