import Foundation
import RideKit

// The calls not on PostgreSQL yet: each says so (`RideStoreError.unsupported`), none pretends. Photos need a
// storage every instance shares (large objects or a configured directory; issue 13), the documents folder a
// folder of one machine.
extension PostgresRideStore {
    public func addPhoto(noteID: NoteID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo {
        throw Self.unavailable("addPhoto(noteID:mediaType:bytes:userID:)")
    }

    public func photoThumbnail(id: PhotoID, userID: UserID) async throws -> PhotoData? {
        throw Self.unavailable("photoThumbnail(id:userID:)")
    }

    public func setPhotoThumbnail(id: PhotoID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo {
        throw Self.unavailable("setPhotoThumbnail(id:mediaType:bytes:userID:)")
    }

    public func photo(id: PhotoID, userID: UserID) async throws -> PhotoData? {
        throw Self.unavailable("photo(id:userID:)")
    }

    public func deletePhoto(id: PhotoID, userID: UserID) async throws -> Bool {
        throw Self.unavailable("deletePhoto(id:userID:)")
    }

    public func documentFiles(userID: UserID) async throws -> [DocumentFile] {
        throw Self.unavailable("documentFiles(userID:)")
    }

    public func saveDocumentFile(_ file: DocumentFile, userID: UserID) async throws {
        throw Self.unavailable("saveDocumentFile(_:userID:)")
    }

    public func removeDocumentFile(path: String, userID: UserID) async throws {
        throw Self.unavailable("removeDocumentFile(path:userID:)")
    }

    public func tracksWithoutDocument(userID: UserID, limit: Int) async throws -> [TrackSummary] {
        throw Self.unavailable("tracksWithoutDocument(userID:limit:)")
    }
}
