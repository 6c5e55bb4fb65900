import Foundation
import Hummingbird
import RideKit
import RideStore

/// A note's photos (issue 10): `POST /api/places/{id}/notes/{noteId}/photos` with the image as the body,
/// `GET|DELETE …/photos/{photoId}`.
///
/// Only JPEG, PNG, WebP and HEIC are taken, and the bytes must begin as an image of the declared type does (its
/// "magic" signature): anything else, SVG included (it can carry script), is refused with 415. They are
/// served back with their type, `nosniff` and a download name, so a browser never takes them for a page.
struct PhotosController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    /// The largest photo taken: a phone's full-size picture fits.
    static var maximumByteCount: Int { 20 << 20 }

    /// The types taken, and the file extension each is served under.
    static var fileExtensions: [String: String] { ["image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic"] }

    func addRoutes(to router: Router<Context>) {
        router.post("api/places/{id}/notes/{noteId}/photos") { request, context in try await add(request, context) }
        router.get("api/places/{id}/notes/{noteId}/photos/{photoId}") { request, context in try await get(request, context) }
        router.delete("api/places/{id}/notes/{noteId}/photos/{photoId}") { request, context in try await delete(request, context) }
    }

    /// → 201 `{id, url, mediaType, byteCount, createdAt}`.
    func add(_ request: Request, _ context: Context) async throws -> EditedResponse<PhotoCreatedPayload> {
        let library = try self.library.scoped(to: context)
        let (placeID, noteID) = try await note(context)
        let mediaType = (request.headers[.contentType] ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        guard Self.fileExtensions[mediaType] != nil else {
            throw APIError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message: "a photo must be sent as image/jpeg, image/png, image/webp or image/heic, not '\(mediaType)'")
        }
        let tooLarge = APIError(
            .contentTooLarge, code: "body_too_large",
            message: "the photo is larger than \(Self.maximumByteCount >> 20) MiB, the most a photo may be; nothing was stored")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > Self.maximumByteCount { throw tooLarge }
        var bytes = Data()
        for try await chunk in request.body {
            guard bytes.count + chunk.readableBytes <= Self.maximumByteCount else { throw tooLarge }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        guard !bytes.isEmpty else { throw APIError.badRequest("empty_body", "the body is empty; it must be the photo's bytes") }
        guard Self.matches(bytes, mediaType: mediaType) else {
            throw APIError(
                .unsupportedMediaType, code: "not_an_image",
                message: "the body is not a \(mediaType) image (its first bytes are not that format's signature); nothing was stored")
        }
        let info = try await library.store.addPhoto(noteID: noteID, mediaType: mediaType, bytes: bytes, userID: library.userID)
        let url = "/api/places/\(placeID.rawValue)/notes/\(noteID.rawValue)/photos/\(info.id.rawValue)"
        var headers = HTTPFields()
        headers[.location] = url
        return EditedResponse(status: .created, headers: headers, response: PhotoCreatedPayload(info, url: url))
    }

    /// The photo's bytes, with its type.
    func get(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let (_, noteID) = try await note(context)
        let text = try context.parameters.require("photoId")
        guard let id = PhotoID(text), let photo = try await library.store.photo(id: id, userID: library.userID), photo.info.noteID == noteID else {
            throw APIError.notFound("no photo with id \(text) on this note")
        }
        var headers = HTTPFields()
        headers[.contentType] = photo.info.mediaType
        headers[.xContentTypeOptions] = "nosniff"
        headers[.contentDisposition] = "inline; filename=\"photo-\(id.rawValue).\(Self.fileExtensions[photo.info.mediaType] ?? "bin")\""
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        headers[.cacheControl] = "private, max-age=86400"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: photo.bytes)))
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let (_, noteID) = try await note(context)
        let text = try context.parameters.require("photoId")
        guard let id = PhotoID(text), let photo = try await library.store.photo(id: id, userID: library.userID), photo.info.noteID == noteID,
              try await library.store.deletePhoto(id: id, userID: library.userID)
        else { throw APIError.notFound("no photo with id \(text) on this note") }
        return Response(status: .noContent)
    }

    /// The place `{id}` and its note `{noteId}`, or a 404.
    func note(_ context: Context) async throws -> (PlaceID, NoteID) {
        let library = try self.library.scoped(to: context)
        let placeText = try context.parameters.require("id")
        let noteText = try context.parameters.require("noteId")
        guard let placeID = PlaceID(placeText), let noteID = NoteID(noteText) else { throw APIError.notFound("no note with id \(noteText) on this place") }
        let notes: [PlaceNote]
        do {
            notes = try await library.store.notes(placeID: placeID, userID: library.userID)
        } catch RideStoreError.notFound {
            throw APIError.notFound("no place with id \(placeText)")
        }
        guard notes.contains(where: { $0.id == noteID }) else { throw APIError.notFound("no note with id \(noteText) on this place") }
        return (placeID, noteID)
    }

    /// True when `bytes` begin with the signature of `mediaType`'s format.
    static func matches(_ bytes: Data, mediaType: String) -> Bool {
        let head = [UInt8](bytes.prefix(16))
        func at(_ offset: Int, _ text: String) -> Bool {
            let expected = Array(text.utf8)
            return head.count >= offset + expected.count && Array(head[offset..<offset + expected.count]) == expected
        }
        switch mediaType {
        case "image/jpeg": return head.starts(with: [0xFF, 0xD8, 0xFF])
        case "image/png": return head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        case "image/webp": return at(0, "RIFF") && at(8, "WEBP")
        case "image/heic":
            // An ISO base media file: a box size, `ftyp`, then a HEIF brand.
            return at(4, "ftyp") && ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1"].contains { at(8, $0) }
        default: return false
        }
    }
}

/// The answer to a photo upload.
struct PhotoCreatedPayload: ResponseEncodable {
    var id: String
    var url: String
    var mediaType: String
    var byteCount: Int
    var createdAt: String

    init(_ info: PhotoInfo, url: String) {
        id = info.id.rawValue
        self.url = url
        mediaType = info.mediaType
        byteCount = info.byteCount
        createdAt = GPXTime(date: info.createdAt).rfc3339
    }
}
