import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
import RideStore
@testable import RideServer
import Testing

/// Costly work at once (issue 20): exports and archive imports each run a few at a time in all and one per user;
/// past that 429 at once with `Retry-After`, never a queue; the place is given back when the work ends, fails, or
/// its client goes away.
@Suite struct WorkGateTests {
    /// 40 callers at once over 4 keys, each holding what it gets: exactly `width` are let in, none of a key beyond
    /// `widthPerKey` (the oracle: counting what was let in by key), the rest refused; once all is given back the
    /// gate is empty and lets in again.
    @Test(arguments: [(3, 2), (1, 1), (8, 2), (5, 5)] as [(Int, Int)])
    func aFloodIsCountedAndRefusedAtOnce(width: Int, perKey: Int) async throws {
        let gate = WorkGate(width: width, widthPerKey: perKey)
        let keys = ["a", "b", "c", "d"]
        let outcomes = await withTaskGroup(of: (String, WorkGate.Permit?).self) { group in
            for index in 0..<40 {
                let key = keys[index % keys.count]
                group.addTask { (key, try? gate.tryEnter(key: key)) }
            }
            var outcomes: [(String, WorkGate.Permit?)] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        let admitted = outcomes.filter { $0.1 != nil }
        #expect(admitted.count == min(width, perKey * keys.count))
        for key in keys { #expect(admitted.filter { $0.0 == key }.count <= perKey) }
        #expect(gate.running() == admitted.count)
        for (_, permit) in admitted { permit?.release() }
        #expect(gate.running() == 0)
        for key in keys { #expect(gate.running(key: key) == 0) }
        #expect((try? gate.tryEnter(key: "a")) != nil)
    }

    /// A permit that is dropped without `release()` gives its place back (an error path, a response never written);
    /// releasing twice gives back one place.
    @Test func aDroppedPermitGivesItsPlaceBack() throws {
        let gate = WorkGate(width: 1)
        do {
            let permit = try gate.tryEnter(key: "a")
            #expect(gate.running() == 1)
            _ = permit
        }
        #expect(gate.running() == 0)
        let first = try gate.tryEnter()
        first.release()
        first.release()
        let second = try gate.tryEnter()
        #expect(throws: WorkGate.Busy.self) { try gate.tryEnter() }
        second.release()
    }

    /// A waiter whose key is full does not hold up one behind it whose key has room.
    @Test func aWaiterOfAFullKeyDoesNotBlockOthers() async throws {
        let gate = WorkGate(width: 3, widthPerKey: 1, maximumWaiting: 4)
        let a = try gate.tryEnter(key: "a")
        let b = try gate.tryEnter(key: "b")
        async let waitingA = gate.enter(key: "a")
        try await Task.sleep(for: .milliseconds(100))
        // "c" has room now: let in without waiting.
        let c = try await gate.enter(key: "c")
        #expect(gate.running() == 3)
        c.release()
        a.release()
        let secondA = try await waitingA
        #expect(gate.running(key: "a") == 1)
        secondA.release()
        b.release()
        #expect(gate.running() == 0)
    }

    // MARK: Through the server

    static func server() async throws -> (TestServer, WorkGates) {
        var server = try await TestServer()
        server.configuration.maximumExports = 2
        server.configuration.maximumArchiveImports = 2
        // Uploads held open on purpose: the trickle rule (SlowBodyTests) must not end them while a loaded machine
        // takes more than its 10 s window to answer the others.
        server.configuration.minimumBodyBytesPerSecond = 0
        let gates = WorkGates(configuration: server.configuration)
        server.workGates = gates
        return (server, gates)
    }

    /// While the user's export runs, 8 more sent at once are all 429 with `Retry-After`; while two other users' run,
    /// so is this user's (the overall cap); when they end, it is made.
    @Test func exportsPastTheGateAre429AtOnce() async throws {
        let (server, gates) = try await Self.server()
        let user = server.library.userID.rawValue
        try await server.run { client in
            let running = try gates.exports.tryEnter(key: user)
            let statuses = try await withThrowingTaskGroup(of: (Int, String?, String).self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        let answer = try await client.execute(uri: "/api/export", method: .get)
                        return (Int(answer.status.code), answer.headers[.retryAfter], answer.text)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0.0 == 429 && $0.1 == "30" && $0.2.contains("already being made") }, "\(statuses)")
            running.release()
            let others = [try gates.exports.tryEnter(key: "other1"), try gates.exports.tryEnter(key: "other2")]
            let refused = try await client.execute(uri: "/api/export", method: .get)
            #expect(refused.status == .tooManyRequests && refused.text.contains("too many exports"), "\(refused.text)")
            others.forEach { $0.release() }
            let made = try await client.execute(uri: "/api/export", method: .get)
            #expect(made.status == .ok && made.headers[.contentType] == "application/zip")
            #expect(gates.exports.running() == 0)
        }
    }

    /// A real export held by a client that reads nothing (the library's photos are larger than the socket's buffers):
    /// the gate holds one; the user's next is 429; when that client goes away, the place is given back.
    @Test func anExportsPlaceIsGivenBackWhenItsClientGoesAway() async throws {
        let (server, gates) = try await Self.server()
        // Two photos of 15 MiB that deflate cannot shrink: a random 64 KiB, over and over (farther apart than deflate's
        // 32 KiB window). Made before the server: drawing 30 MiB of random bytes one by one took long enough on a loaded
        // machine for the client's kept-alive connection to pass the server's idle timeout ("I/O on closed channel").
        var random = SystemRandomNumberGenerator()
        let chunk = (0..<(64 << 10)).map { _ in UInt8.random(in: 0...255, using: &random) }
        let photo = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: chunk, count: 240).joined())
        try await server.run(live: true) { client in
            let port = try #require(client.port)
            let (_, note) = try await client.placeWithNote()
            for _ in 0..<2 {
                // Straight into the store: the upload path is not what this test is about.
                let bytes = photo
                _ = try await server.library.store.addPhoto(
                    noteID: try #require(NoteID(note)), mediaType: "image/jpeg", bytes: bytes, userID: server.library.userID)
            }
            var holder: RawConnection? = try RawConnection(port: port)
            holder?.send("GET /api/export HTTP/1.1\r\nHost: localhost\r\n\r\n")
            let held = await ConnectionLimitTests.settled { gates.exports.running() } until: { $0 == 1 }
            #expect(held == 1)
            try await Task.sleep(for: .seconds(1))
            #expect(gates.exports.running() == 1, "the export ended though its client read nothing")
            let refused = try await client.execute(uri: "/api/export", method: .get)
            #expect(refused.status == .tooManyRequests, "\(refused.status)")
            holder = nil  // the client goes away mid-export
            let after = await ConnectionLimitTests.settled { gates.exports.running() } until: { $0 == 0 }
            #expect(after == 0)
            _ = holder
        }
    }

    static var zipHead: String {
        "POST /api/tracks?name=strava.zip HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/zip\r\nContent-Length: 50000000\r\n\r\nPK\u{3}\u{4}"
    }

    /// Four zips sent at once by one user (each still sending): one takes the place, three are 429 at once with
    /// `Retry-After` before their bodies came; when the one sending goes away, its place is given back.
    @Test func archiveUploadsPastTheGateAre429AtOnceAndAPlaceComesBackOnDisconnect() async throws {
        let (server, gates) = try await Self.server()
        try await server.run(live: true) { client in
            let port = try #require(client.port)
            var first: RawConnection? = try RawConnection(port: port)
            first?.send(Self.zipHead)
            #expect(await ConnectionLimitTests.settled { gates.archiveImports.running() } until: { $0 == 1 } == 1)
            let others = try (0..<3).map { _ in try RawConnection(port: port) }
            for other in others { other.send(Self.zipHead) }
            for other in others {
                let answer = await other.receive(seconds: 15).text
                #expect(answer.hasPrefix("HTTP/1.1 429") && answer.lowercased().contains("retry-after: 60"), "\(answer.prefix(400))")
                #expect(answer.contains("being imported already"))
            }
            #expect(gates.archiveImports.running() == 1)
            first = nil
            #expect(await ConnectionLimitTests.settled { gates.archiveImports.running() } until: { $0 == 0 } == 0)
            _ = first
        }
    }

    /// An archive whose import fails (not a readable zip) gives its place back when the job ends; the next one is
    /// taken.
    @Test func aFailedArchiveImportGivesItsPlaceBack() async throws {
        let (server, gates) = try await Self.server()
        try await server.run { client in
            let broken = ByteBuffer(bytes: [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0x41, count: 4000))
            let started = try await client.execute(uri: "/api/tracks?name=broken.zip", method: .post, body: broken)
            #expect(started.status == .accepted, "\(started.text)")
            let id = try #require(try started.jsonObject()["id"] as? String)
            let ended = await ConnectionLimitTests.settled { gates.archiveImports.running() } until: { $0 == 0 }
            #expect(ended == 0)
            let job = try await client.get("/api/imports/\(id)").jsonObject()
            #expect(job["state"] as? String == "failed", "\(job)")
            let again = try await client.execute(uri: "/api/tracks?name=broken.zip", method: .post, body: broken)
            #expect(again.status == .accepted, "\(again.text)")
        }
    }
}
