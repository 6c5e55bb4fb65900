import Foundation
import GRDB
import RideKit

/// A row of `place`.
struct PlaceRecord: Hashable {
    var id: PlaceID
    var userId: UserID
    var latitude: Double
    var longitude: Double
    var name: String
    var address: String?
    var createdAt: Date
    var updatedAt: Date
    /// When it was deleted (undo: `restorePlaces`); nil while it is the user's (migration v4).
    var deletedAt: Date?
}

extension PlaceRecord: StoreRecord {
    static let databaseTableName = "place"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let name = Column(CodingKeys.name)
        static let createdAt = Column(CodingKeys.createdAt)
        static let deletedAt = Column(CodingKeys.deletedAt)
    }

    func place(labels: [PlaceLabel]) -> Place {
        Place(
            id: id, latitude: latitude, longitude: longitude, name: name, address: address, createdAt: createdAt,
            updatedAt: updatedAt, labels: labels)
    }
}

/// A row of `note`.
struct NoteRecord: Hashable {
    var id: NoteID
    var placeId: PlaceID
    var body: String
    var createdAt: Date
    var updatedAt: Date
}

extension NoteRecord: StoreRecord {
    static let databaseTableName = "note"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let placeId = Column(CodingKeys.placeId)
        static let createdAt = Column(CodingKeys.createdAt)
    }
}

/// A row of `photo`. Since migration v4 the bytes are a file of the store's `PhotoFolder` (`fileName`) and
/// `bytes` is empty; a row from before keeps its bytes in `bytes` until the store moves them out at start.
struct PhotoRecord: Hashable {
    var id: PhotoID
    var noteId: NoteID
    var mediaType: String
    var byteCount: Int
    var bytes: Data
    var createdAt: Date
    var fileName: String?
    var thumbnailFileName: String?
    var thumbnailMediaType: String?
}

extension PhotoRecord: StoreRecord {
    static let databaseTableName = "photo"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let noteId = Column(CodingKeys.noteId)
        static let mediaType = Column(CodingKeys.mediaType)
        static let byteCount = Column(CodingKeys.byteCount)
        static let createdAt = Column(CodingKeys.createdAt)
        static let fileName = Column(CodingKeys.fileName)
        static let thumbnailFileName = Column(CodingKeys.thumbnailFileName)
    }

    var info: PhotoInfo {
        PhotoInfo(id: id, noteID: noteId, mediaType: mediaType, byteCount: byteCount, createdAt: createdAt, hasThumbnail: thumbnailFileName != nil)
    }
}

/// A row of `label`.
struct LabelRecord: Hashable {
    var id: LabelID
    var userId: UserID
    var name: String
    var color: String
}

extension LabelRecord: StoreRecord {
    static let databaseTableName = "label"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let name = Column(CodingKeys.name)
    }

    var label: PlaceLabel { PlaceLabel(id: id, name: name, color: color) }
}

/// A row of `placeLabel`: which place carries which label.
struct PlaceLabelRecord: Hashable {
    var placeId: PlaceID
    var labelId: LabelID
}

extension PlaceLabelRecord: StoreRecord {
    static let databaseTableName = "placeLabel"

    enum Columns {
        static let placeId = Column(CodingKeys.placeId)
        static let labelId = Column(CodingKeys.labelId)
    }
}
