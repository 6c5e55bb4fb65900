import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import RideStore
import Testing

/// Password guessing as an attacker does it (issue 20, findings 1 and 3): many guesses at once, from many addresses
/// or through a proxy; and the real user, who must still get in.
@Suite struct LoginAttackTests {
    /// 50 wrong passwords for one name sent at once (50 connections, each request written before any answer is
    /// read), with the right one among them: each attempt is counted before its hash, so at most the limit (5) are
    /// evaluated, the rest answer 429, and the right password, arriving past the limit, does not get in. (Counted
    /// after the hash, every guess of the burst was evaluated.) Hashes cost ~4 MiB here, so they overlap.
    @Test func aConcurrentBurstOfGuessesIsCountedBeforeHashing() async throws {
        var server = try await TestServer.withAccounts(users: [])
        let hasher = PasswordHasher(logRounds: 12)
        server.configuration.passwordHasher = hasher
        server.configuration.maximumConnectionsPerAddress = 100
        _ = try await server.library.store.createUser(name: "anna", passwordHash: try hasher.hash(TestServer.password(of: "anna")))
        try await server.run(live: true) { client in
            let port = try #require(client.port)
            let connections = try (0..<50).map { _ in try RawConnection(port: port) }
            for (index, connection) in connections.enumerated() {
                // The right password comes in the middle of the burst.
                let password = index == 25 ? TestServer.password(of: "anna") : "guess number \(index)"
                let body = #"{"name":"anna","password":"\#(password)"}"#
                connection.send(
                    "POST /api/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                        + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)")
            }
            var statuses: [Int: Int] = [:]
            for (index, connection) in connections.enumerated() {
                let answer = await connection.receive(seconds: 30).text
                statuses[index] = Int(answer.dropFirst("HTTP/1.1 ".count).prefix(3)) ?? 0
            }
            let evaluated = statuses.values.filter { $0 == 401 || $0 == 200 }.count
            let refused = statuses.values.filter { $0 == 429 }.count
            #expect(evaluated <= 5, "\(evaluated) evaluated")
            #expect(evaluated + refused == 50, "\(statuses)")
            // The right password got in only if it was among the first five counted.
            #expect(statuses[25] == 429 || evaluated <= 5)
        }
    }

