import Foundation
import RideStore

/// Counts login attempts per name and address, per address and per name in a sliding window (the rule is
/// `LoginLimits`'), so that guessing a password online takes years, not hours, and no one locks the real user out.
///
/// In this process's memory: the counter of one server (the SQLite store). Several instances on PostgreSQL use
/// the database's (`MultiInstanceStore.loginFailureCounter`), where attempts on any instance add up. An actor: a
/// reservation checks and counts without a suspension in between, so concurrent attempts are counted one by one.
///
/// Bounded: at most `maximumKeys` keys are tracked; past that, the oldest are forgotten first.
public actor LoginRateLimiter: LoginFailureCounter {
    public typealias Limits = LoginLimits

    private let limits: Limits
    private var failures: [String: [Date]] = [:]
    private let maximumKeys = 10_000

    public init(limits: Limits = Limits()) { self.limits = limits }

    public func reserve(name: String, address: String?, now: Date = Date()) -> Int? {
        let keys = limits.keys(name: name, address: address).map(\.key)
        var times: [String: [Date]] = [:]
        for key in keys {
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.windowSeconds }
            failures[key] = recent.isEmpty ? nil : recent
            times[key] = recent
        }
        if let wait = limits.retryAfter(failures: times, name: name, address: address, now: now) { return wait }
        while failures.count + keys.count > maximumKeys {
            guard let oldest = failures.min(by: { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) })?.key else { break }
            failures[oldest] = nil
        }
        for key in keys { failures[key, default: []].append(now) }
        return nil
    }

    public func settle(name: String, address: String?, reservedAt: Date, outcome: LoginOutcome) {
        guard outcome != .failed else { return }
        for (key, _) in limits.keys(name: name, address: address) {
            guard var times = failures[key], let index = times.lastIndex(of: reservedAt) else { continue }
            times.remove(at: index)
            failures[key] = times.isEmpty ? nil : times
        }
        if outcome == .succeeded { failures[limits.pairKey(name: name, address: address)] = nil }
    }
}
