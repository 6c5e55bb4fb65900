import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import TestSupport

/// Photos as files of the data directory, their thumbnails (EXIF, or made by the browser), and the share page's
/// photos (issue 10).
@Suite struct PlacePhotoFilesTests {
    /// A PNG's signature and filler: the server checks signatures only.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 50)
    static let smallJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + [UInt8](repeating: 9, count: 40) + [0xFF, 0xD9]

    @Test func aPhotoIsAFileNamedByItsIdAndNotABlob() async throws {
        let database = try TemporaryStore()
        let photo = try await database.server().server.run { client in
            let (place, note) = try await client.placeWithNote()
            let created = try await client.postPhoto("/api/places/\(place)/notes/\(note)/photos", type: "image/png", bytes: Self.png)
            #expect(created.status == .created)
            return try #require(try created.jsonObject()["id"] as? String)
        }
        let file = database.folder.appending(path: "Photos/\(photo).png")
        #expect(try Data(contentsOf: file) == Data(Self.png))
        let row = try DatabaseQueue(path: database.databasePath).read { db in
            try Row.fetchOne(db, sql: "SELECT length(bytes), fileName FROM photo WHERE id = ?", arguments: [photo])
        }
        #expect(row?[0] as Int? == 0 && row?[1] as String? == "\(photo).png")
        // No temporary file is left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: database.folder.appending(path: "Photos").path) == ["\(photo).png"])
    }

