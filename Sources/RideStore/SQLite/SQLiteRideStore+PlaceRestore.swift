import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    public func createPlaces(_ places: [NewPlace], userID: UserID) async throws -> [Place] {
        for place in places { try PlaceRules.validate(place) }
        return try await write { db in
            try Self.requireUser(db, userID)
            let now = StoreClock.now()
            let records = try places.map { try Self.insertPlace($0, userID: userID, now: now, db) }
            let labels = try Self.labels(db, placeIDs: records.map(\.id))
            return records.map { $0.place(labels: labels[$0.id] ?? []) }
        }
    }

    public func restorePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID] {
        try await write { db in
            let found = try PlaceRecord.select(PlaceRecord.Columns.id, as: PlaceID.self)
                .filter(keys: ids).filter(PlaceRecord.Columns.userId == userID && PlaceRecord.Columns.deletedAt != nil).fetchAll(db)
            try PlaceRecord.filter(keys: found).updateAll(db, PlaceRecord.Columns.deletedAt.set(to: nil))
            return ids.filter(found.contains)
        }
    }

    public func purgeDeletedPlaces(deletedBefore date: Date) async throws -> [PlaceID] {
        let (purged, files) = try await write { db -> ([PlaceID], [String]) in
            let ids = try PlaceID.fetchAll(
                db, sql: "SELECT id FROM place WHERE deletedAt IS NOT NULL AND deletedAt < ?", arguments: [StoreClock.milliseconds(date)])
            var files: [String] = []
            for chunk in stride(from: 0, to: ids.count, by: 500).map({ Array(ids[$0..<min($0 + 500, ids.count)]) }) {
                let marks = chunk.map { _ in "?" }.joined(separator: ", ")
                files += try Self.photoFiles(
                    db,
                    sql: "SELECT photo.fileName, photo.thumbnailFileName FROM photo JOIN note ON note.id = photo.noteId WHERE note.placeId IN (\(marks))",
                    arguments: StatementArguments(chunk))
                // Notes and photos go with their place (foreign keys, ON DELETE CASCADE).
                try db.execute(sql: "DELETE FROM place WHERE id IN (\(marks))", arguments: StatementArguments(chunk))
            }
            return (ids, files)
        }
        // After the commit: a crash before this line leaves files no row names, removed at the next start.
        photoFolder.remove(files)
        return purged
    }
}
