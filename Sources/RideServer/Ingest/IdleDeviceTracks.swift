import Foundation
import Logging
import RideStore
import ServiceLifecycle

/// Saves the live tracks of devices that went quiet. The gap rule finishes a device's track when its next
/// position comes more than the gap later; a phone switched off at home sends no next position, and its
/// day would stay "recording" until the morning. This checks once a minute (by default) and finishes every
/// live device track with no fix, and no post from its device, for longer than the gap.
///
/// Runs beside the server (a `Service`), stops with it.
public struct IdleDeviceTracks: Service {
    let store: any RideStore
    let gapSeconds: Double
    let interval: Duration
    let feed: LiveFeed?
    let logger: Logger

    public init(store: any RideStore, gapSeconds: Double, interval: Duration = .seconds(60), feed: LiveFeed? = nil, logger: Logger) {
        self.store = store
        self.gapSeconds = gapSeconds
        self.interval = interval
        self.feed = feed
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                try await sweep(now: Date())
            } catch {
                logger.warning("could not finish idle device tracks; trying again in a minute", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One check: finishes what is idle at `now`.
    @discardableResult
    public func sweep(now: Date) async throws -> [TrackID] {
        let finished = try await store.finishIdleDeviceTracks(gapSeconds: gapSeconds, now: now)
        for track in finished { logger.info("device track saved after the gap", metadata: ["track": "\(track)"]) }
        return finished
    }
}
