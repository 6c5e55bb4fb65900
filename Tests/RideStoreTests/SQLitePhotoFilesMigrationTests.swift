import Foundation
import GRDB
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// Migration "v4 place restore and photo files": photos a database from before kept as blobs move out to files at
/// the next open, none lost; leftovers of a crash are cleared.
@Suite struct SQLitePhotoFilesMigrationTests {
    /// A database as v3 left it: a place, a note, and two photos in the `photo` table's `bytes`.
    static func makeV3Database(at path: String, photos: [(id: String, type: String, bytes: Data)]) throws {
        let queue = try DatabaseQueue(path: path)
        try SQLiteRideStore.migrator.migrate(queue, upTo: "v3 share links")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO user (id, name, createdAt) VALUES ('AAAA0001', 'local', 0)")
            try db.execute(
                sql: "INSERT INTO place (id, userId, latitude, longitude, name, createdAt, updatedAt) VALUES ('PPPP0001', 'AAAA0001', 46.5, 6.6, 'Old', 0, 0)")
            try db.execute(sql: "INSERT INTO note (id, placeId, body, createdAt, updatedAt) VALUES ('NNNN0001', 'PPPP0001', 'kept', 0, 0)")
            for photo in photos {
                try db.execute(
                    sql: "INSERT INTO photo (id, noteId, mediaType, byteCount, bytes, createdAt) VALUES (?, 'NNNN0001', ?, ?, ?, 0)",
                    arguments: [photo.id, photo.type, photo.bytes.count, photo.bytes])
            }
        }
    }

    @Test func blobsMoveToFilesAndReadTheSame() async throws {
        let test = try TestStore()
        let folder = test.folder.appending(path: "old")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appending(path: "bikeride.sqlite").path
        let jpeg = Data(EXIFJPEG.make())
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        try Self.makeV3Database(at: path, photos: [("PHT00001", "image/jpeg", jpeg), ("PHT00002", "image/png", png)])
        // A crash's leftovers: a temporary file and a file no row names, both old; and a new one, kept.
        let photos = folder.appending(path: "Photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for name in [".tmp-crashed", "Orphan01.jpg", "Recent01.jpg"] { try Data([1]).write(to: photos.appending(path: name)) }
        let old = Date().addingTimeInterval(-2 * PhotoFolder.leftoverAgeSeconds)
        for name in [".tmp-crashed", "Orphan01.jpg"] {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: photos.appending(path: name).path)
        }

        let store = try SQLiteRideStore(path: path)
        let user = try #require(UserID("AAAA0001"))
        #expect(try await store.photo(id: try #require(PhotoID("PHT00001")), userID: user)?.bytes == jpeg)
        #expect(try await store.photo(id: try #require(PhotoID("PHT00002")), userID: user)?.bytes == png)
        // The JPEG's EXIF thumbnail was found on the way.
        #expect(try await store.photoThumbnail(id: try #require(PhotoID("PHT00001")), userID: user)?.bytes == Data(EXIFJPEG.thumbnail))
        #expect(try await store.notes(placeID: try #require(PlaceID("PPPP0001")), userID: user).first?.photos.map(\.hasThumbnail) == [true, false])
        let lengths = try await store.writer.read { db in try Int.fetchAll(db, sql: "SELECT length(bytes) FROM photo ORDER BY id") }
        let names = try await store.writer.read { db in try String.fetchAll(db, sql: "SELECT fileName FROM photo ORDER BY id") }
        #expect(lengths == [0, 0] && names == ["PHT00001.jpg", "PHT00002.png"])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: photos.path))
            == ["PHT00001.jpg", "PHT00001-thumbnail.jpg", "PHT00002.png", "Recent01.jpg"])
        #expect(try Data(contentsOf: photos.appending(path: "PHT00002.png")) == png)
    }

    /// Between writing a file and storing its row, or while moving: a photo not yet moved is read from its row.
    @Test func aPhotoNotYetMovedIsReadFromItsRow() async throws {
        let test = try TestStore()
        let user = try await test.store.localUser()
        let place = try await test.store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "P"), userID: user.id)
        let note = try await test.store.addNote(placeID: place.id, body: "n", userID: user.id)
        let photo = try await test.store.addPhoto(noteID: note.id, mediaType: "image/png", bytes: Data([0x89, 1, 2]), userID: user.id)
        // Put it back as a v3 row would be: bytes in the row, no file.
        try await test.sqlite.writer.write { db in
            try db.execute(sql: "UPDATE photo SET bytes = x'890102', fileName = NULL WHERE id = ?", arguments: [photo.id])
        }
        try FileManager.default.removeItem(at: test.folder.appending(path: "Photos/\(photo.id).png"))
        #expect(try await test.store.photo(id: photo.id, userID: user.id)?.bytes == Data([0x89, 1, 2]))
        // The next open moves it.
        let reopened = try SQLiteRideStore(path: test.databasePath)
        #expect(try await reopened.photo(id: photo.id, userID: user.id)?.bytes == Data([0x89, 1, 2]))
        #expect(FileManager.default.fileExists(atPath: test.folder.appending(path: "Photos/\(photo.id).png").path))
    }

    @Test func aStoreInMemoryKeepsItsPhotosInAFolderRemovedWithIt() async throws {
        var folder: URL?
        do {
            let store = try SQLiteRideStore(inMemory: .init())
            folder = store.photoFolder.url
            let user = try await store.localUser()
            let place = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "P"), userID: user.id)
            let note = try await store.addNote(placeID: place.id, body: "n", userID: user.id)
            let photo = try await store.addPhoto(noteID: note.id, mediaType: "image/jpeg", bytes: Data([0xFF, 0xD8, 0xFF]), userID: user.id)
            #expect(try await store.photo(id: photo.id, userID: user.id)?.bytes == Data([0xFF, 0xD8, 0xFF]))
        }
        #expect(FileManager.default.fileExists(atPath: try #require(folder).path) == false)
    }

    /// A photo the store refuses (its note unknown) leaves no file, temporary or named.
    @Test func aRefusedPhotoLeavesNoFile() async throws {
        let test = try TestStore()
        let user = try await test.store.localUser()
        await #expect(throws: RideStoreError.self) {
            try await test.store.addPhoto(noteID: .random(), mediaType: "image/jpeg", bytes: Data(EXIFJPEG.make()), userID: user.id)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: test.folder.appending(path: "Photos").path).isEmpty)
    }
}
