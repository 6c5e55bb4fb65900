import Foundation
import RideKit

/// The rules both stores follow for archive import jobs: what is stored of an outcome, when a running job counts
/// as interrupted, how long finished jobs are kept.
package enum ImportJobRules {
    /// A running job updates its row at least this often (`TrackLibrary.startArchiveImport` writes after every
    /// file, at most about once a second, and each file of an archive is capped): one not updated for this long
    /// was left by an instance that stopped.
    package static let staleSeconds: TimeInterval = 120
    /// Finished jobs are kept a week, then removed when the user starts another.
    package static let retentionSeconds: TimeInterval = 7 * 86400
    /// The failures stored with a job (each with why); more are counted, not kept.
    package static let maximumStoredFailures = 200
    /// Each failure's text, at most (an entry's path and a reason).
    package static let maximumFailureLength = 500
    /// A file name as stored (the upload's name, given by the client).
    package static let maximumFileNameLength = 200

    /// The job as it stands at `now`: a running job whose row was not updated for `staleSeconds` is interrupted.
    package static func resolve(_ job: ImportJob, now: Date) -> ImportJob {
        var job = job
        if job.state == .running, now.timeIntervalSince(job.updatedAt) > staleSeconds {
            job.state = .interrupted
            job.message = interruptedMessage(filesDone: job.filesDone, filesTotal: job.filesTotal)
        }
        return job
    }

    /// What an interrupted job says.
    package static func interruptedMessage(filesDone: Int, filesTotal: Int) -> String {
        "the import stopped after \(filesDone.formatted()) of \(filesTotal.formatted()) files (the server restarted); "
            + "upload the archive again to import the rest"
    }

    /// The name of a running job's archive in the uploads folder, so that a sweep finds the files of jobs that
    /// are no longer running (`TrackLibrary.sweepImportJobs`).
    package static func archiveFileName(_ id: ImportJobID) -> String { "import-\(id.rawValue).zip" }

    /// The job id of an archive file name, nil for any other file.
    package static func jobID(ofArchiveFileName name: String) -> ImportJobID? {
        guard name.hasPrefix("import-"), name.hasSuffix(".zip") else { return nil }
        return ImportJobID(String(name.dropFirst("import-".count).dropLast(".zip".count)))
    }

    /// The name kept for a job: trimmed, without control characters, at most `maximumFileNameLength` characters.
    package static func fileName(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return cleaned.isEmpty ? "archive.zip" : String(cleaned.prefix(maximumFileNameLength))
    }

    /// What a finished job stores: state, counts, the first failures (each cut to `maximumFailureLength`), the
    /// tracks made and the message.
    package struct Stored: Sendable {
        package var state: ImportJob.State
        package var filesDone: Int
        package var filesTotal: Int
        package var imported: Int
        package var alreadyImported: Int
        package var failureCount: Int
        package var failuresJSON: String
        package var trackIDsJSON: String
        package var message: String
    }

    package static func stored(_ outcome: ImportJobOutcome) -> Stored {
        switch outcome {
        case .done(let report):
            let failures = report.failures.prefix(maximumStoredFailures).map { String($0.prefix(maximumFailureLength)) }
            return Stored(
                state: .done, filesDone: report.filesTotal, filesTotal: report.filesTotal, imported: report.imported,
                alreadyImported: report.alreadyImported, failureCount: report.failures.count, failuresJSON: encode(Array(failures)),
                trackIDsJSON: encode(report.tracks.map(\.id.rawValue)), message: report.message)
        case .failed(let reason):
            return Stored(
                state: .failed, filesDone: 0, filesTotal: 0, imported: 0, alreadyImported: 0, failureCount: 0, failuresJSON: "[]",
                trackIDsJSON: "[]", message: String(reason.prefix(maximumFailureLength)))
        }
    }

    package static func encode(_ strings: [String]) -> String {
        (try? String(decoding: JSONEncoder().encode(strings), as: UTF8.self)) ?? "[]"
    }

    package static func decodeStrings(_ json: String?) -> [String] {
        guard let json, let data = json.data(using: .utf8) else { return [] }
        return (try? JSONDecoder().decode([String].self, from: data)) ?? []
    }

    package static func decodeTrackIDs(_ json: String?) -> [TrackID] {
        decodeStrings(json).compactMap { TrackID($0) }
    }
}
