import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import RideKit
@testable import RideServer
@testable import RideStore
@testable import RideStorePostgres
import Testing

/// What two `serve` instances on one PostgreSQL database share beyond the rows: a live view on one wakes at a
/// post to the other (NOTIFY, not the poll), and failed logins on both add up to one limit.
/// Needs `BIKERIDE_TEST_DATABASE_URL`; skipped without it (the in-memory counter's cases run always).
@Suite struct PostgresMultiInstanceServerTests {
    /// Waits until some backend of the store's database listens for live notifications (the instance's relay
    /// has its connection), so that a post after it can only reach a view through a notification.
    static func waitForListener(_ library: TrackLibrary) async throws {
        let store = try #require(library.store as? PostgresRideStore)
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let listening = try await store.transaction(readOnly: true) { connection in
                var count: Int64 = 0
                let rows = try await connection.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'",
                    logger: PostgresServerTests.logger)
                for try await value in rows.decode(Int64.self) { count = value }
                return count
            }
            if listening > 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no instance listened for live notifications within 20 s")
    }

    /// The views' poll is set far beyond the stream's life: only the NOTIFY that instance B sends when it stores
    /// the fix can wake the view on instance A in time. (Without it the stream ends empty: it failed so before.)
    @Test func aLiveViewOnOneInstanceWakesAtAPostToTheOtherWithoutPolling() async throws {
        try await PostgresServerTests.withTwoInstances { first, second in
            var serverA = TestServer(library: first)
            serverA.configuration.livePollSeconds = 600
            let serverB = TestServer(library: second)
            let (_, token) = try await serverA.addDevice("Phone", user: User.localName)
            let opened = ContinuousClock.now
            async let feed = serverA.run { client in
                try await client.execute(uri: "/api/live?lastEventId=0&maxSeconds=20", method: .get).text
            }
            // A's relay listens, and its view has read the store (nothing yet) and waits.
            try await Self.waitForListener(first)
            try await Task.sleep(for: .milliseconds(800))
            let now = Int(Date().timeIntervalSince1970)
            let body = #"{"_type":"location","lat":46.5,"lon":6.6,"tst":\#(now - 10),"batt":64}"#
            let posted = try await serverB.run { client in
                try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic(User.localName, token)],
                    body: ByteBuffer(string: body)
                ).status
            }
            let postedAt = ContinuousClock.now - opened
            #expect(posted == .ok)
            let text = try await feed
            // The post came inside the stream's 20 s (a loaded machine takes a few to start two servers); the event
            // is in it although the view never polled.
            #expect(postedAt < .seconds(19), "the post came \(postedAt) after the view opened: too late to tell")
            #expect(text.components(separatedBy: "event: fix").count == 2, "\(text)")
            #expect(text.contains(#""batteryPercent":64"#))
        }
    }

    /// Five wrong passwords for one name, sent alternately to two instances, lock the name on both.
    @Test func failedLoginsOnTwoInstancesAddUp() async throws {
        try await PostgresServerTests.withTwoInstances { first, second in
            var serverA = TestServer(library: first)
            serverA.configuration.accounts = true
            serverA.configuration.passwordHasher = .forTesting
            var serverB = TestServer(library: second)
            serverB.configuration = serverA.configuration
            for name in ["anna", "bob"] {
                _ = try await first.store.createUser(name: name, passwordHash: try PasswordHasher.forTesting.hash(TestServer.password(of: name)))
            }
            for index in 0..<5 {
                let server = index % 2 == 0 ? serverA : serverB
                let status = try await server.run { client in
                    try await client.post("/api/login", json: #"{"name":"anna","password":"guess \#(index)"}"#).status
                }
                #expect(status == .unauthorized, "attempt \(index)")
            }
            for server in [serverA, serverB] {
                let limited = try await server.run { client in
                    try await client.post("/api/login", json: #"{"name":"Anna","password":"secret of anna"}"#)
                }
                #expect(try limited.status == .tooManyRequests && (try limited.errorCode()) == "too_many_attempts")
                // 15 minutes from the first failure, a few seconds ago.
                let wait = Int(limited.headers[.retryAfter] ?? "") ?? 0
                #expect((850...900).contains(wait), "Retry-After \(wait)")
            }
            // Another name is not locked out by anna's failures.
            let bob = try await serverB.run { client in try await client.post("/api/login", json: #"{"name":"bob","password":"secret of bob"}"#) }
            #expect(bob.status == .ok)
        }
    }

    /// 40 wrong passwords for one name sent at once, half to each instance: each attempt is counted in the database
    /// before its hash, under a lock on the name, so at most the limit (5) are evaluated across both.
    @Test func aBurstAcrossTwoInstancesEvaluatesAtMostTheLimit() async throws {
        try await PostgresServerTests.withTwoInstances { first, second in
            var serverA = TestServer(library: first)
            serverA.configuration.accounts = true
            serverA.configuration.passwordHasher = .forTesting
            var serverB = TestServer(library: second)
            serverB.configuration = serverA.configuration
            _ = try await first.store.createUser(name: "anna", passwordHash: try PasswordHasher.forTesting.hash(TestServer.password(of: "anna")))
            let other = serverB
            let statuses = try await serverA.run(live: true) { clientA in
                try await other.run(live: true) { clientB in
                    try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                        for index in 0..<40 {
                            group.addTask {
                                let client = index % 2 == 0 ? clientA : clientB
                                return try await client.post("/api/login", json: #"{"name":"anna","password":"guess \#(index)"}"#).status
                            }
                        }
                        var statuses: [HTTPResponse.Status] = []
                        for try await status in group { statuses.append(status) }
                        return statuses
                    }
                }
            }
            #expect(statuses.filter { $0 == .unauthorized }.count <= 5)
            #expect(statuses.filter { $0 == .unauthorized || $0 == .tooManyRequests }.count == 40)
        }
    }

    enum CounterKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory
        case postgres
        var testDescription: String { rawValue }
    }

    /// The same rule in memory and in the database, with waits worked out by hand: an address that failed for a
    /// name waits while the name has its limit of failures in the window (until the limit-th newest leaves it), a
    /// clean address may still try, a success takes its count back, an address with its own limit waits for any
    /// name. On PostgreSQL the attempts go alternately through two instances' counters, and expired rows are
    /// removed as new attempts come.
    @Test(arguments: CounterKind.allCases)
    func theLoginLimitCountsInAWindow(kind: CounterKind) async throws {
        let limits = LoginLimits(failuresPerName: 5, failuresPerAddress: 20, windowSeconds: 900)
        func check(_ counters: [any LoginFailureCounter]) async throws {
            let t0 = Date(timeIntervalSince1970: 1_700_000_000)
            func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
            func counter(_ index: Int) -> any LoginFailureCounter { counters[index % counters.count] }
            // Five failures for anna, at 0, 10, … 40 s, from five addresses.
            for index in 0..<5 {
                #expect(try await counter(index).reserve(name: "anna", address: "10.0.0.\(index + 1)", now: at(Double(index) * 10)) == nil)
            }
            // An address that failed: the fifth newest is at 0 s, so it waits until 900 s. Without an address, alike.
            #expect(try await counter(1).reserve(name: "Anna", address: "10.0.0.1", now: at(100)) == 800)
            #expect(try await counter(0).reserve(name: "anna", address: nil, now: at(899.5)) == 1)
            // A clean address may try: counted, a sixth failure at 100 s; the fifth newest is now the one at 10 s.
            #expect(try await counter(1).reserve(name: "anna", address: "10.0.0.9", now: at(100)) == nil)
            #expect(try await counter(0).reserve(name: "anna", address: "10.0.0.1", now: at(100)) == 810)
            // That attempt succeeded: its count is taken back.
            try await counter(1).settle(name: "ANNA", address: "10.0.0.9", reservedAt: at(100), outcome: .succeeded)
            #expect(try await counter(0).reserve(name: "anna", address: "10.0.0.1", now: at(100)) == 800)
            #expect(try await counter(1).reserve(name: "bob", address: "10.0.0.9", now: at(100)) == nil)
            // Twenty from one address, whatever the names, lock the address (for any name) but not another address.
            for index in 0..<19 {
                #expect(try await counter(index).reserve(name: "user\(index)", address: "10.0.0.1", now: at(60)) == nil)
            }
            #expect(try await counter(0).reserve(name: "carol", address: "10.0.0.1", now: at(100)) == 800)
            #expect(try await counter(1).reserve(name: "carol", address: "10.0.0.2", now: at(100)) == nil)
        }
        switch kind {
        case .memory:
            let limiter = LoginRateLimiter(limits: limits)
            try await check([limiter])
        case .postgres:
            try await PostgresServerTests.withTwoInstances { first, second in
                let a = try #require(first.store as? PostgresRideStore)
                let b = try #require(second.store as? PostgresRideStore)
                try await check([a.loginFailureCounter(limits: limits), b.loginFailureCounter(limits: limits)])
                // 3 rows per attempt counted (name, address, the pair), less the three the success took back; an
                // attempt an hour later removes every expired one (fewer than the 100 a call may remove) and adds its own.
                #expect(try await a.loginFailureRowCount() == 3 * (5 + 1 + 1 + 19 + 1) - 3)
                #expect(try await a.loginFailureCounter(limits: limits).reserve(
                    name: "dave", address: "10.0.0.7", now: Date(timeIntervalSince1970: 1_700_003_600)) == nil)
                #expect(try await a.loginFailureRowCount() == 3)
            }
        }
    }
}
