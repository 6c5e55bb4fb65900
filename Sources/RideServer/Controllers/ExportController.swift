import Foundation
import Hummingbird
import RideKit
import RideStore

/// `GET /api/export`: the signed-in user's whole library as one zip (`TrackLibrary.exportAll`: tracks as GPX, places
/// with notes and photos, labels, settings and a manifest of counts and SHA-256s), streamed as it is made: the body has
/// no length and the server holds one track at a time, however large the library. Without accounts it is the local
/// user's library. `bikeride import` (or `POST /api/tracks` with the zip) gives it back.
///
/// Each export reads the whole library, so `gate` lets a few run at once and one per user: past it 429
/// (`busy`, with `Retry-After`) at once. The place is held until the last byte is written, the client goes away, or
/// the export fails.
struct ExportController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    let gate: WorkGate

    /// When a refused export may try again: an export of a large library takes about this long.
    static var retryAfterSeconds: Int { 30 }

    func addRoutes(to router: Router<Context>) {
        router.get("api/export") { _, context in try export(context) }
    }

    func export(_ context: Context) throws -> Response {
        let library = try self.library.scoped(to: context)
        let permit: WorkGate.Permit
        do {
            permit = try gate.tryEnter(key: library.userID.rawValue)
        } catch {
            throw APIError(
                .tooManyRequests, code: "busy",
                message: "\(gate.running(key: library.userID.rawValue) > 0 ? "an export of this library is already being made" : "too many exports are being made at once"); try again when it is done",
                retryAfterSeconds: Self.retryAfterSeconds)
        }
        let logger = context.logger
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentDisposition] = "attachment; filename=\"\(TrackLibrary.exportFileName())\""
        headers[.cacheControl] = "no-store"
        let body = ResponseBody { writer in
            defer { permit.release() }
            // An error after the first bytes cannot change the status any more: the stream ends early, and the zip,
            // without its central directory, is refused by any unzip (rather than read as a smaller library).
            let manifest = try await library.exportAll { bytes in try await writer.write(ByteBuffer(bytes: bytes)) }
            try await writer.finish(nil)
            logger.info(
                "library exported", metadata: ["tracks": "\(manifest.counts.tracks)", "places": "\(manifest.counts.places)", "photos": "\(manifest.counts.photos)"])
        }
        // Should the body never be written (the connection gone first), the permit goes with the response.
        return Response(status: .ok, headers: headers, body: body)
    }
}
