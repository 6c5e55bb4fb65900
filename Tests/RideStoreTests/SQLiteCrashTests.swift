import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// A process killed with SIGKILL in the middle of an import leaves the database consistent and without the
/// half-imported track: a real child process (`ridestore-crash-helper`) is started and killed.
@Suite(.serialized) struct SQLiteCrashTests {
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var helper: URL? {
        let candidates = [".build/debug/ridestore-crash-helper", ".build/release/ridestore-crash-helper"].map { packageRoot.appending(path: $0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the helper; calls `shouldKill` every millisecond with the helper's output so far and the WAL's size,
    /// and kills the helper with SIGKILL when it says so. Returns the output.
    static func run(_ arguments: [String], wal: String, shouldKill: (String, Int) -> Bool) throws -> String {
        let helper = try #require(helper, "build the helper first: swift build --build-tests")
        let process = TestProcess()
        process.executableURL = helper
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let collected = Collected()
        output.fileHandleForReading.readabilityHandler = { handle in collected.append(handle.availableData) }
        try process.run()
        let deadline = Date().addingTimeInterval(300)
        while process.isRunning, Date() < deadline {
            let size = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0
            if shouldKill(collected.text, size) {
                kill(process.processIdentifier, SIGKILL)
                break
            }
            usleep(1000)
        }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL, "the helper ended by itself: \(collected.text)")
        return collected.text
    }

    /// The database opens, passes SQLite's integrity and foreign-key checks, and every track reads back whole.
    static func checkConsistent(_ path: String) async throws -> [StoredTrack] {
        let store = try SQLiteRideStore(path: path)
        let problems = try await store.writer.read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pragma_foreign_key_check") ?? -1)
        }
        #expect(problems.0 == ["ok"])
        #expect(problems.1 == 0)
        let user = try await store.localUser()
        var tracks: [StoredTrack] = []
        for summary in try await store.tracks(TrackQuery(limit: 1000), userID: user.id).tracks {
            let track = try #require(try await store.track(id: summary.id, userID: user.id))
            let document = try track.content.document()
            #expect(document.tracks.flatMap(\.segments).reduce(0) { $0 + $1.points.count } == summary.pointCount)
            tracks.append(track)
        }
        return tracks
    }

    @Test(arguments: [1, 2, 3])
    func killedInTheMiddleOfABigTransaction(_ round: Int) async throws {
        let test = try TestStore()
        let library = try await test.library()
        let kept = try await library.importFile(at: Fixtures.url("gpx/opentracks/gpx_timezone.gpx"))
        let wal = test.databasePath + "-wal"
        let walBefore = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? NSNumber)?.intValue ?? 0
        // 4,000 blocks: about 40 MB written in one transaction; killed once a few MB of it reached the WAL
        // (SQLite spills pages there before the commit), at a different point each round.
        let output = try Self.run(["blocks", test.databasePath, "4000"], wal: wal) { output, size in
            output.contains("started") && size > walBefore + round * 3_000_000
        }
        #expect(!output.contains("imported"))
        let tracks = try await Self.checkConsistent(test.databasePath)
        #expect(tracks.map(\.id) == kept.tracks.map(\.id))
        #expect(try await test.store.trackCount(userID: library.userID) == 1)
    }

    @Test func killedWhileImportingFilesOverAndOver() async throws {
        let test = try TestStore()
        let file = test.folder.appending(path: "ride.gpx")
        try GeneratedRide.write(points: 20_000, to: file)
        _ = try await test.store.localUser()
        let started = Date()
        var killedAfter = 0.0
        // Killed at a moment that falls anywhere in an import: reading, packing or writing.
        let output = try Self.run(["import", test.databasePath, file.path], wal: test.databasePath + "-wal") { output, _ in
            guard output.contains("imported 2") else { return false }
            if killedAfter == 0 { killedAfter = Date().timeIntervalSince(started) * Double.random(in: 0.2...0.6) + Date().timeIntervalSince(started) }
            return Date().timeIntervalSince(started) > killedAfter
        }
        let reported = output.split(separator: "\n").filter { $0.hasPrefix("imported") }.count
        let tracks = try await Self.checkConsistent(test.databasePath)
        // Every import the helper reported is there; at most one more (committed just before the kill, unreported).
        #expect(tracks.count == reported || tracks.count == reported + 1, "\(tracks.count) tracks, \(reported) reported")
        #expect(tracks.allSatisfy { $0.summary.pointCount == 20_000 })
    }
}

/// Output of a child process, collected on another thread.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ chunk: Data) { lock.withLock { data.append(chunk) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
