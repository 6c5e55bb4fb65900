import Foundation
import Hummingbird
import RideKit
import RideStore

/// `GET /api/imports/{id}`: how far an archive import is (`POST /api/tracks` with a zip answers 202 with its job),
/// read from the database, so that any instance answers for an import another one runs.
struct ImportsController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    func addRoutes(to router: Router<Context>) {
        router.get("api/imports/{id}") { request, context in try await get(library.scoped(to: context), request, context) }
    }

    func get(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> ImportJobPayload {
        let text = try context.parameters.require("id")
        // Another user's job and one that never existed answer alike.
        guard let id = ImportJobID(text), let job = try await library.mine.importJob(id: id) else {
            throw APIError.notFound("no import with id \(String(text.prefix(16)))")
        }
        return ImportJobPayload(job)
    }
}

/// An archive import as the web app polls it: `{id, fileName, state, filesDone, filesTotal, imported, alreadyImported,
/// failures, failureCount, trackIds, message}`; `state` is running, done, failed or interrupted.
struct ImportJobPayload: ResponseEncodable {
    var id: String
    var fileName: String
    var state: ImportJob.State
    var filesDone: Int
    var filesTotal: Int
    var imported: Int
    var alreadyImported: Int
    var failures: [String]
    var failureCount: Int
    var trackIds: [String]
    var message: String?
    var url: String

    init(_ job: ImportJob) {
        id = job.id.rawValue
        fileName = job.fileName
        state = job.state
        filesDone = job.filesDone
        filesTotal = job.filesTotal
        imported = job.imported
        alreadyImported = job.alreadyImported
        failures = job.failures
        failureCount = job.failureCount
        trackIds = job.trackIDs.map(\.rawValue)
        message = job.message
        url = "/api/imports/\(job.id.rawValue)"
    }
}
