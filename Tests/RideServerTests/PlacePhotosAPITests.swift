import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// The first bytes of each format as its specification gives them, then filler.
private enum ImageBytes {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [UInt8](repeating: 7, count: 100)
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 1, count: 50)
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x40, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 2, count: 50)
    static let heic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 3, count: 50)
    static let svg: [UInt8] = Array(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)
}

extension TestClientProtocol {
    func postPhoto(_ uri: String, type: String, bytes: [UInt8]) async throws -> TestResponse {
        try await execute(uri: uri, method: .post, headers: [.contentType: type], body: ByteBuffer(bytes: bytes))
    }

    /// A new place with one note: (place id, note id).
    func placeWithNote() async throws -> (String, String) {
        let place = try #require(try await createPlace("Shop", at: Coordinate(latitude: 46.5, longitude: 6.6))["id"] as? String)
        let note = try #require(try await post("/api/places/\(place)/notes", json: #"{"body":"look"}"#).jsonObject()["id"] as? String)
        return (place, note)
    }
}

@Suite struct PlacePhotosAPITests {
    @Test(arguments: StoreKind.allCases) func storesAndServesEachImageTypeWithSafeHeaders(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let uri = "/api/places/\(place)/notes/\(note)/photos"
            let cases: [(String, [UInt8], String)] = [
                ("image/jpeg", ImageBytes.jpeg, "jpg"), ("image/png", ImageBytes.png, "png"),
                ("image/webp", ImageBytes.webp, "webp"),
            ]
            for (type, bytes, fileExtension) in cases {
                let response = try await client.postPhoto(uri, type: type, bytes: bytes)
                #expect(response.status == .created, "\(type): \(response.text)")
                let object = try response.jsonObject()
                let id = try #require(object["id"] as? String)
                #expect(object["url"] as? String == "\(uri)/\(id)" && object["byteCount"] as? Int == bytes.count)
                let served = try await client.get("\(uri)/\(id)")
                #expect(served.status == .ok)
                #expect(Array(served.body.readableBytesView) == bytes)
                #expect(served.headers[.contentType] == type)
                #expect(served.headers[.xContentTypeOptions] == "nosniff")
                #expect(served.headers[.contentDisposition] == "inline; filename=\"photo-\(id).\(fileExtension)\"")
            }
            let notes = try #require(try await client.get("/api/places/\(place)").jsonObject()["notes"] as? [[String: Any]])
            #expect((notes.first?["photos"] as? [[String: Any]])?.compactMap { $0["mediaType"] as? String } == cases.map { $0.0 })
        } }
    }

    /// SVG, a script, bytes of another format, a 30 MiB body: refused, and the note keeps no photo.
    @Test(arguments: StoreKind.allCases) func refusesWhatIsNotAnImageOfItsTypeAndStoresNothing(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let uri = "/api/places/\(place)/notes/\(note)/photos"
            let cases: [(String, [UInt8], HTTPResponse.Status)] = [
                ("image/svg+xml", ImageBytes.svg, .unsupportedMediaType),
                ("image/jpeg", ImageBytes.svg, .unsupportedMediaType),
                ("image/jpeg", Array("#!/bin/sh\nrm -rf /\n".utf8), .unsupportedMediaType),
                ("image/jpeg", ImageBytes.png, .unsupportedMediaType),
                ("image/png", ImageBytes.jpeg, .unsupportedMediaType),
                ("text/html", ImageBytes.jpeg, .unsupportedMediaType),
                ("application/octet-stream", ImageBytes.jpeg, .unsupportedMediaType),
                // HEIC: its metadata could not be removed from a shared copy (PhotosController).
                ("image/heic", ImageBytes.heic, .unsupportedMediaType),
                ("image/heif", ImageBytes.heic, .unsupportedMediaType),
                ("image/jpeg", [], .badRequest),
                ("image/jpeg", ImageBytes.jpeg + [UInt8](repeating: 0, count: 30 << 20), .contentTooLarge),
            ]
            for (type, bytes, status) in cases {
                let response = try await client.postPhoto(uri, type: type, bytes: bytes)
                #expect(response.status == status, "\(type), \(bytes.count) bytes: \(response.text)")
                #expect(try response.errorCode() != nil)
                if type.hasPrefix("image/hei") { #expect(response.text.contains("send it as JPEG, PNG or WebP"), "\(response.text)") }
            }
            let notes = try #require(try await client.get("/api/places/\(place)").jsonObject()["notes"] as? [[String: Any]])
            #expect((notes.first?["photos"] as? [Any])?.isEmpty == true)
        } }
    }

    @Test(arguments: StoreKind.allCases) func photosGoWithTheirNoteAndAreFoundOnlyThroughIt(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, library in
            let photoID = try await server.run { client in
                let (place, note) = try await client.placeWithNote()
                let (otherPlace, otherNote) = try await client.placeWithNote()
                let created = try await client.postPhoto("/api/places/\(place)/notes/\(note)/photos", type: "image/jpeg", bytes: ImageBytes.jpeg)
                let id = try #require(try created.jsonObject()["id"] as? String)
                #expect(try await client.get("/api/places/\(otherPlace)/notes/\(otherNote)/photos/\(id)").status == .notFound)
                #expect(try await client.get("/api/places/\(otherPlace)/notes/\(note)/photos/\(id)").status == .notFound)
                #expect(try await client.postPhoto("/api/places/\(place)/notes/ZZZZZZZZ/photos", type: "image/jpeg", bytes: ImageBytes.jpeg).status == .notFound)
                #expect(try await client.delete("/api/places/\(place)/notes/\(note)").status == .noContent)
                #expect(try await client.get("/api/places/\(place)/notes/\(note)/photos/\(id)").status == .notFound)
                return id
            }
            #expect(try await library.store.photo(id: try #require(PhotoID(photoID)), userID: library.userID) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func deletesAPhoto(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await server.run { client in
            let (place, note) = try await client.placeWithNote()
            let uri = "/api/places/\(place)/notes/\(note)/photos"
            let id = try #require(try await client.postPhoto(uri, type: "image/png", bytes: ImageBytes.png).jsonObject()["id"] as? String)
            #expect(try await client.delete("\(uri)/\(id)").status == .noContent)
            #expect(try await client.get("\(uri)/\(id)").status == .notFound)
            #expect(try await client.delete("\(uri)/\(id)").status == .notFound)
        } }
    }
}
