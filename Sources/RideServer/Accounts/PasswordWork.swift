import Dispatch
import Foundation
import RideStore

/// Runs password hashing (scrypt: about a quarter of a second and 128 MiB each) on a dispatch queue, never
/// on the event loop, and at most `width` at a time, so a burst of logins cannot take every core or
/// gigabytes of memory; the others wait their turn.
public actor PasswordWork {
    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private let queue = DispatchQueue(label: "bikeride.passwords", attributes: .concurrent)

    public init(width: Int = 2) { self.width = max(1, width) }

    /// `body` on the queue, once a slot is free.
    public func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        if running >= width {
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
