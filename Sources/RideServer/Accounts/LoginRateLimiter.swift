import Foundation

/// Limits failed logins per user name and per IP address, in a sliding window, so that guessing a password
/// online takes years, not hours. A success for a name clears that name's failures; the IP's stay.
///
/// Bounded: at most `maximumKeys` keys are tracked; past that, the oldest are forgotten first.
public actor LoginRateLimiter {
    public struct Limits: Sendable, Hashable {
        public var failuresPerName: Int
        public var failuresPerAddress: Int
        public var windowSeconds: Double

        /// 5 failures per name and 20 per address in 15 minutes.
        public init(failuresPerName: Int = 5, failuresPerAddress: Int = 20, windowSeconds: Double = 900) {
            self.failuresPerName = failuresPerName
            self.failuresPerAddress = failuresPerAddress
            self.windowSeconds = windowSeconds
        }
    }

    private let limits: Limits
    private var failures: [String: [Date]] = [:]
    private let maximumKeys = 10_000

    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Seconds to wait before trying again, or nil when a login may be tried now.
    func retryAfter(name: String, address: String?, now: Date = Date()) -> Int? {
        var wait: Double?
        for (key, limit) in keys(name: name, address: address) {
            let recent = (failures[key] ?? []).filter { now.timeIntervalSince($0) < limits.windowSeconds }
            failures[key] = recent.isEmpty ? nil : recent
            if recent.count >= limit, let oldest = recent.first {
                wait = max(wait ?? 0, limits.windowSeconds - now.timeIntervalSince(oldest))
            }
        }
        return wait.map { max(1, Int($0.rounded(.up))) }
    }

    func recordFailure(name: String, address: String?, now: Date = Date()) {
        if failures.count >= maximumKeys {
            let oldest = failures.min { ($0.value.last ?? .distantPast) < ($1.value.last ?? .distantPast) }?.key
            if let oldest { failures[oldest] = nil }
        }
        for (key, _) in keys(name: name, address: address) { failures[key, default: []].append(now) }
    }

    func recordSuccess(name: String) { failures["name:" + name.lowercased()] = nil }

    private func keys(name: String, address: String?) -> [(String, Int)] {
        var keys = [("name:" + name.lowercased(), limits.failuresPerName)]
        if let address { keys.append(("ip:" + address, limits.failuresPerAddress)) }
        return keys
    }
}
