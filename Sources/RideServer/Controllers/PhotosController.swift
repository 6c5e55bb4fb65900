import Foundation
import Hummingbird
import RideKit
import RideStore

/// A note's photos (issue 10): `POST /api/places/{id}/notes/{noteId}/photos` with the image as the body,
/// `GET|DELETE …/photos/{photoId}`, and its thumbnail `GET|PUT …/photos/{photoId}/thumbnail`.
///
/// The thumbnail is the JPEG's own EXIF thumbnail when it has one (the store finds it when the photo is added);
/// else one the browser made with a canvas and sent with `PUT` (checked as an image like a photo, at most
/// 512 KiB); until then `GET …/thumbnail` answers the photo itself.
///
/// Only JPEG, PNG and WebP are taken, and the bytes must begin as an image of the declared type does (its
/// "magic" signature): anything else, SVG included (it can carry script), is refused with 415. They are
/// served back with their type, `nosniff` and a download name, so a browser never takes them for a page.
///
/// HEIC is refused (415 naming the formats to send): a share link's copy must lose its GPS position and camera
/// serial, and HEIC's metadata sits in items that its `iloc` box points to by offset, so cleaning it means rewriting
/// the container's offsets — and most browsers (Chrome, Firefox) cannot show a HEIC at all. An iPhone's browser
/// sends a JPEG instead when the page asks for JPEG, PNG or WebP (the web app's file input does). HEIC photos stored
/// before are still served to their owner; their shared copy is not shown.
struct PhotosController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    /// The largest photo taken: a phone's full-size picture fits.
    static var maximumByteCount: Int { 20 << 20 }

    /// The types taken, and the file extension each is served under.
    static var fileExtensions: [String: String] { ["image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic"] }
    /// The types a new photo or thumbnail may have.
    static var acceptedMediaTypes: Set<String> { ImageMetadata.strippableMediaTypes }

    func addRoutes(to router: Router<Context>) {
        router.post("api/places/{id}/notes/{noteId}/photos") { request, context in try await add(request, context) }
        router.get("api/places/{id}/notes/{noteId}/photos/{photoId}") { request, context in try await get(request, context) }
        router.delete("api/places/{id}/notes/{noteId}/photos/{photoId}") { request, context in try await delete(request, context) }
        router.get("api/places/{id}/notes/{noteId}/photos/{photoId}/thumbnail") { request, context in try await thumbnail(request, context) }
        router.put("api/places/{id}/notes/{noteId}/photos/{photoId}/thumbnail") { request, context in try await setThumbnail(request, context) }
    }

    /// → 201 `{id, url, thumbnailUrl, mediaType, byteCount, hasThumbnail, createdAt}`.
    func add(_ request: Request, _ context: Context) async throws -> EditedResponse<PhotoPayload> {
        let library = try self.library.scoped(to: context)
        let (placeID, noteID) = try await note(context)
        let (mediaType, bytes) = try await Self.image(request, limit: Self.maximumByteCount, what: "photo")
        let info = try await library.mine.addPhoto(noteID: noteID, mediaType: mediaType, bytes: bytes)
        let payload = PhotoPayload(info, placeID: placeID)
        var headers = HTTPFields()
        headers[.location] = payload.url
        return EditedResponse(status: .created, headers: headers, response: payload)
    }

    /// `PUT …/photos/{photoId}/thumbnail`: a small image the browser made (a canvas) for a photo without an EXIF
    /// thumbnail → the photo's JSON.
    func setThumbnail(_ request: Request, _ context: Context) async throws -> PhotoPayload {
        let library = try self.library.scoped(to: context)
        let (placeID, noteID) = try await note(context)
        let id = try await photoID(context, noteID: noteID)
        let (mediaType, bytes) = try await Self.image(request, limit: Self.maximumThumbnailByteCount, what: "thumbnail")
        let info = try await library.mine.setPhotoThumbnail(id: id, mediaType: mediaType, bytes: bytes)
        return PhotoPayload(info, placeID: placeID)
    }

    /// The largest thumbnail taken from a browser.
    static var maximumThumbnailByteCount: Int { PhotoRules.maximumThumbnailByteCount }

    /// The body as an image: its type from `Content-Type` (one of `fileExtensions`), at most `limit` bytes (413
    /// beyond, from `Content-Length` or while reading), and bytes that begin as that type's do (415 otherwise).
    static func image(_ request: Request, limit: Int, what: String) async throws -> (mediaType: String, bytes: Data) {
        let mediaType = (request.headers[.contentType] ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        guard acceptedMediaTypes.contains(mediaType) else {
            let heic = ["image/heic", "image/heif", "image/avif", "image/heic-sequence", "image/heif-sequence"].contains(mediaType)
            throw APIError(
                .unsupportedMediaType, code: "unsupported_media_type",
                message: heic
                    ? "HEIC/HEIF/AVIF photos are not taken (their location cannot be removed from a shared copy, and most browsers cannot show them); send it as JPEG, PNG or WebP (on an iPhone: Settings › Camera › Formats › Most Compatible)"
                    : "a \(what) must be sent as image/jpeg, image/png or image/webp, not '\(mediaType.prefix(100))'")
        }
        let limitText = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit >> 10) KiB"
        let tooLarge = APIError(
            .contentTooLarge, code: "body_too_large",
            message: "the \(what) is larger than \(limitText), the most a \(what) may be; nothing was stored")
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit { throw tooLarge }
        var bytes = Data()
        for try await chunk in request.body {
            guard bytes.count + chunk.readableBytes <= limit else { throw tooLarge }
            bytes.append(contentsOf: chunk.readableBytesView)
        }
        guard !bytes.isEmpty else { throw APIError.badRequest("empty_body", "the body is empty; it must be the \(what)'s bytes") }
        guard matches(bytes, mediaType: mediaType) else {
            throw APIError(
                .unsupportedMediaType, code: "not_an_image",
                message: "the body is not a \(mediaType) image (its first bytes are not that format's signature); nothing was stored")
        }
        return (mediaType, bytes)
    }

    /// The photo's bytes, with its type.
    func get(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let (_, noteID) = try await note(context)
        let id = try await photoID(context, noteID: noteID)
        guard let photo = try await library.mine.photo(id: id) else { throw APIError.notFound("no photo with id \(id)") }
        return Self.response(photo, request: request, name: "photo-\(id.rawValue)")
    }

    /// The photo's thumbnail, or the photo itself while it has none.
    func thumbnail(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let (_, noteID) = try await note(context)
        let id = try await photoID(context, noteID: noteID)
        if let thumbnail = try await library.mine.photoThumbnail(id: id) {
            return Self.response(thumbnail, request: request, name: "photo-\(id.rawValue)-thumbnail", isThumbnailAddress: true)
        }
        guard let photo = try await library.mine.photo(id: id) else { throw APIError.notFound("no photo with id \(id)") }
        return Self.response(photo, request: request, name: "photo-\(id.rawValue)", isThumbnailAddress: true)
    }

    /// An image answer: its type, `nosniff`, shown inline under a name of ours (never the user's), a sandbox in
    /// case a browser renders it as a page, and caching: private (it is the user's); a photo's bytes never change
    /// under its address (a day, immutable), a thumbnail's may (the photo itself until the browser sends one), so
    /// it is revalidated every time by its `ETag` (a 304 without a body).
    static func response(_ photo: PhotoData, request: Request, name: String, isThumbnailAddress: Bool = false) -> Response {
        var headers = HTTPFields()
        let tag = "\"\(name)-\(photo.info.byteCount)-\(fileExtensions[photo.info.mediaType] ?? "bin")\""
        headers[.eTag] = tag
        headers[.cacheControl] = isThumbnailAddress ? "private, no-cache" : "private, max-age=86400, immutable"
        headers[.xContentTypeOptions] = "nosniff"
        if request.headers[.ifNoneMatch] == tag { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = photo.info.mediaType
        headers[.contentDisposition] = "inline; filename=\"\(name).\(fileExtensions[photo.info.mediaType] ?? "bin")\""
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: photo.bytes)))
    }

    /// The photo `{photoId}` of the note, or a 404.
    func photoID(_ context: Context, noteID: NoteID) async throws -> PhotoID {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("photoId")
        guard let id = PhotoID(text), let photo = try await library.mine.notes(placeID: try placeID(context))
            .first(where: { $0.id == noteID })?.photos.first(where: { $0.id == id })
        else { throw APIError.notFound("no photo with id \(text) on this note") }
        return photo.id
    }

    func placeID(_ context: Context) throws -> PlaceID {
        let text = try context.parameters.require("id")
        guard let id = PlaceID(text) else { throw APIError.notFound("no place with id \(text)") }
        return id
    }

    /// `DELETE …/photos/{photoId}`: the photo, its file and its thumbnail's.
    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let (_, noteID) = try await note(context)
        let id = try await photoID(context, noteID: noteID)
        guard try await library.mine.deletePhoto(id: id) else { throw APIError.notFound("no photo with id \(id)") }
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
            notes = try await library.mine.notes(placeID: placeID)
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
