import Foundation
import Hummingbird
import RideKit
import RideStore

/// Share links (issue 10): `POST /api/places/{id}/share` makes one, `GET /share/{token}` is the read-only page
/// anyone with the link may open (no session), `DELETE /api/shares/{token}` revokes it.
///
/// The token is the only secret: 256 bits from `SystemRandomNumberGenerator` (the operating system's
/// cryptographic generator), written base64url. The page holds no script, escapes everything the user wrote,
/// and asks browsers not to send the link on (`Referrer-Policy`), not to cache it and not to index it.
struct SharesController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    /// The page's map around the place (`ShareMap`).
    var map = ShareMap(tileTemplate: nil, attribution: "")

    /// Random bytes in a token: 256 bits, far beyond guessing.
    static var tokenByteCount: Int { ShareLink.tokenByteCount }

    func addRoutes(to router: Router<Context>) {
        router.post("api/places/{id}/share") { request, context in try await create(request, context) }
        router.delete("api/shares/{token}") { request, context in try await revoke(request, context) }
        router.get("share/{token}") { request, context in try await page(request, context) }
        router.get("share/{token}/photos/{photoId}") { request, context in try await photo(request, context, thumbnail: false) }
        router.get("share/{token}/photos/{photoId}/thumbnail") { request, context in try await photo(request, context, thumbnail: true) }
    }

    /// `GET /share/{token}/photos/{photoId}[/thumbnail]`: a photo of the shared place's notes, for whoever holds the
    /// link (no session), with the headers of `PhotosController.response`; 404 for any other photo, or once revoked.
    func photo(_ request: Request, _ context: Context, thumbnail: Bool) async throws -> Response {
        let token = try context.parameters.require("token")
        let text = try context.parameters.require("photoId")
        guard let link = try await library.store.shareLink(token: token), let id = PhotoID(text),
              try await library.store.notes(placeID: link.placeID, userID: link.userID).contains(where: { $0.photos.contains { $0.id == id } })
        else { throw APIError.notFound("no photo with id \(text) behind this link") }
        if thumbnail, let small = try await library.store.photoThumbnail(id: id, userID: link.userID) {
            return PhotosController<Context>.response(
                try Self.withoutMetadata(small), request: request, name: "photo-\(id.rawValue)-thumbnail", isThumbnailAddress: true)
        }
        guard let photo = try await library.store.photo(id: id, userID: link.userID) else { throw APIError.notFound("no photo with id \(text)") }
        // Revalidated: a revoked link serves nothing.
        return PhotosController<Context>.response(try Self.withoutMetadata(photo), request: request, name: "photo-\(id.rawValue)", isThumbnailAddress: true)
    }

    /// The copy a link shows: the photo without its EXIF position, camera serial, text and other metadata
    /// (`ImageMetadata`: JPEG, PNG and WebP; the owner keeps the original). A photo that cannot be read that far, or
    /// of a type that cannot be cleaned (a HEIC kept from before they were refused), is not shown rather than shown
    /// whole.
    static func withoutMetadata(_ photo: PhotoData) throws -> PhotoData {
        guard let bytes = ImageMetadata.stripped(photo.bytes, mediaType: photo.info.mediaType) else {
            throw APIError.notFound("this photo cannot be shown without its metadata")
        }
        return PhotoData(info: photo.info, bytes: Data(bytes))
    }

    /// `POST /api/places/{id}/share` → 201 `{token, url}`; `url` is the page's path (`/share/{token}`), which
    /// the web app joins to its own origin.
    func create(_ request: Request, _ context: Context) async throws -> EditedResponse<SharePayload> {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        guard let placeID = PlaceID(text) else { throw APIError.notFound("no place with id \(text)") }
        let link = try await library.mine.createShareLink(token: Self.makeToken(), placeID: placeID)
        let url = "/share/\(link.token)"
        var headers = HTTPFields()
        headers[.location] = url
        return EditedResponse(status: .created, headers: headers, response: SharePayload(token: link.token, url: url))
    }

    /// `DELETE /api/shares/{token}`: the link shows nothing from now on.
    func revoke(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let token = try context.parameters.require("token")
        guard try await library.mine.revokeShareLink(token: token) else {
            throw APIError.notFound("no share link with this token")
        }
        return Response(status: .noContent)
    }

    /// `GET /share/{token}`: the place's page, or a short 404 page for an unknown or revoked link.
    func page(_ request: Request, _ context: Context) async throws -> Response {
        let token = try context.parameters.require("token")
        guard let link = try await library.store.shareLink(token: token),
              let place = try await library.store.place(id: link.placeID, userID: link.userID)
        else {
            return Self.html(status: .notFound, title: "Link not found", body: "<h1>Link not found</h1>\n<p>This link does not exist or was revoked.</p>")
        }
        let notes = try await library.store.notes(placeID: place.id, userID: link.userID)
        return Self.html(
            status: .ok, title: place.name, body: Self.body(place, notes: notes, photoBase: "/share/\(link.token)/photos/", map: map),
            imageSources: map.imageSource.map { [$0] } ?? [])
    }

    // MARK: Helpers

    /// 256 random bits, base64url without padding (43 characters): `ShareLink.makeToken`.
    static func makeToken() -> String { ShareLink.makeToken() }

    /// The page's content: name, address, labels, position with a `geo:` link (phones open their map app) and
    /// OpenStreetMap links (the map, and directions to the place), then the notes, each with its photos'
    /// thumbnails linked to the photos (`photoBase` + id: the link's own photo addresses).
    static func body(_ place: Place, notes: [PlaceNote], photoBase: String = "", map: ShareMap = ShareMap(tileTemplate: nil, attribution: "")) -> String {
        let latitude = String(place.latitude), longitude = String(place.longitude)
        // Shown with 5 decimals: about a metre (the links keep every digit).
        let shown = String(format: "%.5f, %.5f", place.latitude, place.longitude)
        // Dates on the clock where the place is (its time zone), whoever opens the link.
        func local(_ date: Date) -> String { LocalTimeText.text(date, latitude: place.latitude, longitude: place.longitude) }
        var lines = ["<h1>\(escaped(place.name))</h1>"]
        if let address = place.address { lines.append("<p class=\"address\">\(escaped(address))</p>") }
        if !place.labels.isEmpty {
            lines.append("<p class=\"labels\">" + place.labels.map { "<span>\(escaped($0.name))</span>" }.joined(separator: " ") + "</p>")
        }
        lines.append("<p class=\"position\">\(shown)</p>")
        lines.append(map.html(segments: [], dot: place.coordinate, dotColour: place.labels.first?.color ?? "#c62828", label: "Map of the place"))
        lines.append("<p class=\"added\">Added \(escaped(local(place.createdAt)))</p>")
        lines.append("<ul class=\"links\">")
        lines.append("<li><a href=\"geo:\(latitude),\(longitude)\">Open in a map app</a></li>")
        lines.append(
            "<li><a href=\"https://www.openstreetmap.org/?mlat=\(latitude)&amp;mlon=\(longitude)#map=17/\(latitude)/\(longitude)\">Show on OpenStreetMap</a></li>")
        lines.append("<li><a href=\"https://www.openstreetmap.org/directions?to=\(latitude)%2C\(longitude)\">Directions (OpenStreetMap)</a></li>")
        lines.append("</ul>")
        if !notes.isEmpty {
            lines.append("<h2>Notes</h2>")
            for note in notes {
                lines.append("<p class=\"note-time\"><time>\(escaped(local(note.createdAt)))</time></p>")
                lines.append("<p class=\"note\">\(escaped(note.body))</p>")
                guard !note.photos.isEmpty else { continue }
                // Ids are the store's (8 letters and digits); escaped all the same.
                lines.append("<p class=\"photos\">" + note.photos.map { photo in
                    let url = escaped(photoBase + photo.id.rawValue)
                    return "<a href=\"\(url)\"><img src=\"\(url)/thumbnail\" alt=\"Photo\" height=\"96\"></a>"
                }.joined(separator: " ") + "</p>")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `imageSources`: origins the page's images may also come from (a map's tile server, `ShareMap.imageSource`).
    static func html(status: HTTPResponse.Status, title: String, body: String, head: String = "", imageSources: [String] = []) -> Response {
        let document = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta name="robots" content="noindex">
            <title>\(escaped(title))</title>
            \(head)
            <style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:1rem auto;padding:0 1rem;line-height:1.4}\
            .note{white-space:pre-wrap;border-left:3px solid #ccc;padding-left:.6rem}.labels span{background:#eee;border-radius:.6rem;padding:0 .5rem}.photos img{max-width:8rem;object-fit:cover;border-radius:.3rem}\
            .map img.tile::after{content:"";position:absolute;left:-4px;top:-4px;right:-4px;bottom:-4px;background:#f3f5f7}</style>
            </head>
            <body>
            \(body)
            </body>
            </html>

            """
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.xContentTypeOptions] = "nosniff"
        let images = (["'self'"] + imageSources).joined(separator: " ")
        headers[.contentSecurityPolicy] = "default-src 'none'; img-src \(images); style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[.cacheControl] = "no-store"
        headers[.init("Referrer-Policy")!] = "no-referrer"
        headers[.init("X-Robots-Tag")!] = "noindex"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: document)))
    }

    /// Text made safe for HTML content and attribute values.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(character)
            }
        }
        return result
    }
}

/// The answer to `POST /api/places/{id}/share`.
struct SharePayload: ResponseEncodable {
    var token: String
    var url: String
}
