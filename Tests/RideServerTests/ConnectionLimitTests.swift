import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import Testing

/// Connection exhaustion (issue 20, finding 2): sockets that send nothing, half a header, or sit idle are closed
/// after the idle timeout; one address cannot hold more than its share; `/health` answers meanwhile.
@Suite struct ConnectionLimitTests {
    static func server(idleSeconds: Double, perAddress: Int = 32) async throws -> TestServer {
        var server = try await TestServer()
        server.configuration.idleTimeoutSeconds = idleSeconds
        server.configuration.maximumConnectionsPerAddress = perAddress
        return server
    }

    /// Silent sockets, a half-sent header and an idle keep-alive are all closed within the timeout (they used to
    /// stay open for ever).
    @Test func idleAndHalfSentConnectionsAreClosed() async throws {
        try await Self.server(idleSeconds: 1).run(live: true) { client in
            let port = try #require(client.port)
            let silent = try (0..<5).map { _ in try RawConnection(port: port) }
            let half = try RawConnection(port: port)
            half.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            let keepAlive = try RawConnection(port: port)
            keepAlive.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await keepAlive.receive(seconds: 5).text.hasPrefix("HTTP/1.1 200"))
            for connection in silent + [half, keepAlive] {
                #expect(await connection.closedByServer(within: 6))
            }
        }
    }

    /// One address holding idle connections gets its share and no more (the rest are closed at once); `/health`
    /// from another address answers while they are held; when they time out, they are closed.
    @Test func healthAnswersWhileOneAddressHoldsItsShare() async throws {
        try await Self.server(idleSeconds: 6, perAddress: 10).run(live: true) { client in
            let port = try #require(client.port)
            // Another client: 127.0.0.2 is loopback too.
            let attacker = try (0..<25).map { _ in try RawConnection(port: port, from: "127.0.0.2") }
            try await Task.sleep(for: .milliseconds(500))
            let refused = attacker.filter(\.isClosed).count
            #expect(refused == 15, "\(refused) closed at once")
            let health = try await client.get("/health")
            #expect(health.status == .ok)
            // Past the timeout every held connection has been closed.
            for connection in attacker { #expect(await connection.closedByServer(within: 8)) }
        }
    }

    /// The overall cap: past it, a connection is closed at once.
    @Test func theOverallCapClosesConnectionsPastIt() async throws {
        var server = try await Self.server(idleSeconds: 5, perAddress: 100)
        server.configuration.maximumConnections = 6
        try await server.run(live: true) { client in
            let port = try #require(client.port)
            let held = try (0..<10).map { _ in try RawConnection(port: port, from: "127.0.0.3") }
            try await Task.sleep(for: .milliseconds(500))
            let refused = held.filter(\.isClosed).count
            // The test client's own connection may hold one place.
            #expect((4...5).contains(refused), "\(refused) closed at once")
        }
    }
}
