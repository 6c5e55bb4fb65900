import Foundation
import Logging
import RideStore
import ServiceLifecycle

/// Measures in the background, when the server starts, the best efforts of tracks saved before they were measured
/// or measured by an older version (`TrackLibrary.remeasureEfforts`): a batch of tracks at a time, each in its own
/// short transaction, so that requests are served meanwhile. Idempotent: instances starting together on one database
/// do the same work and write the same rows. Then it waits for the server to stop.
public struct EffortsBackfill: Service {
    let store: any RideStore
    let logger: Logger

    public init(store: any RideStore, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    public func run() async throws {
        do {
            let measured = try await cancelWhenGracefulShutdown { [store, logger] in
                try await TrackLibrary.remeasureEfforts(in: store) { total in
                    logger.debug("best efforts measured again", metadata: ["tracks so far": "\(total)"])
                }
            }
            if measured > 0 { logger.notice("best efforts measured for tracks saved before them", metadata: ["tracks": "\(measured)"]) }
        } catch is CancellationError {
            return
        } catch {
            logger.warning("could not measure the best efforts of older tracks; next start tries again", metadata: ["error": "\(error)"])
        }
        // A service that returns stops the group: this one waits for the server to stop.
        try? await gracefulShutdown()
    }
}
