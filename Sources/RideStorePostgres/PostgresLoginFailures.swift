import Foundation
import PostgresNIO
import RideKit
import RideStore

/// The login rate limit's failures in the table `login_failures`, one row per failure and key (`name:…`,
/// `address:…`), so that five wrong passwords for a name lock it whichever instances they were sent to.
///
/// Work per call is bounded: a check reads at most the limit's number of rows per key (through the index on
/// key and time); a failure adds one row per key and deletes at most `expiredRowsPerCall` expired rows among
/// the oldest, so the table holds about the failures of one window, never the history.
struct PostgresLoginFailures: LoginFailureCounter {
    let store: PostgresRideStore
    let limits: LoginLimits
    /// Two rows come in per failure; up to this many expired ones go out.
    static let expiredRowsPerCall = 100

    /// The oldest time (milliseconds) that no longer counts at `now`.
    func cutoff(_ now: Date) -> Int64 { PostgresRideStore.milliseconds(now) - Int64((limits.windowSeconds * 1000).rounded()) }

    func retryAfter(name: String, address: String?, now: Date) async throws -> Int? {
        let keys = limits.keys(name: name, address: address)
        let cutoff = cutoff(now)
        let limits = self.limits
        return try await store.transaction(readOnly: true) { [logger = store.logger] connection in
            var waits: [Double?] = []
            for (key, limit) in keys {
                // The newest `limit` failures in the window: the key is locked when there are that many, until the
                // oldest of them leaves the window.
                let rows = try await connection.query(
                    """
                    SELECT failed_at FROM login_failures WHERE key = \(key) AND failed_at > \(cutoff)
                    ORDER BY failed_at DESC LIMIT \(limit)
                    """, logger: logger)
                var times: [Date] = []
                for try await time in rows.decode(Int64.self) { times.append(PostgresRideStore.date(time)) }
                waits.append(limits.wait(failureTimes: times, limit: limit, now: now))
            }
            return LoginLimits.retryAfter(waits)
        }
    }

    func recordFailure(name: String, address: String?, now: Date) async throws {
        let keys = limits.keys(name: name, address: address).map(\.key)
        let time = PostgresRideStore.milliseconds(now)
        let cutoff = cutoff(now)
        try await store.transaction { [logger = store.logger] connection in
            try await connection.query(
                "INSERT INTO login_failures (key, failed_at) SELECT k, \(time) FROM unnest(\(keys)::text[]) AS k", logger: logger)
            // Ids grow with time: the oldest rows are the first to expire. Only a few are looked at, so that a call
            // costs the same however many failures the table holds.
            try await connection.query(
                """
                DELETE FROM login_failures
                WHERE id IN (SELECT id FROM login_failures ORDER BY id LIMIT \(Self.expiredRowsPerCall)) AND failed_at <= \(cutoff)
                """, logger: logger)
        }
    }

    func clearFailures(name: String) async throws {
        let key = limits.keys(name: name, address: nil)[0].key
        try await store.transaction { [logger = store.logger] connection in
            _ = try await connection.query("DELETE FROM login_failures WHERE key = \(key)", logger: logger)
        }
    }
}

extension PostgresRideStore {
    /// Failed logins counted in the database, shared by every instance (`PostgresLoginFailures`).
    public func loginFailureCounter(limits: LoginLimits) -> any LoginFailureCounter {
        PostgresLoginFailures(store: self, limits: limits)
    }

    /// Rows of `login_failures` (tests: expired ones go).
    func loginFailureRowCount() async throws -> Int {
        try await transaction(readOnly: true) { [logger] connection in
            var count: Int64 = -1
            for try await value in try await connection.query("SELECT count(*) FROM login_failures", logger: logger).decode(Int64.self) {
                count = value
            }
            return Int(count)
        }
    }
}
