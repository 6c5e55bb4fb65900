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
        // 2 s: long enough for a loaded machine to read the keep-alive's request; waits below allow for the load too.
        try await Self.server(idleSeconds: 2).run(live: true) { client in
            let port = try #require(client.port)
            let silent = try (0..<5).map { _ in try RawConnection(port: port) }
            let half = try RawConnection(port: port)
            half.send("GET /health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ")
            let keepAlive = try RawConnection(port: port)
            keepAlive.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await keepAlive.receive(seconds: 15).text.hasPrefix("HTTP/1.1 200"))
            for connection in silent + [half, keepAlive] {
                #expect(await connection.closedByServer(within: 20))
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
            let refused = await Self.settled { attacker.filter(\.isClosed).count } until: { $0 >= 15 }
            #expect(refused == 15, "\(refused) closed at once")
            // On a connection of its own, opened now: the test client's connection, opened before the attack, may
            // have sat idle past the timeout while a loaded machine settled the attack.
            let health = try RawConnection(port: port, from: "127.0.0.3")
            health.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let answer = await health.receive(seconds: 10).text
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            // Past the timeout every held connection has been closed.
            for connection in attacker { #expect(await connection.closedByServer(within: 8)) }
        }
    }

    /// At the overall cap, a new connection takes the place of the longest-idle one: sockets held open by many
    /// addresses cannot keep `/health` out (they could, until the idle timeout, with a cap alone).
    @Test func healthAnswersWhileManyAddressesHoldTheOverallCap() async throws {
        var server = try await Self.server(idleSeconds: 30, perAddress: 4)
        server.configuration.maximumConnections = 12
        try await server.run(live: true) { client in
            let port = try #require(client.port)
            // 3 from each of 5 addresses: 15 for 12 places (the test client's own idle connection, if open, goes first).
            var held: [RawConnection] = []
            for index in 0..<15 {
                held.append(try RawConnection(port: port, from: "127.0.1.\(1 + index % 5)"))
                try await Task.sleep(for: .milliseconds(20))
            }
            // Accepting and closing take a moment on a loaded machine: wait for the three to be closed.
            let before = await Self.settled { held.map(\.isClosed) } until: { $0.filter { $0 }.count >= 3 }
            // The oldest are the ones closed (give or take the order in which event loops saw them), 12 at most open.
            #expect(before.filter { !$0 }.count <= 12)
            #expect(before.indices.filter { before[$0] }.allSatisfy { $0 < 6 }, "\(before)")
            let health = try RawConnection(port: port, from: "127.0.2.1")
            health.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
            #expect(await health.receive(seconds: 15).text.hasPrefix("HTTP/1.1 200"))
            // The oldest idle one made room for it.
            let openBefore = before.filter { !$0 }.count
            let after = await Self.settled { held.map(\.isClosed) } until: { $0.filter { !$0 }.count < openBefore }
            #expect(after.filter { !$0 }.count == openBefore - 1)
            #expect(after.indices.filter { after[$0] }.allSatisfy { $0 < 8 }, "\(after)")
            _ = client
        }
    }

    /// `value()` once `condition` holds of it, or after 15 s as it is then.
    static func settled<T>(_ value: () -> T, until condition: (T) -> Bool) async -> T {
        let deadline = Date().addingTimeInterval(15)
        var current = value()
        while !condition(current), Date() < deadline {
            try? await Task.sleep(for: .milliseconds(100))
            current = value()
        }
        return current
    }

    /// Connections are capped below the process's limit of open files, with room left for the database, photos and
    /// tiles: running out of descriptors must refuse connections, not fail a database open or a photo read.
    @Test(arguments: [(512, 1024, 512), (512, 256, 128), (512, 100, 16), (64, 100_000, 64), (512, nil, 512)] as [(Int, Int?, Int)])
    func theCapFitsTheOpenFilesLimit(configured: Int, descriptorLimit: Int?, expected: Int) {
        #expect(ConnectionLimiter.effectiveMaximum(configured: configured, descriptorLimit: descriptorLimit) == expected)
    }
}
