import Foundation
import RideStore

/// Limits failed logins per user name and per IP address, in a sliding window, so that guessing a password
/// online takes years, not hours. A success for a name clears that name's failures; the IP's stay.
///
/// In this process's memory: the counter of one server (the SQLite store). Several instances on PostgreSQL use
/// the database's (`MultiInstanceStore.loginFailureCounter`), where failures on any instance add up.
///
/// Bounded: at most `maximumKeys` keys are tracked; past that, the oldest are forgotten first.
public actor LoginRateLimiter: LoginFailureCounter {
    public typealias Limits = LoginLimits

    private let limits: Limits
    private var failures: [String: [Date]] = [:]
    private let maximumKeys = 10_000

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Seconds to wait before trying again, or nil when a login may be tried now.
    public func retryAfter(name: String, address: String?, now: Date = Date()) -> Int? {
        var waits: [Double?] = []
        for (key, limit) in limits.keys(name: name, address: address) {
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.windowSeconds }
            failures[key] = recent.isEmpty ? nil : recent
            waits.append(limits.wait(failureTimes: recent, limit: limit, now: now))
        }
        return LoginLimits.retryAfter(waits)
    }

    public func recordFailure(name: String, address: String?, now: Date = Date()) {
        if failures.count >= maximumKeys {
            let oldest = failures.min { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }?.key
            if let oldest { failures[oldest] = nil }
        }
        for (key, _) in limits.keys(name: name, address: address) { failures[key, default: []].append(now) }
    }

    public func clearFailures(name: String) { failures[limits.keys(name: name, address: nil)[0].key] = nil }
}
