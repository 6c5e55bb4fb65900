/// Bounds how many tests use the throwaway PostgreSQL server at once. Every test target runs in one process and
/// Swift Testing runs tests in parallel: with the whole store suite on both stores, a hundred tests each holding
/// a pool of connections ran the server out of them ("sorry, too many clients already") and failed in a heap.
/// A test that already holds a slot (a helper inside a helper) does not take a second one, so nesting cannot
/// deadlock.
public actor PostgresTestGate {
    public static let shared = PostgresTestGate(limit: 10)

    @TaskLocal static var holdsSlot = false

    private let limit: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    func acquire() async {
        if running < limit {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            running -= 1
        } else {
            // The slot passes straight to the next test waiting.
            waiting.removeFirst().resume()
        }
    }
}

/// Runs `body` while holding one of the PostgreSQL test server's slots.
public func withPostgresTestSlot<T>(_ body: () async throws -> T) async throws -> T {
    if PostgresTestGate.holdsSlot { return try await body() }
    await PostgresTestGate.shared.acquire()
    do {
        let result = try await PostgresTestGate.$holdsSlot.withValue(true) { try await body() }
        await PostgresTestGate.shared.release()
        return result
    } catch {
        await PostgresTestGate.shared.release()
        throw error
    }
}
