import Foundation
import RideKit

extension TrackLibrary {
    /// Starts importing an uploaded zip archive in the background and returns its job at once: the job's row says
    /// how far the import is ("312 of 2,041") and, at the end, what it made (`ImportJob`), for whichever server
    /// instance is asked. The archive's file is removed when the import ends.
    ///
    /// The progress is written after the archive's entries were listed, then at most about twice a second (and
    /// after the last file), so that writing it costs nothing next to the import; a job whose row stops moving
    /// for `ImportJobRules.staleSeconds` reads as interrupted.
    ///
    /// `whenFinished` is called once when the import has ended, or at once when it could not start (the server gives
    /// back its place in the gate of archive imports).
    public func startArchiveImport(
        _ upload: SpooledUpload, fileName: String, options: ImportOptions, whenFinished: @escaping @Sendable () -> Void = {}
    ) async throws -> ImportJob {
        let job: ImportJob
        do {
            job = try await store.createImportJob(fileName: fileName, userID: userID)
        } catch {
            try? FileManager.default.removeItem(at: upload.url)
            whenFinished()
            throw error
        }
        // Named after its job, so that a sweep after a restart finds the file of a job that did not end.
        var archive = upload.url
        let named = upload.url.deletingLastPathComponent().appending(path: ImportJobRules.archiveFileName(job.id))
        if (try? FileManager.default.moveItem(at: upload.url, to: named)) != nil { archive = named }
        let library = self
        let file = archive
        Task.detached {
            await library.runImportJob(job.id, archive: file, options: options) {
                try? FileManager.default.removeItem(at: file)
                whenFinished()
            }
        }
        return job
    }

    /// After a server stopped mid-import: marks the running jobs not updated since `updatedBefore` as interrupted (the
    /// user uploads the archive again to import the rest; what was imported stays, and is not imported twice), and
    /// removes from `uploadsFolder` the archives of this store's jobs that are no longer running and uploads left half-received
    /// (not written for `ImportJobRules.staleSeconds`). Returns the jobs it interrupted.
    @discardableResult
    public static func sweepImportJobs(store: any RideStore, uploadsFolder: URL?, updatedBefore: Date, now: Date = Date()) async throws -> [ImportJobID] {
        let interrupted = try await store.interruptImportJobs(updatedBefore: updatedBefore)
        let folder = uploadsFolder ?? defaultUploadsFolder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return interrupted }
        // Only the archives of this store's jobs: the folder may be shared (the system's temporary one).
        let states = try await store.importJobStates(ids: names.compactMap(ImportJobRules.jobID(ofArchiveFileName:)))
        for name in names {
            let url = folder.appending(path: name)
            if let id = ImportJobRules.jobID(ofArchiveFileName: name) {
                if let state = states[id], state != .running { try? FileManager.default.removeItem(at: url) }
            } else if name.hasPrefix("upload-"), name.hasSuffix(".part"),
                let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) > ImportJobRules.staleSeconds
            {
                try? FileManager.default.removeItem(at: url)
            }
        }
        return interrupted
    }

    /// Imports the archive and keeps the job's row up to date; a failure to read the archive ends the job as
    /// failed with why. `beforeFinishing` runs once the import is over and before the job reads as ended, so that a
    /// client that sees it ended and sends the next archive at once finds the gate's place given back.
    func runImportJob(_ id: ImportJobID, archive url: URL, options: ImportOptions, beforeFinishing: @Sendable () -> Void = {}) async {
        let throttle = ProgressThrottle(intervalSeconds: 0.5)
        let outcome: ImportJobOutcome
        do {
            let report = try await importArchive(at: url, options: options) { [store, userID] progress in
                guard throttle.isDue(progress) else { return }
                try? await store.updateImportJob(id: id, userID: userID, filesDone: progress.filesDone, filesTotal: progress.filesTotal)
            }
            outcome = .done(report)
        } catch {
            let reason: String
            if case RideStoreError.invalidFile(_, let why) = error { reason = why } else { reason = "\(error)" }
            outcome = .failed(reason)
        }
        beforeFinishing()
        try? await store.finishImportJob(id: id, userID: userID, outcome: outcome)
    }
}

/// Whether a progress report is worth writing: the first (the total is known), the last, and otherwise one every
/// `intervalSeconds`. Called by one import at a time, in order.
final class ProgressThrottle: @unchecked Sendable {
    private let intervalSeconds: TimeInterval
    private var lastWrite: Date = .distantPast
    private let lock = NSLock()

    init(intervalSeconds: TimeInterval) { self.intervalSeconds = intervalSeconds }

    func isDue(_ progress: ArchiveProgress, now: Date = Date()) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard progress.filesDone == 0 || progress.filesDone == progress.filesTotal || now.timeIntervalSince(lastWrite) >= intervalSeconds
        else { return false }
        lastWrite = now
        return true
    }
}
