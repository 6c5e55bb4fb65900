import Foundation
import PostgresNIO
import RideKit
import RideStore

/// The login rate limit's failures in the table `login_failures`, one row per failure and key (`name:…`,
/// `address:…`, `pair:…`), so that the limits hold whichever instances the attempts were sent to.
///
/// Work per call is bounded: a check reads at most the limit's number of rows per key (through the index on
/// key and time); an attempt adds one row per key and deletes at most `expiredRowsPerCall` expired rows among
/// the oldest, so the table holds about the failures of one window, never the history.
struct PostgresLoginFailures: LoginFailureCounter {
    let store: PostgresRideStore
    let limits: LoginLimits
    /// Two rows come in per failure; up to this many expired ones go out.
    static let expiredRowsPerCall = 100

    /// The oldest time (milliseconds) that no longer counts at `now`.
    func cutoff(_ now: Date) -> Int64 { PostgresRideStore.milliseconds(now) - Int64((limits.windowSeconds * 1000).rounded()) }

    func reserve(name: String, address: String?, now: Date) async throws -> Int? {
        let keys = limits.keys(name: name, address: address)
        let cutoff = cutoff(now)
        let time = PostgresRideStore.milliseconds(now)
        let limits = self.limits
        return try await store.transaction { [logger = store.logger] connection in
            // The check and the count are one step across every instance: attempts for the same name or from the same
            // address wait for each other here (locks taken in one order, so two attempts never wait on each other).
            for key in keys.map(\.key).filter({ !$0.hasPrefix("pair:") }).sorted() {
                try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(key)))", logger: logger)
            }
            var failures: [String: [Date]] = [:]
            for (key, limit) in keys {
                // The newest `limit` failures in the window are all the rule needs.
                let rows = try await connection.query(
                    """
                    SELECT failed_at FROM login_failures WHERE key = \(key) AND failed_at > \(cutoff)
                    ORDER BY failed_at DESC LIMIT \(limit)
                    """, logger: logger)
                for try await time in rows.decode(Int64.self) { failures[key, default: []].append(PostgresRideStore.date(time)) }
            }
            if let wait = limits.retryAfter(failures: failures, name: name, address: address, now: now) { return wait }
            try await connection.query(
                "INSERT INTO login_failures (key, failed_at) SELECT k, \(time) FROM unnest(\(keys.map(\.key))::text[]) AS k", logger: logger)
            // Ids grow with time: the oldest rows are the first to expire. Only a few are looked at, so that a call
            // costs the same however many failures the table holds.
            try await connection.query(
                """
                DELETE FROM login_failures
                WHERE id IN (SELECT id FROM login_failures ORDER BY id LIMIT \(Self.expiredRowsPerCall)) AND failed_at <= \(cutoff)
                """, logger: logger)
            return nil
        }
    }

    func settle(name: String, address: String?, reservedAt: Date, outcome: LoginOutcome) async throws {
        guard outcome != .failed else { return }
        let keys = limits.keys(name: name, address: address).map(\.key)
        let time = PostgresRideStore.milliseconds(reservedAt)
        let pair = limits.pairKey(name: name, address: address)
        try await store.transaction { [logger = store.logger] connection in
            // One row per key: the reservation's (another attempt in the same millisecond keeps its own).
            try await connection.query(
                """
                DELETE FROM login_failures WHERE id IN (
                    SELECT min(id) FROM login_failures WHERE key = ANY(\(keys)::text[]) AND failed_at = \(time) GROUP BY key)
                """, logger: logger)
            if outcome == .succeeded {
                try await connection.query("DELETE FROM login_failures WHERE key = \(pair)", logger: logger)
            }
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