    /// The hashing queue is bounded: past `maximumWaiting`, work is refused at once instead of queued.
    @Test func thePasswordQueueRefusesPastItsBound() async throws {
        let work = PasswordWork(width: 1, maximumWaiting: 2)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    do {
                        _ = try await work.run { Thread.sleep(forTimeInterval: 0.3); return true }
                        return true
                    } catch { return false }
                }
            }
            var results: [Bool] = []
            for await result in group { results.append(result) }
            return results
        }
        // One running, two waiting: three done; three refused at once.
        #expect(results.filter { $0 }.count == 3)
        #expect(results.filter { !$0 }.count == 3)
    }

    /// A server with accounts behind a trusted proxy on 127.0.0.1: the client is the address it forwards for.
    static func behindProxy() async throws -> TestServer {
        var server = try await TestServer.withAccounts()
        server.configuration.trustedProxies = ["127.0.0.1"]
        return server
    }

    static func login(_ client: any TestClientProtocol, from address: String, password: String) async throws -> HTTPResponse.Status {
        try await client.execute(
            uri: "/api/login", method: .post, headers: [.contentType: "application/json", .xForwardedFor: address],
            body: ByteBuffer(string: #"{"name":"anna","password":"\#(password)"}"#)
        ).status
    }

    static func expectLogin(
        _ client: any TestClientProtocol, from address: String, password: String, _ expected: HTTPResponse.Status,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let status = try await login(client, from: address, password: password)
        #expect(status == expected, "from \(address)", sourceLocation: sourceLocation)
    }

    /// Guesses from one address slow that address down, and do not lock the name: the right password from an
    /// address that has not failed gets in. Once the name has had its limit of failures, another address may try
    /// once before it waits too. (Before, five failures from anywhere locked the name for everyone.)
    @Test func noLockOutOfTheRealUserFromACleanAddress() async throws {
        try await Self.behindProxy().run(live: true) { client in
            for index in 0..<5 {
                try await Self.expectLogin(client, from: "10.0.0.1", password: "guess \(index)", .unauthorized)
            }
            try await Self.expectLogin(client, from: "10.0.0.1", password: "guess 5", .tooManyRequests)
            try await Self.expectLogin(client, from: "10.0.0.1", password: TestServer.password(of: "anna"), .tooManyRequests)
            // The real user, elsewhere.
            try await Self.expectLogin(client, from: "10.0.0.2", password: TestServer.password(of: "anna"), .ok)
            // Another guessing address: one try, then it waits too.
            try await Self.expectLogin(client, from: "10.0.0.3", password: "guess 6", .unauthorized)
            try await Self.expectLogin(client, from: "10.0.0.3", password: "guess 7", .tooManyRequests)
        }
    }

    /// `X-Forwarded-For` from a peer that is not a trusted proxy is anyone's to write: it is ignored, so an attacker
    /// cannot pose as a new address for each guess.
    @Test func forwardedForIsIgnoredFromAnUntrustedPeer() async throws {
        try await TestServer.withAccounts().run(live: true) { client in
            for index in 0..<5 {
                try await Self.expectLogin(client, from: "10.0.1.\(index)", password: "guess \(index)", .unauthorized)
            }
            try await Self.expectLogin(client, from: "10.0.1.99", password: "guess 5", .tooManyRequests)
        }
    }

    /// The rule on its own, with waits worked out by hand.
    @Test func theLimitsSlowEachAddressAndSpareCleanOnes() async {
        let limits = LoginLimits(failuresPerName: 2, failuresPerAddress: 3, windowSeconds: 100)
        let limiter = LoginRateLimiter(limits: limits)
        let t0 = Date(timeIntervalSince1970: 1_700_000_000)
        func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }
        // Two failures of anna from A at 0 and 10 s: A waits until the first leaves the window.
        #expect(await limiter.reserve(name: "anna", address: "A", now: at(0)) == nil)
        #expect(await limiter.reserve(name: "Anna", address: "A", now: at(10)) == nil)
        #expect(await limiter.reserve(name: "anna", address: "A", now: at(20)) == 80)
        // B has not failed: it may try although the name is past its budget; after one failure it waits too.
        #expect(await limiter.reserve(name: "anna", address: "B", now: at(20)) == nil)
        #expect(await limiter.reserve(name: "anna", address: "B", now: at(30)) == 80)
        // A success from C takes back its reservation: C's count stays empty.
        #expect(await limiter.reserve(name: "anna", address: "C", now: at(40)) == nil)
        await limiter.settle(name: "anna", address: "C", reservedAt: at(40), outcome: .succeeded)
        #expect(await limiter.reserve(name: "anna", address: "C", now: at(41)) == nil)
        await limiter.settle(name: "anna", address: "C", reservedAt: at(41), outcome: .notEvaluated)
        // An address guessing other names: 3 failures lock the address for every name.
        #expect(await limiter.reserve(name: "x", address: "D", now: at(50)) == nil)
        #expect(await limiter.reserve(name: "y", address: "D", now: at(50)) == nil)
        #expect(await limiter.reserve(name: "z", address: "D", now: at(50)) == nil)
        #expect(await limiter.reserve(name: "bob", address: "D", now: at(60)) == 90)
        // Past the window, A may try again.
        #expect(await limiter.reserve(name: "anna", address: "A", now: at(111)) == nil)
    }

    /// A login name holding a newline is written escaped: it cannot start a log line of its own.
    @Test func aNameWithANewlineCannotForgeALogLine() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        var server = try await TestServer.withAccounts()
        server.configuration.logLevel = .info
        let app = try buildApplication(configuration: server.configuration, library: server.library, logger: logger)
        try await app.test(.router) { client in
            let name = #"eve\n2026-01-01T00:00:00 notice login ok name=anna"#
            _ = try await client.post("/api/login", json: #"{"name":"\#(name)","password":"wrong"}"#)
        }
        let lines = records.messages.filter { $0.contains("eve") }
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { !$0.contains("\n") }, "\(lines)")
        #expect(lines.contains { $0.contains(#"eve\u{A}2026"#) }, "\(lines)")
    }
}
