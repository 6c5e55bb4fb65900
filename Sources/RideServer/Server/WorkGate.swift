import Synchronization

/// Lets at most `width` pieces of costly work run at once, and at most `widthPerKey` of them for one key (a user);
/// up to `maximumWaiting` callers may wait for a place, and past that `enter` refuses at once (`WorkGate.Busy`), so a
/// flood is answered 429 straight away and no queue grows with it (DESIGN 4.8).
///
/// Used for password hashing (2 at once, 8 waiting: `PasswordWork`), library exports and archive imports (a few at
/// once, one per user, none waiting). A place is held by a `Permit` until it is released — by the work when it ends,
/// or, whatever path the work takes (an error, a client gone before the answer was written), when the permit is
/// dropped.
///
///     let gate = WorkGate(width: 2, widthPerKey: 1)
///     let permit = try gate.tryEnter(key: "alice")  // a place, or WorkGate.Busy at once
///     defer { permit.release() }
public final class WorkGate: Sendable {
    /// No place is free, and no more may wait.
    public struct Busy: Error, Sendable {}

    /// One place in the gate, given back by `release()` (once; later calls do nothing) or when it is dropped.
    public final class Permit: Sendable {
        private let gate: WorkGate
        private let key: String?
        private let released = Atomic<Bool>(false)

        fileprivate init(gate: WorkGate, key: String?) {
            self.gate = gate
            self.key = key
        }

        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            gate.leave(key: key)
        }

        deinit { release() }
    }

    private struct Waiter {
        let key: String?
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var running = 0
        var perKey: [String: Int] = [:]
        var waiting: [Waiter] = []

        func hasRoom(for key: String?, width: Int, widthPerKey: Int) -> Bool {
            running < width && (key.map { perKey[$0, default: 0] < widthPerKey } ?? true)
        }

        mutating func take(_ key: String?) {
            running += 1
            if let key { perKey[key, default: 0] += 1 }
        }
    }

    public let width: Int
    public let widthPerKey: Int
    public let maximumWaiting: Int
    private let state = Mutex(State())

    /// `widthPerKey` defaults to `width` (no limit per key beyond the overall one).
    public init(width: Int, widthPerKey: Int? = nil, maximumWaiting: Int = 0) {
        self.width = max(1, width)
        self.widthPerKey = max(1, min(widthPerKey ?? width, width))
        self.maximumWaiting = max(0, maximumWaiting)
    }

    /// A place now, or `Busy` (never waits).
    public func tryEnter(key: String? = nil) throws(Busy) -> Permit {
        let admitted = state.withLock { state in
            guard state.hasRoom(for: key, width: width, widthPerKey: widthPerKey) else { return false }
            state.take(key)
            return true
        }
        guard admitted else { throw Busy() }
        return Permit(gate: self, key: key)
    }

    /// A place, waiting for one (first come, first served) while fewer than `maximumWaiting` wait; else `Busy`.
    public func enter(key: String? = nil) async throws(Busy) -> Permit {
        let admitted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            enum Decision { case now, later, never }
            let decision = state.withLock { state -> Decision in
                if state.hasRoom(for: key, width: width, widthPerKey: widthPerKey) {
                    state.take(key)
                    return .now
                }
                guard state.waiting.count < maximumWaiting else { return .never }
                state.waiting.append(Waiter(key: key, continuation: continuation))
                return .later
            }
            switch decision {
            case .now: continuation.resume(returning: true)
            case .never: continuation.resume(returning: false)
            case .later: break
            }
        }
        guard admitted else { throw Busy() }
        return Permit(gate: self, key: key)
    }

    /// Places taken now, in all and for `key` (tests, metrics).
    public func running(key: String? = nil) -> Int {
        state.withLock { state in key.map { state.perKey[$0, default: 0] } ?? state.running }
    }

    /// Gives a place back, and hands it (or another freed by the same key) to the first waiter that may have it.
    private func leave(key: String?) {
        let admitted = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.running -= 1
            if let key {
                let left = state.perKey[key, default: 1] - 1
                state.perKey[key] = left > 0 ? left : nil
            }
            var admitted: [CheckedContinuation<Bool, Never>] = []
            var index = 0
            while index < state.waiting.count, state.running < width {
                let waiter = state.waiting[index]
                if state.hasRoom(for: waiter.key, width: width, widthPerKey: widthPerKey) {
                    state.take(waiter.key)
                    state.waiting.remove(at: index)
                    admitted.append(waiter.continuation)
                } else {
                    index += 1
                }
            }
            return admitted
        }
        for continuation in admitted { continuation.resume(returning: true) }
    }
}

/// The gates of a server's costly work: library exports and archive imports, each a few at once in all and one per
/// user (`ServerConfiguration.maximumExports`, `maximumArchiveImports`). In memory: each instance counts its own.
public struct WorkGates: Sendable {
    public let exports: WorkGate
    public let archiveImports: WorkGate

    public init(configuration: ServerConfiguration) {
        exports = WorkGate(width: configuration.maximumExports, widthPerKey: 1)
        archiveImports = WorkGate(width: configuration.maximumArchiveImports, widthPerKey: 1)
    }
}
