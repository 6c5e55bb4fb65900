import Foundation
import PostgresNIO
import RideKit
import RideStore

// Photos on PostgreSQL, with the rules of `PhotoRules` (as the SQLite store): the bytes live in `photo_bytes` (the
// database every instance shares), the row describing them in `photos`. A photo is the user's when its note's
// place is the user's and not deleted; any other id reads as nil (or false), never as data. A note, a place
// purged or a user deleted takes its photos and their bytes with it (ON DELETE CASCADE), in its transaction.
extension PostgresRideStore {
    public func addPhoto(noteID: NoteID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo {
        let mediaType = try PhotoRules.mediaType(mediaType)
        try PhotoRules.validate(photo: bytes)
        // A JPEG's own EXIF thumbnail, as SQLite keeps it: the small picture lists show.
        let thumbnail: Data? = mediaType == "image/jpeg"
            ? JPEGThumbnail.range(in: bytes).map { bytes.subdata(in: (bytes.startIndex + $0.lowerBound)..<(bytes.startIndex + $0.upperBound)) } : nil
        return try await transaction { [logger] connection in
            guard let note = try await Self.note(connection, id: noteID, userID: userID, logger: logger) else {
                throw RideStoreError.notFound(kind: "note", id: noteID.rawValue)
            }
            let info = PhotoInfo(
                id: .random(), noteID: noteID, mediaType: mediaType, byteCount: bytes.count, createdAt: Self.now(),
                hasThumbnail: thumbnail != nil)
            let rows = try await connection.query(
                """
                INSERT INTO photos (id, note_id, media_type, byte_count, thumbnail_media_type, created_at)
                VALUES (\(info.id.rawValue), \(noteID.rawValue), \(mediaType), \(Int64(bytes.count)),
                        \(thumbnail == nil ? nil : "image/jpeg"), \(Self.milliseconds(info.createdAt)))
                ON CONFLICT (id) DO NOTHING RETURNING id
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.conflict("photo id \(info.id) is taken; try again") }
            try await connection.query(
                "INSERT INTO photo_bytes (photo_id, bytes, thumbnail) VALUES (\(info.id.rawValue), \(bytes), \(thumbnail))", logger: logger)
            try await Self.touchPlace(note.placeID, info.createdAt, connection, logger: logger)
            return info
        }
    }

    public func photo(id: PhotoID, userID: UserID) async throws -> PhotoData? {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.photoColumns), photo_bytes.bytes FROM \(unescaped: Self.ownedPhotos)
                JOIN photo_bytes ON photo_bytes.photo_id = photos.id
                WHERE photos.id = \(id.rawValue) AND places.user_id = \(userID.rawValue)
                """, logger: logger)
            for try await row in rows {
                let r = row.makeRandomAccess()
                return PhotoData(info: try Self.photoInfo(r), bytes: try r[6].decode(Data.self))
            }
            return nil
        }
    }

    /// A photo's thumbnail (its type in `info.mediaType`, its size in `info.byteCount`), or nil when the photo has
    /// none or is not the user's.
    public func photoThumbnail(id: PhotoID, userID: UserID) async throws -> PhotoData? {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.photoColumns), photos.thumbnail_media_type, photo_bytes.thumbnail FROM \(unescaped: Self.ownedPhotos)
                JOIN photo_bytes ON photo_bytes.photo_id = photos.id
                WHERE photos.id = \(id.rawValue) AND places.user_id = \(userID.rawValue) AND photo_bytes.thumbnail IS NOT NULL
                """, logger: logger)
            for try await row in rows {
                let r = row.makeRandomAccess()
                var info = try Self.photoInfo(r)
                let bytes = try r[7].decode(Data.self)
                info.mediaType = try r[6].decode(String?.self) ?? "image/jpeg"
                info.byteCount = bytes.count
                return PhotoData(info: info, bytes: bytes)
            }
            return nil
        }
    }

    /// Sets (or replaces) a photo's thumbnail: a small image the browser made when the photo had none of its own.
    public func setPhotoThumbnail(id: PhotoID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo {
        try PhotoRules.validate(thumbnail: bytes)
        // Kept as given, as SQLite keeps it (the server passes only the image types it checked); bounded all the same.
        guard !mediaType.isEmpty, mediaType.utf8.count <= 100, mediaType.contains("/") else {
            throw RideStoreError.invalid(field: "mediaType", reason: "'\(mediaType)' is not a media type such as image/jpeg")
        }
        return try await transaction { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.photoColumns) FROM \(unescaped: Self.ownedPhotos)
                WHERE photos.id = \(id.rawValue) AND places.user_id = \(userID.rawValue) FOR UPDATE OF photos
                """, logger: logger)
            var found: PhotoInfo?
            for try await row in rows { found = try Self.photoInfo(row.makeRandomAccess()) }
            guard var info = found else { throw RideStoreError.notFound(kind: "photo", id: id.rawValue) }
            try await connection.query("UPDATE photos SET thumbnail_media_type = \(mediaType) WHERE id = \(id.rawValue)", logger: logger)
            try await connection.query("UPDATE photo_bytes SET thumbnail = \(bytes) WHERE photo_id = \(id.rawValue)", logger: logger)
            info.hasThumbnail = true
            return info
        }
    }

    public func deletePhoto(id: PhotoID, userID: UserID) async throws -> Bool {
        try await transaction { [logger] connection in
            // Its bytes go with the row (photo_bytes: ON DELETE CASCADE).
            let rows = try await connection.query(
                """
                DELETE FROM photos USING notes, places
                WHERE photos.id = \(id.rawValue) AND notes.id = photos.note_id AND places.id = notes.place_id
                    AND places.user_id = \(userID.rawValue) AND places.deleted_at IS NULL
                RETURNING photos.id
                """, logger: logger)
            return try await rows.collect().count == 1
        }
    }

    // MARK: Helpers

    /// Photos with their note and place, for a condition on `places.user_id`: the place must not be deleted.
    static let ownedPhotos = """
        photos JOIN notes ON notes.id = photos.note_id JOIN places ON places.id = notes.place_id AND places.deleted_at IS NULL
        """

    /// What `photoInfo` reads, in its order.
    static let photoColumns =
        "photos.id, photos.note_id, photos.media_type, photos.byte_count, photos.created_at, photos.thumbnail_media_type IS NOT NULL"

    static func photoInfo(_ r: PostgresRandomAccessRow) throws -> PhotoInfo {
        PhotoInfo(
            id: try shortID(r[0].decode(String.self), column: "photos.id"), noteID: try shortID(r[1].decode(String.self), column: "photos.note_id"),
            mediaType: try r[2].decode(String.self), byteCount: Int(try r[3].decode(Int64.self)), createdAt: date(try r[4].decode(Int64.self)),
            hasThumbnail: try r[5].decode(Bool.self))
    }

    /// What is known of the photos of a place's notes (not their bytes), by note, oldest first (then by id, by
    /// bytes, as SQLite orders them).
    static func photoInfos(_ connection: PostgresConnection, placeID: PlaceID, logger: Logger) async throws -> [NoteID: [PhotoInfo]] {
        let rows = try await connection.query(
            """
            SELECT \(unescaped: photoColumns) FROM photos JOIN notes ON notes.id = photos.note_id
            WHERE notes.place_id = \(placeID.rawValue) ORDER BY photos.created_at, photos.id COLLATE "C"
            """, logger: logger)
        var photos: [NoteID: [PhotoInfo]] = [:]
        for try await row in rows {
            let info = try photoInfo(row.makeRandomAccess())
            photos[info.noteID, default: []].append(info)
        }
        return photos
    }
}
