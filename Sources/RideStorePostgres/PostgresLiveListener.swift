import Foundation
import PostgresNIO
import RideKit
import RideStore

/// Listens on the database for the fixes any instance stores (`LISTEN bikeride_live`; the ingest sends
/// `pg_notify` in the transaction that stores them, so a notification comes after the commit, never for a post
/// rolled back), and passes each user id on.
///
/// One connection of its own, outside the pool (a pooled connection goes back to others between calls). When
/// it breaks — the database restarted, the network cut — it connects again by itself, after a pause that
/// doubles from `firstRetryDelay` up to `longestRetryDelay`, and says `.resumed` once it listens again: what was
/// announced meanwhile is lost, and the views should look. A cut that sends no error is found by a `SELECT 1`
/// every `pingInterval` that must be answered within `pingTimeout`.
struct PostgresLiveListener: Sendable {
    /// The channel of `NOTIFY`: the payload is a user id.
    static let channel = "bikeride_live"

    let configuration: PostgresRideStore.Configuration
    let logger: Logger
    var firstRetryDelay: Duration = .milliseconds(100)
    var longestRetryDelay: Duration = .seconds(5)
    var pingInterval: Duration = .seconds(30)
    var pingTimeout: Duration = .seconds(10)

    /// The notifications for as long as the stream is iterated; dropping or cancelling it closes the connection.
    func notifications() -> AsyncStream<LiveNotification> {
        // A burst the server has not passed on yet is kept up to a point; past it only the newest are (a view
        // that misses a wake reads the store at its next poll).
        AsyncStream(bufferingPolicy: .bufferingNewest(10_000)) { continuation in
            let task = Task {
                await run(continuation)
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Connects, listens until the connection ends, and again, until cancelled.
    func run(_ continuation: AsyncStream<LiveNotification>.Continuation) async {
        var delay = firstRetryDelay
        var failures = 0
        while !Task.isCancelled {
            do {
                let connection = try await PostgresRideStore.connect(configuration, logger: logger)
                let listened = AcquiredFlag()
                let wasFailing = failures > 0
                let (logger, url) = (logger, configuration.url)
                let ended = await listen(on: connection) {
                    if wasFailing { logger.notice("listening to live notifications again", metadata: ["database": "\(url)"]) }
                    listened.set()
                    continuation.yield(.resumed)
                } received: { payload in
                    if let userID = UserID(payload) { continuation.yield(.fixesStored(userID)) }
                }
                if listened.isSet {
                    delay = firstRetryDelay
                    failures = 0
                }
                guard !Task.isCancelled else { break }
                failures += 1
                logger.warning(
                    "live notifications: the connection to PostgreSQL ended; connecting again",
                    metadata: ["database": "\(configuration.url)", "reason": "\(ended.map(PostgresRideStore.describe) ?? "closed")"])
            } catch {
                guard !Task.isCancelled else { break }
                failures += 1
                // The first failure and then one in ten: the database may be down for a while.
                if failures == 1 || failures % 10 == 0 {
                    logger.warning(
                        "live notifications: cannot connect to PostgreSQL; trying again (live views poll meanwhile)",
                        metadata: ["database": "\(configuration.url)", "error": "\(PostgresRideStore.describe(error))", "attempts": "\(failures)"])
                }
            }
            try? await Task.sleep(for: delay)
            delay = min(delay * 2, longestRetryDelay)
        }
    }

    /// Listens on `connection` until it ends (or the task is cancelled), then closes it; returns why it ended.
    func listen(
        on connection: PostgresConnection, listening: @escaping @Sendable () -> Void, received: @escaping @Sendable (String) -> Void
    ) async -> (any Error)? {
        let logger = self.logger
        let pingInterval = self.pingInterval, pingTimeout = self.pingTimeout
        let ended: (any Error)? = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        listening()
                        for try await notification in notifications { received(notification.payload) }
                    }
                    return nil
                } catch {
                    return error
                }
            }
            group.addTask {
                // A connection cut without a word (no RST) never ends the notifications: ask it something now and then.
                while !Task.isCancelled {
                    do { try await Task.sleep(for: pingInterval) } catch { return nil }
                    let answered = AcquiredFlag()
                    let ping = Task {
                        _ = try await connection.query("SELECT 1", logger: logger).collect()
                        answered.set()
                    }
                    try? await Task.sleep(for: pingTimeout)
                    guard answered.isSet else {
                        ping.cancel()
                        return RideStoreError.database("PostgreSQL did not answer within \(pingTimeout)")
                    }
                    if case .failure(let error) = await ping.result { return error }
                }
                return nil
            }
            let first = await group.next() ?? nil
            // Ends the other task too: a query waiting on a dead network fails once its connection is closed.
            try? await connection.close()
            group.cancelAll()
            return first
        }
        return ended
    }
}

extension PostgresRideStore: MultiInstanceStore {
    /// Notifications of the fixes any instance stores, on a connection of their own (`PostgresLiveListener`).
    public func liveNotifications() -> AsyncStream<LiveNotification> {
        PostgresLiveListener(configuration: configuration, logger: logger).notifications()
    }
}
