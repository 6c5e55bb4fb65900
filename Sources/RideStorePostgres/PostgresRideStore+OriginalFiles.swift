import Foundation
import Logging
import PostgresNIO
import RideKit
import RideStore

extension PostgresRideStore {
    public func originalFile(trackID: TrackID, userID: UserID) async throws -> OriginalFile? {
        try await transaction(readOnly: true) { [logger] connection in
            // Only when the file gave this one track: a file of several tracks is not each track's file.
            let rows = try await connection.query(
                """
                SELECT track_imports.file_name, track_imports.format, import_originals.bytes FROM tracks
                JOIN track_imports ON track_imports.id = tracks.import_id
                JOIN import_originals ON import_originals.import_id = tracks.import_id
                WHERE tracks.id = \(trackID.rawValue) AND tracks.user_id = \(userID.rawValue)
                  AND (SELECT count(*) FROM tracks AS other WHERE other.import_id = tracks.import_id) = 1
                """, logger: logger)
            var found: OriginalFile?
            for try await (fileName, format, bytes) in rows.decode((String?, String, Data).self) {
                guard let format = TrackFileFormat(rawValue: format) else { continue }
                found = OriginalFile(fileName: fileName, format: format, bytes: bytes)
            }
            return found
        }
    }
}
