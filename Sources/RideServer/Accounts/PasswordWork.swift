import Dispatch
import Foundation
import RideStore

/// Runs password hashing (scrypt: about a quarter of a second and 128 MiB each) on a dispatch queue, never
/// on the event loop, and at most `width` at a time, so a burst of logins cannot take every core or
/// gigabytes of memory; up to `maximumWaiting` others wait their turn, and past them `run` refuses at once
/// (`PasswordWork.Busy`): a login then answers 429 at once instead of waiting behind a flood (DESIGN 4.8).
public actor PasswordWork {
    /// Too many passwords are being checked already.
    public struct Busy: Error {}

    private let width: Int
    private let maximumWaiting: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let queue = DispatchQueue(label: "bikeride.passwords", attributes: .concurrent)

    /// 2 at a time and 8 waiting: a waiting login is answered within about a second (8 / 2 × 0.25 s).
    public init(width: Int = 2, maximumWaiting: Int = 8) {
        self.width = max(1, width)
        self.maximumWaiting = max(0, maximumWaiting)
    }

    /// `body` on the queue, once a slot is free; `Busy` when `maximumWaiting` are waiting already.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if running >= width {
            guard waiting.count < maximumWaiting else { throw Busy() }
            await withCheckedContinuation { waiting.append($0) }
        } else {
            running += 1
        }
        defer {
            if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
        }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
