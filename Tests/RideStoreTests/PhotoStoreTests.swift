import Foundation
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// Photos on both stores: their thumbnails (a JPEG's EXIF one, or one the browser made), the limits, one user's
/// photos never another's, and photos going with their note, place or user (bytes too).
@Suite struct PhotoStoreTests {
    /// A stand-in thumbnail: SOI, a comment "ab", EOI.
    static let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x04, 0x61, 0x62, 0xFF, 0xD9]

    /// A JPEG laid out as EXIF 2.32 says: SOI, APP1 `Exif\0\0`, a big-endian TIFF header, an empty IFD0, IFD1 with
    /// JPEGInterchangeFormat (0x0201, offset 44 into the TIFF) and its length (0x0202), the thumbnail, a picture.
    static func exifJPEG() -> Data {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
        // Header 8, IFD0 at 8 (2 + 4), IFD1 at 14 (2 + 2 × 12 + 4): the thumbnail at 44.
        var tiff: [UInt8] = Array("MM".utf8) + u16(42) + u32(8) + u16(0) + u32(14) + u16(2)
        tiff += u16(0x0201) + u16(4) + u32(1) + u32(44)
        tiff += u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count)
        tiff += u32(0) + thumbnail
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        return Data([0xFF, 0xD8, 0xFF, 0xE1] + u16(app1.count + 2) + app1 + [0xFF, 0xDA, 0x00, 0x02, 0x55, 0x66, 0xFF, 0xD9])
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 50))

    /// A place of `userID` with one note: (place, note).
    static func placeWithNote(_ store: any RideStore, userID: UserID, name: String = "Shop") async throws -> (Place, PlaceNote) {
        let place = try await store.createPlace(NewPlace(latitude: 46.5, longitude: 6.6, name: name), userID: userID)
        return (place, try await store.addNote(placeID: place.id, body: "look", userID: userID))
    }

    @Test(arguments: StoreKind.allCases) func thumbnailsFromTheJPEGOrTheBrowserAndTheLimits(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let (place, note) = try await Self.placeWithNote(store, userID: user.id)
            let jpeg = Self.exifJPEG()
            let photo = try await store.addPhoto(noteID: note.id, mediaType: " Image/JPEG ", bytes: jpeg, userID: user.id)
            #expect(photo.mediaType == "image/jpeg" && photo.byteCount == jpeg.count && photo.hasThumbnail && photo.noteID == note.id)
            #expect(try await store.photo(id: photo.id, userID: user.id) == PhotoData(info: photo, bytes: jpeg))
            let small = try #require(try await store.photoThumbnail(id: photo.id, userID: user.id))
            #expect(small.bytes == Data(Self.thumbnail) && small.info.mediaType == "image/jpeg" && small.info.byteCount == Self.thumbnail.count)

            // A PNG has none until the browser sends one.
            let png = try await store.addPhoto(noteID: note.id, mediaType: "image/png", bytes: Self.png, userID: user.id)
            #expect(!png.hasThumbnail)
            #expect(try await store.photoThumbnail(id: png.id, userID: user.id) == nil)
            let made = Data([0x52, 0x49, 0x46, 0x46, 1, 2, 3])
            let updated = try await store.setPhotoThumbnail(id: png.id, mediaType: "image/webp", bytes: made, userID: user.id)
            #expect(updated.hasThumbnail && updated.mediaType == "image/png" && updated.byteCount == Self.png.count)
            let served = try #require(try await store.photoThumbnail(id: png.id, userID: user.id))
            #expect(served.bytes == made && served.info.mediaType == "image/webp" && served.info.byteCount == made.count)
            #expect(try await store.photo(id: png.id, userID: user.id)?.bytes == Self.png)

            // Listed with their note (no bytes), as the share page and the API read them.
            let listed = try await store.notes(placeID: place.id, userID: user.id)
            #expect(Set(listed[0].photos) == [photo, updated])

            // The limits: nothing stored past them.
            let tooBig = Data(count: PhotoRules.maximumPhotoByteCount + 1)
            for (type, bytes) in [("image/jpeg", Data()), ("image/jpeg", tooBig), ("jpeg", jpeg), ("", jpeg), ("image/" + String(repeating: "x", count: 100), jpeg)] {
                await #expect(throws: RideStoreError.self, "\(type), \(bytes.count) bytes") {
                    try await store.addPhoto(noteID: note.id, mediaType: type, bytes: bytes, userID: user.id)
                }
            }
            await #expect(throws: RideStoreError.self) {
                try await store.setPhotoThumbnail(
                    id: png.id, mediaType: "image/jpeg", bytes: Data(count: PhotoRules.maximumThumbnailByteCount + 1), userID: user.id)
            }
            await #expect(throws: RideStoreError.self) { try await store.setPhotoThumbnail(id: png.id, mediaType: "image/jpeg", bytes: Data(), userID: user.id) }
            #expect(try await store.photoThumbnail(id: png.id, userID: user.id)?.bytes == made)
            #expect(try await store.notes(placeID: place.id, userID: user.id)[0].photos.count == 2)
            // Each photo and each thumbnail, kept once.
            #expect(try await storedPhotoRows(store) == (photos: 2, bytes: 4))
        }
    }

    @Test(arguments: StoreKind.allCases) func oneUsersPhotoIsNeverAnothers(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.localUser()
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let (place, note) = try await Self.placeWithNote(store, userID: alice.id)
            let jpeg = Self.exifJPEG()
            let photo = try await store.addPhoto(noteID: note.id, mediaType: "image/jpeg", bytes: jpeg, userID: alice.id)

            #expect(try await store.photo(id: photo.id, userID: bob.id) == nil)
            #expect(try await store.photoThumbnail(id: photo.id, userID: bob.id) == nil)
            #expect(try await store.deletePhoto(id: photo.id, userID: bob.id) == false)
            await #expect(throws: RideStoreError.notFound(kind: "photo", id: photo.id.rawValue)) {
                try await store.setPhotoThumbnail(id: photo.id, mediaType: "image/jpeg", bytes: Data(Self.thumbnail), userID: bob.id)
            }
            await #expect(throws: RideStoreError.notFound(kind: "note", id: note.id.rawValue)) {
                try await store.addPhoto(noteID: note.id, mediaType: "image/png", bytes: Self.png, userID: bob.id)
            }
            await #expect(throws: RideStoreError.self) { try await store.notes(placeID: place.id, userID: bob.id) }
            #expect(try await store.deleteNote(id: note.id, userID: bob.id) == false)

            // Alice's photo is as it was, thumbnail and all.
            #expect(try await store.photo(id: photo.id, userID: alice.id)?.bytes == jpeg)
            #expect(try await store.photoThumbnail(id: photo.id, userID: alice.id)?.bytes == Data(Self.thumbnail))
            #expect(try await storedPhotoRows(store) == (photos: 1, bytes: 2))

            // A deleted place's photos are out of reach until it is restored.
            _ = try await store.deletePlaces(ids: [place.id], userID: alice.id)
            #expect(try await store.photo(id: photo.id, userID: alice.id) == nil)
            #expect(try await store.deletePhoto(id: photo.id, userID: alice.id) == false)
            _ = try await store.restorePlaces(ids: [place.id], userID: alice.id)
            #expect(try await store.photo(id: photo.id, userID: alice.id)?.bytes == jpeg)
        }
    }

    @Test(arguments: StoreKind.allCases) func photosGoWithTheirPhotoNotePlaceOrUser(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.localUser()
            let (kept, keptNote) = try await Self.placeWithNote(store, userID: alice.id, name: "Kept")
            let (purged, purgedNote) = try await Self.placeWithNote(store, userID: alice.id, name: "Purged")
            let single = try await store.addPhoto(noteID: keptNote.id, mediaType: "image/png", bytes: Self.png, userID: alice.id)
            let otherNote = try await store.addNote(placeID: kept.id, body: "second", userID: alice.id)
            _ = try await store.addPhoto(noteID: otherNote.id, mediaType: "image/png", bytes: Self.png, userID: alice.id)
            _ = try await store.addPhoto(noteID: purgedNote.id, mediaType: "image/png", bytes: Self.png, userID: alice.id)
            #expect(try await storedPhotoRows(store) == (photos: 3, bytes: 3))

            #expect(try await store.deletePhoto(id: single.id, userID: alice.id))
            #expect(try await storedPhotoRows(store) == (photos: 2, bytes: 2))
            #expect(try await store.deleteNote(id: otherNote.id, userID: alice.id))
            #expect(try await storedPhotoRows(store) == (photos: 1, bytes: 1))

            // A place deleted for good: its photo's bytes are gone with it.
            _ = try await store.deletePlaces(ids: [purged.id], userID: alice.id)
            #expect(try await storedPhotoRows(store) == (photos: 1, bytes: 1))
            #expect(try await store.purgeDeletedPlaces(deletedBefore: Date().addingTimeInterval(60)) == [purged.id])
            #expect(try await storedPhotoRows(store) == (photos: 0, bytes: 0))

            // A user deleted: their photos too.
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let (_, bobNote) = try await Self.placeWithNote(store, userID: bob.id)
            _ = try await store.addPhoto(noteID: bobNote.id, mediaType: "image/jpeg", bytes: Self.exifJPEG(), userID: bob.id)
            #expect(try await store.deleteUser(id: bob.id))
            let rows = try await storedPhotoRows(store)
            #expect(rows.photos == 0)
            #expect(rows.bytes == 0)
        }
    }
}

/// Photo rows and where their bytes are, whichever the store: SQLite's `photo` rows and the files of its photo
/// folder; PostgreSQL's `photos` rows and the thumbnails and photos held in `photo_bytes` (each non-null
/// column counts once).
func storedPhotoRows(_ store: any RideStore) async throws -> (photos: Int, bytes: Int) {
    switch store {
    case let sqlite as SQLiteRideStore:
        let rows = try await sqlite.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo") ?? -1 }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: sqlite.photoFolder.url.path)) ?? []
        return (rows, files.filter { !$0.hasPrefix(".") }.count)
    case let postgres as PostgresRideStore:
        return try await postgres.transaction(readOnly: true) { connection in
            var counts = (photos: -1, bytes: -1)
            let logger = PostgresTestServer.logger
            for try await value in try await connection.query("SELECT count(*) FROM photos", logger: logger).decode(Int64.self) {
                counts.photos = Int(value)
            }
            for try await value in try await connection.query(
                "SELECT count(*) + count(thumbnail) FROM photo_bytes", logger: logger
            ).decode(Int64.self) {
                counts.bytes = Int(value)
            }
            return counts
        }
    default:
        Issue.record("unknown store \(type(of: store))")
        return (-1, -1)
    }
}
