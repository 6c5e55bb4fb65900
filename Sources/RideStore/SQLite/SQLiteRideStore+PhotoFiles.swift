import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Places can be deleted and restored (`place.deletedAt`), and photos are files of the store's `PhotoFolder`
    /// (`photo.fileName`, with an optional thumbnail file and its type). `photo.bytes` stays, empty for new photos:
    /// a photo stored before this migration keeps its bytes there until `preparePhotoFolder` moves them out.
    static func registerPlaceRestoreAndPhotoFilesMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4 place restore and photo files") { db in
            try db.alter(table: "place") { t in
                t.add(column: "deletedAt", .integer)
            }
            try db.alter(table: "photo") { t in
                t.add(column: "fileName", .text)
                t.add(column: "thumbnailFileName", .text)
                t.add(column: "thumbnailMediaType", .text)
            }
        }
    }

    /// At open: creates the photos folder, moves photos still held in the database out to files (one at a time,
    /// each file flushed before its row names it, so a crash midway loses nothing: the rest move at the next
    /// start, and a photo is readable from its row until then), then removes what a crash may have left.
    func preparePhotoFolder() throws {
        try photoFolder.create()
        let folder = photoFolder
        let pending = try writer.read { db in
            try PhotoID.fetchAll(db, sql: "SELECT id FROM photo WHERE fileName IS NULL")
        }
        for id in pending {
            do {
                try writer.write { db in
                    guard let record = try PhotoRecord.fetchOne(db, key: id), record.fileName == nil else { return }
                    let prepared = try PreparedPhotoFiles(bytes: record.bytes, mediaType: record.mediaType, folder: folder)
                    let names: (file: String, thumbnail: String?)
                    do {
                        names = try prepared.install(photoID: id, mediaType: record.mediaType, folder: folder)
                    } catch {
                        prepared.discard(folder: folder)
                        throw error
                    }
                    try db.execute(
                        sql: "UPDATE photo SET fileName = ?, thumbnailFileName = ?, thumbnailMediaType = ?, bytes = x'' WHERE id = ?",
                        arguments: [names.file, names.thumbnail, names.thumbnail == nil ? nil : "image/jpeg", id])
                }
            } catch {
                throw Self.storeError(error)
            }
        }
        let referenced = try writer.read { db in
            Set(try String.fetchAll(db, sql: "SELECT fileName FROM photo WHERE fileName IS NOT NULL UNION ALL SELECT thumbnailFileName FROM photo WHERE thumbnailFileName IS NOT NULL"))
        }
        folder.removeLeftovers(referenced: referenced)
    }

    /// A photo's bytes (and its JPEG's EXIF thumbnail, if any) written to temporary files and flushed, before the
    /// transaction: the write lock is then held only for two renames, not for writing and flushing megabytes (fix
    /// batches of a ride in progress wait for that lock).
    struct PreparedPhotoFiles {
        let photo: URL
        let thumbnail: URL?

        init(bytes: Data, mediaType: String, folder: PhotoFolder) throws {
            photo = try folder.writeTemporary(bytes)
            guard mediaType == "image/jpeg", let range = JPEGThumbnail.range(in: bytes) else {
                thumbnail = nil
                return
            }
            do {
                thumbnail = try folder.writeTemporary(bytes.subdata(in: (bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound)))
            } catch {
                folder.remove(temporary: photo)
                throw error
            }
        }

        /// Gives the files their names (inside the transaction that stores the row naming them).
        func install(photoID: PhotoID, mediaType: String, folder: PhotoFolder) throws -> (file: String, thumbnail: String?) {
            let name = PhotoFolder.fileName(photoID: photoID, mediaType: mediaType)
            try folder.install(photo, as: name)
            guard let thumbnail else { return (name, nil) }
            let thumbnailName = PhotoFolder.fileName(photoID: photoID, mediaType: "image/jpeg", thumbnail: true)
            try folder.install(thumbnail, as: thumbnailName)
            return (name, thumbnailName)
        }

        /// Removes what is left of the temporary files (none once installed).
        func discard(folder: PhotoFolder) {
            folder.remove(temporary: photo)
            if let thumbnail { folder.remove(temporary: thumbnail) }
        }
    }

    public func addPhoto(noteID: NoteID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo {
        let mediaType = try PhotoRules.mediaType(mediaType)
        try PhotoRules.validate(photo: bytes)
        let folder = photoFolder
        let prepared = try PreparedPhotoFiles(bytes: bytes, mediaType: mediaType, folder: folder)
        // The id is chosen before the transaction so that, should the transaction fail after the files got their
        // names (on commit), the files can be removed.
        let id = PhotoID.random()
        do {
            return try await write { db in
                guard let note = try Self.noteRecord(db, id: noteID, userID: userID) else {
                    throw RideStoreError.notFound(kind: "note", id: noteID.rawValue)
                }
                guard try PhotoRecord.exists(db, key: id) == false else { throw RideStoreError.conflict("photo id \(id) is taken; try again") }
                let names = try prepared.install(photoID: id, mediaType: mediaType, folder: folder)
                let record = PhotoRecord(
                    id: id, noteId: noteID, mediaType: mediaType, byteCount: bytes.count, bytes: Data(), createdAt: StoreClock.now(),
                    fileName: names.file, thumbnailFileName: names.thumbnail, thumbnailMediaType: names.thumbnail == nil ? nil : "image/jpeg")
                try db.execute(
                    sql: """
                        INSERT INTO photo (id, noteId, mediaType, byteCount, bytes, createdAt, fileName, thumbnailFileName, thumbnailMediaType)
                        VALUES (?, ?, ?, ?, x'', ?, ?, ?, ?)
                        """,
                    arguments: [
                        record.id, record.noteId, record.mediaType, record.byteCount, StoreClock.milliseconds(record.createdAt), record.fileName,
                        record.thumbnailFileName, record.thumbnailMediaType,
                    ])
                try Self.touchPlace(db, note.placeId, record.createdAt)
                return record.info
            }
        } catch {
            prepared.discard(folder: folder)
            // Nothing names the files (the transaction did not commit): remove what got a name, if anything.
            if try await photoRow(id) == false {
                folder.remove([
                    PhotoFolder.fileName(photoID: id, mediaType: mediaType),
                    PhotoFolder.fileName(photoID: id, mediaType: "image/jpeg", thumbnail: true),
                ])
            }
            throw error
        }
    }

    /// True when a row of `photo` has this id.
    private func photoRow(_ id: PhotoID) async throws -> Bool {
        try await read { db in try PhotoRecord.exists(db, key: id) }
    }

    public func photo(id: PhotoID, userID: UserID) async throws -> PhotoData? {
        guard let record = try await photoRecord(id: id, userID: userID) else { return nil }
        let bytes = try record.fileName.map { try photoFolder.read($0) } ?? record.bytes
        return PhotoData(info: record.info, bytes: bytes)
    }

    /// A photo's thumbnail (its type in `info.mediaType`, its size in `info.byteCount`), or nil when the photo has
    /// none or is not the user's.
    public func photoThumbnail(id: PhotoID, userID: UserID) async throws -> PhotoData? {
        guard let record = try await photoRecord(id: id, userID: userID), let name = record.thumbnailFileName else { return nil }
        let bytes = try photoFolder.read(name)
        var info = record.info
        info.mediaType = record.thumbnailMediaType ?? "image/jpeg"
        info.byteCount = bytes.count
        return PhotoData(info: info, bytes: bytes)
    }

    /// Sets (or replaces) a photo's thumbnail: a small image the browser made when the photo had none of its own.
    public func setPhotoThumbnail(id: PhotoID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo {
        try PhotoRules.validate(thumbnail: bytes)
        let folder = photoFolder
        let temporary = try folder.writeTemporary(bytes)
        do {
            let (info, replaced) = try await write { db -> (PhotoInfo, String?) in
                guard var record = try Self.photoRecord(db, id: id, userID: userID) else {
                    throw RideStoreError.notFound(kind: "photo", id: id.rawValue)
                }
                let name = PhotoFolder.fileName(photoID: id, mediaType: mediaType, thumbnail: true)
                try folder.install(temporary, as: name)
                let replaced = record.thumbnailFileName.flatMap { $0 == name ? nil : $0 }
                record.thumbnailFileName = name
                record.thumbnailMediaType = mediaType
                try db.execute(
                    sql: "UPDATE photo SET thumbnailFileName = ?, thumbnailMediaType = ? WHERE id = ?", arguments: [name, mediaType, id])
                return (record.info, replaced)
            }
            if let replaced { folder.remove([replaced]) }
            return info
        } catch {
            folder.remove(temporary: temporary)
            throw error
        }
    }

    public func deletePhoto(id: PhotoID, userID: UserID) async throws -> Bool {
        let files = try await write { db -> [String]? in
            guard let record = try Self.photoRecord(db, id: id, userID: userID) else { return nil }
            try record.delete(db)
            return [record.fileName, record.thumbnailFileName].compactMap { $0 }
        }
        guard let files else { return false }
        photoFolder.remove(files)
        return true
    }

    public func deleteNote(id: NoteID, userID: UserID) async throws -> Bool {
        let files = try await write { db -> [String]? in
            guard let record = try Self.noteRecord(db, id: id, userID: userID) else { return nil }
            let files = try Self.photoFiles(db, sql: "SELECT fileName, thumbnailFileName FROM photo WHERE noteId = ?", arguments: [id])
            try record.delete(db)
            try Self.touchPlace(db, record.placeId, StoreClock.now())
            return files
        }
        guard let files else { return false }
        photoFolder.remove(files)
        return true
    }

    /// The photo's row, when its note's place is the user's and not deleted.
    func photoRecord(id: PhotoID, userID: UserID) async throws -> PhotoRecord? {
        try await read { db in try Self.photoRecord(db, id: id, userID: userID) }
    }

    static func photoRecord(_ db: Database, id: PhotoID, userID: UserID) throws -> PhotoRecord? {
        try PhotoRecord.fetchOne(
            db,
            sql: """
                SELECT photo.* FROM photo JOIN note ON note.id = photo.noteId JOIN place ON place.id = note.placeId
                WHERE photo.id = ? AND place.userId = ? AND place.deletedAt IS NULL
                """,
            arguments: [id, userID])
    }

    /// The file names (photos and thumbnails) of the rows `sql` selects as `fileName, thumbnailFileName`.
    static func photoFiles(_ db: Database, sql: String, arguments: StatementArguments) throws -> [String] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).flatMap { row in [row[0] as String?, row[1] as String?].compactMap { $0 } }
    }

    /// What is known of a place's photos (not their bytes), by note, oldest first.
    static func photoInfos(_ db: Database, placeID: PlaceID) throws -> [NoteID: [PhotoInfo]] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT photo.id, photo.noteId, photo.mediaType, photo.byteCount, photo.createdAt, photo.thumbnailFileName FROM photo
                JOIN note ON note.id = photo.noteId WHERE note.placeId = ? ORDER BY photo.createdAt, photo.id
                """,
            arguments: [placeID])
        var photos: [NoteID: [PhotoInfo]] = [:]
        for row in rows {
            let info = PhotoInfo(
                id: row[0], noteID: row[1], mediaType: row[2], byteCount: row[3],
                createdAt: Date(timeIntervalSince1970: Double(row[4] as Int64) / 1000), hasThumbnail: (row[5] as String?) != nil)
            photos[info.noteID, default: []].append(info)
        }
        return photos
    }
}