    @Test(arguments: StoreKind.allCases) func aJPEGsEXIFThumbnailIsServedAsItsThumbnail(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let jpeg = EXIFJPEG.make()
            let created = try await client.postPhoto("/api/places/\(place)/notes/\(note)/photos", type: "image/jpeg", bytes: jpeg)
            let object = try created.jsonObject()
            let url = try #require(object["url"] as? String)
            #expect(object["hasThumbnail"] as? Bool == true)
            #expect(object["thumbnailUrl"] as? String == url + "/thumbnail")
            let thumbnail = try await client.get(url + "/thumbnail")
            #expect(thumbnail.status == .ok)
            #expect(Array(thumbnail.body.readableBytesView) == EXIFJPEG.thumbnail)
            #expect(thumbnail.headers[.contentType] == "image/jpeg")
            #expect(thumbnail.headers[.xContentTypeOptions] == "nosniff")
            #expect(thumbnail.headers[.contentDisposition] == "inline; filename=\"photo-\(try #require(object["id"] as? String))-thumbnail.jpg\"")
            let whole = try await client.get(url)
            #expect(Array(whole.body.readableBytesView) == jpeg)
            #expect(whole.headers[.cacheControl]?.contains("private") == true)
            // Asked again with its ETag: 304, no body.
            let tag = try #require(whole.headers[.eTag])
            let again = try await client.execute(uri: url, method: .get, headers: [.ifNoneMatch: tag])
            #expect(again.status == .notModified && again.body.readableBytes == 0)
        } }
    }

    /// Without an EXIF thumbnail the photo itself is the thumbnail until the browser sends one, which is checked
    /// as an image too.
    @Test(arguments: StoreKind.allCases) func aThumbnailMadeByTheBrowserIsCheckedStoredAndServed(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let object = try await client.postPhoto("/api/places/\(place)/notes/\(note)/photos", type: "image/png", bytes: Self.png).jsonObject()
            let url = try #require(object["url"] as? String)
            #expect(object["hasThumbnail"] as? Bool == false)
            #expect(Array(try await client.get(url + "/thumbnail").body.readableBytesView) == Self.png)

            let refused: [(String, [UInt8], HTTPResponse.Status)] = [
                ("image/svg+xml", Array("<svg/>".utf8), .unsupportedMediaType),
                ("image/jpeg", Array("<script>alert(1)</script>".utf8), .unsupportedMediaType),
                ("image/jpeg", Self.smallJPEG + [UInt8](repeating: 0, count: 600 << 10), .contentTooLarge),
                ("image/jpeg", [], .badRequest),
            ]
            for (type, bytes, status) in refused {
                let response = try await client.execute(uri: url + "/thumbnail", method: .put, headers: [.contentType: type], body: ByteBuffer(bytes: bytes))
                #expect(response.status == status, "\(type): \(response.text)")
            }
            #expect(Array(try await client.get(url + "/thumbnail").body.readableBytesView) == Self.png)

            let put = try await client.execute(uri: url + "/thumbnail", method: .put, headers: [.contentType: "image/jpeg"], body: ByteBuffer(bytes: Self.smallJPEG))
            #expect(put.status == .ok, "\(put.text)")
            #expect(try put.jsonObject()["hasThumbnail"] as? Bool == true)
            let served = try await client.get(url + "/thumbnail")
            #expect(Array(served.body.readableBytesView) == Self.smallJPEG && served.headers[.contentType] == "image/jpeg")
            #expect(try await client.execute(uri: "/api/places/\(place)/notes/\(note)/photos/ZZZZZZZZ/thumbnail", method: .put,
                                             headers: [.contentType: "image/jpeg"], body: ByteBuffer(bytes: Self.smallJPEG)).status == .notFound)
        } }
    }

    @Test func deletingANoteOrAPhotoRemovesTheirFiles() async throws {
        let database = try TemporaryStore()
        let photos = database.folder.appending(path: "Photos")
        try await database.server().server.run { client in
            let (place, note) = try await client.placeWithNote()
            let uri = "/api/places/\(place)/notes/\(note)/photos"
            let first = try #require(try await client.postPhoto(uri, type: "image/jpeg", bytes: EXIFJPEG.make()).jsonObject()["id"] as? String)
            _ = try await client.postPhoto(uri, type: "image/png", bytes: Self.png)
            #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path).count == 3)
            #expect(try await client.delete("\(uri)/\(first)").status == .noContent)
            #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path).count == 1)
            #expect(try await client.delete("/api/places/\(place)/notes/\(note)").status == .noContent)
            #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func theSharePageShowsThePhotosWhichItsLinkServesWithoutASession(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let (otherPlace, otherNote) = try await client.placeWithNote()
            let photo = try #require(try await client.postPhoto("/api/places/\(place)/notes/\(note)/photos", type: "image/jpeg", bytes: EXIFJPEG.make())
                .jsonObject()["id"] as? String)
            let other = try #require(try await client.postPhoto("/api/places/\(otherPlace)/notes/\(otherNote)/photos", type: "image/png", bytes: Self.png)
                .jsonObject()["id"] as? String)
            let link = try #require(try await client.post("/api/places/\(place)/share").jsonObject()["url"] as? String)
            let page = try await client.get(link)
            #expect(page.text.contains(#"<a href="\#(link)/photos/\#(photo)"><img src="\#(link)/photos/\#(photo)/thumbnail""#))
            #expect(page.headers[.contentSecurityPolicy]?.contains("img-src 'self'") == true)
            // The link's copies carry no metadata (issue 20): the photo without its EXIF block, the thumbnail without
            // its comment; the owner's are the originals.
            #expect(Array(try await client.get("\(link)/photos/\(photo)/thumbnail").body.readableBytesView) == JPEGMetadata.stripped(EXIFJPEG.thumbnail))
            let shared = Array(try await client.get("\(link)/photos/\(photo)").body.readableBytesView)
            #expect(shared == JPEGMetadata.stripped(EXIFJPEG.make()) && shared != EXIFJPEG.make())
            let own = try await client.get("/api/places/\(place)/notes/\(note)/photos/\(photo)")
            #expect(Array(own.body.readableBytesView) == EXIFJPEG.make())
            // Only the shared place's photos.
            #expect(try await client.get("\(link)/photos/\(other)").status == .notFound)
            let token = String(link.dropFirst("/share/".count))
            #expect(try await client.delete("/api/shares/\(token)").status == .noContent)
            #expect(try await client.get("\(link)/photos/\(photo)").status == .notFound)
        } }
    }

    /// A PNG with a text chunk and an EXIF chunk (each with its CRC), as a phone's screenshot or an editor writes them.
    static var pngWithMetadata: [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let count = UInt32(data.count)
            let crc = PNGEncoder.crc32Checksum(Data(Array(type.utf8) + data))
            return withUnsafeBytes(of: count.bigEndian, Array.init) + Array(type.utf8) + data + withUnsafeBytes(of: crc.bigEndian, Array.init)
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0])
            + chunk("tEXt", Array("Comment\u{0}at home".utf8)) + chunk("eXIf", Array("MM\u{0}*GPS 46.5 6.6".utf8))
            + chunk("IDAT", [0x78, 0x9C, 0x63, 0x60, 0x00, 0x00, 0x00, 0x02, 0x00, 0x01]) + chunk("IEND", [])
    }

    /// Through a share link a PNG comes without its text and EXIF chunks (the owner's copy keeps them), and a HEIC kept
    /// from before HEIC was refused is not shown at all (its metadata cannot be removed) — on both stores.
    @Test(arguments: StoreKind.allCases) func theLinksCopyOfAPNGHasNoMetadataAndAHEICIsNotShown(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, library in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let uri = "/api/places/\(place)/notes/\(note)/photos"
            let png = try #require(try await client.postPhoto(uri, type: "image/png", bytes: Self.pngWithMetadata).jsonObject()["id"] as? String)
            // A HEIC stored before the server refused them (straight into the store).
            let heicBytes: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 3, count: 50)
            let heic = try await library.store.addPhoto(
                noteID: try #require(NoteID(note)), mediaType: "image/heic", bytes: Data(heicBytes), userID: library.userID)
            let link = try #require(try await client.post("/api/places/\(place)/share").jsonObject()["url"] as? String)
            func has(_ bytes: [UInt8], _ text: String) -> Bool {
                let needle = Array(text.utf8)
                return bytes.indices.contains { bytes[$0...].starts(with: needle) }
            }
            let shared = Array(try await client.get("\(link)/photos/\(png)").body.readableBytesView)
            #expect(has(shared, "IDAT") && has(shared, "IEND"))
            #expect(!has(shared, "tEXt") && !has(shared, "eXIf") && !has(shared, "at home") && !has(shared, "GPS"))
            let own = Array(try await client.get("\(uri)/\(png)").body.readableBytesView)
            #expect(own == Self.pngWithMetadata)
            #expect(try await client.get("\(link)/photos/\(heic.id.rawValue)").status == .notFound)
            #expect(try await client.get("\(uri)/\(heic.id.rawValue)").status == .ok)
        } }
    }
}
