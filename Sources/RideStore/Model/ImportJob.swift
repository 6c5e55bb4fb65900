import Foundation
import RideKit

/// An archive import's id (`GET /api/imports/{id}`).
public typealias ImportJobID = ID<IDKind.ImportJob>

/// An archive import running in the background (a Strava export of thousands of rides takes a while): how far it
/// is and, once done, what it made. Kept in the database, so that any server instance answers for it and a page
/// reloaded mid-import finds it again.
public struct ImportJob: Sendable, Hashable {
    public enum State: String, Sendable, Hashable, Codable {
        /// Files are being imported.
        case running
        /// Every file was tried: `imported`, `alreadyImported` and `failures` say how it went.
        case done
        /// The archive could not be read at all (`error` says why); nothing was imported.
        case failed
        /// The instance running it stopped (a restart, a crash) before the end: what was imported stays, the
        /// rest was not tried. Importing the archive again adds only what is missing.
        case interrupted
    }

    public var id: ImportJobID
    public var fileName: String
    public var state: State
    /// Files tried so far, of `filesTotal` (0 until the archive's list of entries was read).
    public var filesDone: Int
    public var filesTotal: Int
    public var imported: Int
    public var alreadyImported: Int
    /// `entry: reason` for the first `ImportJobRules.maximumStoredFailures` entries that failed; `failureCount`
    /// counts them all.
    public var failures: [String]
    public var failureCount: Int
    /// The tracks made (in archive order), once done.
    public var trackIDs: [TrackID]
    /// "2,041 imported, 3 failed" once done; why it failed when `failed`.
    public var message: String?
    public var createdAt: Date
    public var updatedAt: Date
    public var finishedAt: Date?

    public init(
        id: ImportJobID, fileName: String, state: State = .running, filesDone: Int = 0, filesTotal: Int = 0, imported: Int = 0,
        alreadyImported: Int = 0, failures: [String] = [], failureCount: Int = 0, trackIDs: [TrackID] = [], message: String? = nil,
        createdAt: Date, updatedAt: Date, finishedAt: Date? = nil
    ) {
        self.id = id
        self.fileName = fileName
        self.state = state
        self.filesDone = filesDone
        self.filesTotal = filesTotal
        self.imported = imported
        self.alreadyImported = alreadyImported
        self.failures = failures
        self.failureCount = failureCount
        self.trackIDs = trackIDs
        self.message = message
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.finishedAt = finishedAt
    }
}

/// How an import job ended: the archive's report, or why the archive could not be read.
public enum ImportJobOutcome: Sendable, Hashable {
    case done(ArchiveImportReport)
    case failed(String)
}

/// The store's side of archive imports in the background.
public protocol ImportJobStore {
    /// A new running job for `fileName`; finished jobs of the user older than `ImportJobRules.retentionSeconds`
    /// are removed on the way.
    func createImportJob(fileName: String, userID: UserID) async throws -> ImportJob
    /// Where a running job is (a job that is no longer running is left as it is).
    func updateImportJob(id: ImportJobID, userID: UserID, filesDone: Int, filesTotal: Int) async throws
    /// Ends a job with its outcome.
    func finishImportJob(id: ImportJobID, userID: UserID, outcome: ImportJobOutcome) async throws
    /// The user's job, as `ImportJobRules.resolve` sees it now (a running job nobody updated for
    /// `ImportJobRules.staleSeconds` is `interrupted`); nil for another user's job or one that never existed.
    func importJob(id: ImportJobID, userID: UserID) async throws -> ImportJob?
    /// Marks every running job (of any user) whose row was last updated before `updatedBefore` as `interrupted`, for
    /// good (a server that stopped mid-import); returns their ids.
    func interruptImportJobs(updatedBefore: Date) async throws -> [ImportJobID]
    /// The states of these jobs (of any user); a job this store does not hold is left out.
    func importJobStates(ids: [ImportJobID]) async throws -> [ImportJobID: ImportJob.State]
}
