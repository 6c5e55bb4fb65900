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
    /// 50 wrong passwords for one name sent at once, with the right one among them: each attempt is counted before
    /// its hash, so at most the limit (5) are evaluated, the rest answer 429, and the right password, arriving past
    /// the limit, does not get in. (Counted after the hash, every guess of the burst was evaluated.)
    @Test func aConcurrentBurstOfGuessesIsCountedBeforeHashing() async throws {
        let server = try await TestServer.withAccounts()
        try await server.run(live: true) { client in
            let statuses = try await withThrowingTaskGroup(of: (Int, HTTPResponse.Status).self) { group in
                for index in 0..<51 {
                    group.addTask {
                        // The right password comes in the middle of the burst.
                        let password = index == 25 ? TestServer.password(of: "anna") : "guess number \(index)"
                        let response = try await client.post("/api/login", json: #"{"name":"anna","password":"\#(password)"}"#)
                        return (index, response.status)
                    }
                }
                var statuses: [Int: HTTPResponse.Status] = [:]
                for try await (index, status) in group { statuses[index] = status }
                return statuses
            }
            let evaluated = statuses.values.filter { $0 == .unauthorized || $0 == .ok }.count
            let refused = statuses.values.filter { $0 == .tooManyRequests }.count
            #expect(evaluated <= 5, "\(evaluated) evaluated")
            #expect(evaluated + refused == 51)
            // The right password got in only if it was among the first five counted.
            if statuses[25] == .ok { #expect(evaluated <= 5) } else { #expect(statuses[25] == .tooManyRequests) }
            #expect(statuses.values.filter { $0 == .ok }.count <= 1)
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
