import Foundation
import Logging
import RideStore
import ServiceLifecycle

/// Passes the store's notifications (PostgreSQL's `NOTIFY`, sent when any instance stores a device's fixes) to
/// this instance's `LiveFeed`, so that a live view here wakes at once when a phone posts to another instance.
///
/// Runs beside the server (a `Service`) and stops with it; the store keeps its listening connection up by itself
/// (reconnecting after the database restarts), and the views' own poll covers any gap.
public struct LiveNotificationRelay: Service {
    let store: any MultiInstanceStore
    let feed: LiveFeed
    let logger: Logger

    public init(store: any MultiInstanceStore, feed: LiveFeed, logger: Logger) {
        self.store = store
        self.feed = feed
        self.logger = logger
    }

    public func run() async throws {
        for await notification in store.liveNotifications().cancelOnGracefulShutdown() {
            switch notification {
            case .fixesStored(let userID): await feed.notify(userID)
            case .resumed:
                logger.debug("listening to the database's live notifications")
                await feed.notifyEveryone()
            }
        }
    }
}
