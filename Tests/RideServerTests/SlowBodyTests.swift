import Foundation
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import TestSupport
import Testing

/// Trickled request bodies (issue 20): a byte every few seconds is activity to the idle timeout, so a client could
/// hold a connection and an upload's handler for ever. A body must come at a minimum rate and whole within a
/// deadline, or the answer is 408 and the connection is closed; a real upload at a normal speed still passes.
@Suite(.serialized) struct SlowBodyTests {
    static func server(minimumRate: Int, windowSeconds: Double, wholeBodySeconds: Double = 3600) async throws -> TestServer {
        var server = try await TestServer()
        server.configuration.minimumBodyBytesPerSecond = minimumRate
        server.configuration.bodyRateWindowSeconds = windowSeconds
        server.configuration.bodyTimeoutSeconds = wholeBodySeconds
        return server
    }

    static func uploadHead(length: Int) -> String {
        "POST /api/tracks?name=ride.gpx HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/gpx+xml\r\nContent-Length: \(length)\r\n\r\n"
    }

    /// Sends `bytes` in pieces of `piece` bytes, one every `interval`, until sent or the server closes. On a thread of
    /// its own: the server under test answers on the cooperative pool, and a sender whose sleeps waited for that pool
    /// (an import running beside it) would itself trickle.
    static func trickle(_ connection: RawConnection, _ bytes: [UInt8], piece: Int, interval: Duration) async {
        let microseconds = UInt32(interval.components.seconds * 1_000_000 + interval.components.attoseconds / 1_000_000_000_000)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread {
                var start = 0
                while start < bytes.count, !connection.isClosed {
                    let end = min(bytes.count, start + piece)
                    connection.send(String(decoding: bytes[start..<end], as: UTF8.self))
                    start = end
                    usleep(microseconds)
                }
                continuation.resume()
            }.start()
        }
    }

    /// One byte every 0.4 s (2.5 B/s, under 200 B/s): 408 with a reason, and closed, within a few windows — the
    /// idle timeout (30 s) alone never closes it.
    @Test func aTrickledBodyIsAnswered408AndClosed() async throws {
        try await Self.server(minimumRate: 200, windowSeconds: 1).run(live: true) { client in
            let port = try #require(client.port)
            let connection = try RawConnection(port: port)
            let body = Array(String(repeating: "<gpx></gpx>", count: 100).utf8)
            connection.send(Self.uploadHead(length: body.count))
            let started = Date()
            async let answer = connection.receive(seconds: 20)
            await Self.trickle(connection, body, piece: 1, interval: .milliseconds(400))
            let (text, closed) = await answer
            #expect(text.hasPrefix("HTTP/1.1 408"), "\(text)")
            #expect(text.contains("body_timeout") && text.contains("200 bytes a second"), "\(text)")
            #expect(closed || connection.isClosed)
            #expect(Date().timeIntervalSince(started) < 15)
            // Nothing was stored.
            let list = try await client.execute(uri: "/api/tracks", method: .get)
            #expect((try list.jsonObject()["tracks"] as? [Any])?.isEmpty == true, "\(list.text)")
        }
    }

    /// Fast enough for the rate (300 B/s against 100) but not whole within 2 s: 408 naming the deadline.
    @Test func aBodyThatTakesTooLongIsAnswered408() async throws {
        try await Self.server(minimumRate: 100, windowSeconds: 0.5, wholeBodySeconds: 2).run(live: true) { client in
            let port = try #require(client.port)
            let connection = try RawConnection(port: port)
            let body = Array(String(repeating: "<gpx></gpx>", count: 400).utf8)
            connection.send(Self.uploadHead(length: body.count))
            async let answer = connection.receive(seconds: 20)
            await Self.trickle(connection, body, piece: 30, interval: .milliseconds(100))
            let (text, _) = await answer
            #expect(text.hasPrefix("HTTP/1.1 408"), "\(text)")
            #expect(text.contains("within 2 seconds"), "\(text)")
            #expect(await connection.closedByServer(within: 5))
        }
    }

    /// A real GPX (358 KiB) sent in 20 pieces over about 3 s — several windows, far above the minimum — is imported;
    /// so is the same file sent at once.
    @Test func anUploadAtANormalSpeedPasses() async throws {
        try await Self.server(minimumRate: 4096, windowSeconds: 0.5).run(live: true) { client in
            let port = try #require(client.port)
            let bytes = try Fixtures.bytes("gpx/georust-gpx/garmin-activity.gpx")
            let paced = try RawConnection(port: port)
            paced.send(Self.uploadHead(length: bytes.count))
            async let answer = paced.receive(seconds: 30)
            await Self.trickle(paced, bytes, piece: bytes.count / 20 + 1, interval: .milliseconds(150))
            let text = await answer.text
            #expect(text.hasPrefix("HTTP/1.1 201"), "\(text.prefix(300))")
            let whole = try RawConnection(port: port)
            whole.send(Self.uploadHead(length: bytes.count) + String(decoding: bytes, as: UTF8.self))
            let second = await whole.receive(seconds: 30).text
            // The same file again: already there (200), not refused.
            #expect(second.hasPrefix("HTTP/1.1 200"), "\(second.prefix(300))")
        }
    }

    /// The rule itself: the rate over the time the server was waiting, no verdict on a window in which the server
    /// held the client back for more than half of it, and the whole-body deadline over everything.
    @Test func theVerdict() {
        let deadline = BodyDeadline(minimumBytesPerSecond: 1000, windowSeconds: 10, wholeBodySeconds: 60)
        #expect(deadline.verdict(bytes: 10_000, waitedSeconds: 10, totalWaitedSeconds: 10) == .inTime)
        #expect(deadline.verdict(bytes: 9_999, waitedSeconds: 10, totalWaitedSeconds: 10) == .tooSlow)
        #expect(deadline.verdict(bytes: 0, waitedSeconds: 4.9, totalWaitedSeconds: 20) == .inTime)
        #expect(deadline.verdict(bytes: 5_000, waitedSeconds: 6, totalWaitedSeconds: 20) == .tooSlow)
        #expect(deadline.verdict(bytes: 1 << 30, waitedSeconds: 10, totalWaitedSeconds: 60) == .tooLong)
    }

    /// The settings from the environment (`BIKERIDE_MIN_BODY_RATE`, `_BODY_TIMEOUT`, and the gates' `_MAX_EXPORTS`,
    /// `_MAX_ARCHIVE_IMPORTS`), their defaults, and values refused.
    @Test func theSettingsAreReadFromTheEnvironment() throws {
        let defaults = try ServerConfiguration(environment: [:])
        #expect(defaults.minimumBodyBytesPerSecond == 1024 && defaults.bodyTimeoutSeconds == 3600 && defaults.bodyRateWindowSeconds == 10)
        #expect(defaults.maximumExports == 2 && defaults.maximumArchiveImports == 2)
        let set = try ServerConfiguration(environment: [
            "BIKERIDE_MIN_BODY_RATE": "0", "BIKERIDE_BODY_TIMEOUT": "600", "BIKERIDE_MAX_EXPORTS": "4", "BIKERIDE_MAX_ARCHIVE_IMPORTS": "1",
        ])
        #expect(set.minimumBodyBytesPerSecond == 0 && set.bodyTimeoutSeconds == 600 && set.maximumExports == 4 && set.maximumArchiveImports == 1)
        try set.validate()
        for (name, value) in [("MIN_BODY_RATE", "-1"), ("MIN_BODY_RATE", "fast"), ("BODY_TIMEOUT", "0"), ("BODY_TIMEOUT", "nan"),
                              ("MAX_EXPORTS", "0"), ("MAX_ARCHIVE_IMPORTS", "many")] {
            #expect(throws: ConfigurationError.self, "\(name)=\(value)") { try ServerConfiguration(environment: ["BIKERIDE_" + name: value]) }
        }
    }
}
