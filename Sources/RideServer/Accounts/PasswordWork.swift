import Dispatch
import Foundation
import RideStore

/// Runs password hashing (scrypt: about a quarter of a second and 128 MiB each) on a dispatch queue, never
/// on the event loop, and at most `width` at a time, so a burst of logins cannot take every core or
/// gigabytes of memory; up to `maximumWaiting` others wait their turn, and past them `run` refuses at once
/// (`PasswordWork.Busy`): a login then answers 429 at once instead of waiting behind a flood (DESIGN 4.8). The
/// counting is `WorkGate`'s, as for exports and archive imports.
public final class PasswordWork: Sendable {
    /// Too many passwords are being checked already.
    public typealias Busy = WorkGate.Busy

    private let gate: WorkGate
    private let queue = DispatchQueue(label: "bikeride.passwords", attributes: .concurrent)

    /// 2 at a time and 8 waiting: a waiting login is answered within about a second (8 / 2 × 0.25 s).
    public init(width: Int = 2, maximumWaiting: Int = 8) {
        gate = WorkGate(width: width, maximumWaiting: maximumWaiting)
    }

    /// `body` on the queue, once a slot is free; `Busy` when `maximumWaiting` are waiting already.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let permit = try await gate.enter()
        defer { permit.release() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
