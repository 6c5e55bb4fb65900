import Foundation
import RideKit

// The calls not on PostgreSQL yet: each says so (`RideStoreError.unsupported`), none pretends. Places, notes,
// photos, labels, place share links and the documents folder need their tables (a later migration) and, for
// photos, a storage shared by the instances (large objects or a configured directory; issue 13). Live share
// links and revoking any link are in `PostgresRideStore+Accounts`.
extension PostgresRideStore {
    public func createPlace(_ place: NewPlace, userID: UserID) async throws -> Place {
        throw Self.unavailable("createPlace(_:userID:)")
    }

    public func places(_ query: PlaceQuery, userID: UserID) async throws -> [Place] {
        throw Self.unavailable("places(_:userID:)")
    }

    public func place(id: PlaceID, userID: UserID) async throws -> Place? {
        throw Self.unavailable("place(id:userID:)")
    }

    public func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges) async throws -> Place {
        throw Self.unavailable("updatePlace(id:userID:_:)")
    }

    public func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges, labelIDs: [LabelID]?) async throws -> Place {
        throw Self.unavailable("updatePlace(id:userID:_:labelIDs:)")
    }

    public func createPlaces(_ places: [NewPlace], userID: UserID) async throws -> [Place] {
        throw Self.unavailable("createPlaces(_:userID:)")
    }

    public func deletePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID] {
        throw Self.unavailable("deletePlaces(ids:userID:)")
    }

    public func restorePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID] {
        throw Self.unavailable("restorePlaces(ids:userID:)")
    }

    public func purgeDeletedPlaces(deletedBefore date: Date) async throws -> [PlaceID] {
        throw Self.unavailable("purgeDeletedPlaces(deletedBefore:)")
    }

    public func notes(placeID: PlaceID, userID: UserID) async throws -> [PlaceNote] {
        throw Self.unavailable("notes(placeID:userID:)")
    }

    public func addNote(placeID: PlaceID, body: String, userID: UserID) async throws -> PlaceNote {
        throw Self.unavailable("addNote(placeID:body:userID:)")
    }

    public func updateNote(id: NoteID, body: String, userID: UserID) async throws -> PlaceNote {
        throw Self.unavailable("updateNote(id:body:userID:)")
    }

    public func deleteNote(id: NoteID, userID: UserID) async throws -> Bool {
        throw Self.unavailable("deleteNote(id:userID:)")
    }

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

    public func labels(userID: UserID) async throws -> [PlaceLabel] {
        throw Self.unavailable("labels(userID:)")
    }

    public func createLabel(name: String, color: String, userID: UserID) async throws -> PlaceLabel {
        throw Self.unavailable("createLabel(name:color:userID:)")
    }

    public func updateLabel(id: LabelID, name: String?, color: String?, userID: UserID) async throws -> PlaceLabel {
        throw Self.unavailable("updateLabel(id:name:color:userID:)")
    }

    public func deleteLabel(id: LabelID, userID: UserID) async throws -> Bool {
        throw Self.unavailable("deleteLabel(id:userID:)")
    }

    public func setLabels(_ labelIDs: [LabelID], placeID: PlaceID, userID: UserID) async throws -> Place {
        throw Self.unavailable("setLabels(_:placeID:userID:)")
    }

    public func createShareLink(token: String, placeID: PlaceID, userID: UserID) async throws -> ShareLink {
        throw Self.unavailable("createShareLink(token:placeID:userID:)")
    }

    public func shareLink(token: String) async throws -> ShareLink? {
        throw Self.unavailable("shareLink(token:)")
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
