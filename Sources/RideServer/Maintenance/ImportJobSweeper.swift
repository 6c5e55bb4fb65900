import Foundation
import Logging
import RideStore
import ServiceLifecycle

/// Ends the archive imports a stopped server left "running" (`TrackLibrary.sweepImportJobs`): at start, and then once a
/// minute. At start on SQLite (one process owns the data directory) every job updated before this server started is
/// interrupted at once; on PostgreSQL, where other instances may be importing, only jobs not updated for
/// `ImportJobRules.staleSeconds` are, by whichever instance sweeps first. The archive files of jobs no longer running
/// are removed from this instance's uploads folder.
public struct ImportJobSweeper: Service {
    let store: any RideStore
    let uploadsFolder: URL?
    let startedAt: Date
    let interval: Duration
    let logger: Logger

    public init(store: any RideStore, uploadsFolder: URL?, startedAt: Date = Date(), interval: Duration = .seconds(60), logger: Logger) {
        self.store = store
        self.uploadsFolder = uploadsFolder
        self.startedAt = startedAt
        self.interval = interval
        self.logger = logger
    }

    public func run() async throws {
        var first = true
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let stale = Date().addingTimeInterval(-ImportJobRules.staleSeconds)
            let cutoff = first && !(store is any MultiInstanceStore) ? startedAt : stale
            first = false
            do {
                let interrupted = try await TrackLibrary.sweepImportJobs(store: store, uploadsFolder: uploadsFolder, updatedBefore: cutoff)
                if !interrupted.isEmpty {
                    logger.notice("archive imports interrupted by a stop marked as such", metadata: ["jobs": "\(interrupted.map(\.rawValue))"])
                }
            } catch {
                logger.warning("could not look for interrupted archive imports; trying again in a minute", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}
