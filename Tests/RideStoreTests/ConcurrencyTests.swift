import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// Several imports and reads at once: nothing is lost or corrupted, and readers are not held up by writers.
@Suite struct ConcurrencyTests {
    @Test func sqliteImportsAndReadsAtOnce() async throws {
        let test = try TestStore()
        let library = try await test.library()
        let first = try await library.importFile(at: Fixtures.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx"))
        let known = try #require(first.tracks.first)
        var files: [URL] = []
        for index in 0..<4 {
            let url = test.folder.appending(path: "ride\(index).gpx")
            try GeneratedRide.write(points: 30_000 + index, name: "ride \(index)", to: url)
            files.append(url)
        }
        let clock = ContinuousClock()
        let started = clock.now
        let results = try await withThrowingTaskGroup(of: Either.self) { group in
            for url in files { group.addTask { .imported(try await library.importFile(at: url)) } }
            // Readers, until the imports are done: the list and a whole track, over and over.
            group.addTask {
                var latencies: [Duration] = []
                while clock.now - started < .seconds(120) {
                    let before = clock.now
                    let page = try await test.store.tracks(TrackQuery(limit: 50), userID: library.userID)
                    let track = try await test.store.track(id: known.id, userID: library.userID)
                    latencies.append(clock.now - before)
                    #expect(track?.summary.pointCount == known.pointCount)
                    #expect(page.tracks.count >= 1)
                    if page.tracks.count == 5 { break }
                }
                return .reads(latencies)
            }
            var all: [Either] = []
            for try await result in group { all.append(result) }
            return all
        }
        let importsElapsed = clock.now - started
        let outcomes: [FileImportOutcome] = results.compactMap { if case .imported(let outcome) = $0 { outcome } else { nil } }
        let latencies: [Duration] = results.flatMap { result -> [Duration] in if case .reads(let latencies) = result { latencies } else { [] } }
        #expect(outcomes.count == 4)
        #expect(outcomes.allSatisfy { $0.tracks.count == 1 })
        #expect(latencies.count >= 3, "the readers got \(latencies.count) turns while 4 imports ran")
        // A reader waits for no writer (WAL): a read takes what it takes alone, not the length of an import (a quarter
        // of the whole when the four are written one after another). On a loaded machine everything is slower: the
        // bound is then a fifth of the imports' time, still under a read that waited for one import.
        let bound = max(.seconds(5), importsElapsed / 5)
        #expect(latencies.max()! < bound, "slowest read \(latencies.max()!), imports took \(importsElapsed)")
        for (outcome, index) in zip(outcomes.sorted { $0.path < $1.path }, 0...) {
            let track = try #require(try await test.store.track(id: outcome.tracks[0].id, userID: library.userID))
            #expect(try track.content.document().tracks[0].segments[0].points.count == 30_000 + index)
        }
        #expect(try await test.sqlite.writer.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// The durability chosen is what the writing connection runs with (GRDB's pool turns WAL on with NORMAL).
    @Test func theSQLiteWriterRunsWithTheDurabilityChosen() async throws {
        let test = try TestStore()
        #expect(try await test.sqlite.synchronousSetting() == 2)  // FULL, the default
        let normal = try SQLiteRideStore(path: test.folder.appending(path: "normal.sqlite").path, configuration: .init(durability: .normal))
        #expect(try await normal.synchronousSetting() == 1)
        let memory = try SQLiteRideStore(inMemory: .init())
        #expect(try await memory.synchronousSetting() == 2)
        // Still so after writes and a checkpoint.
        _ = try await test.store.localUser()
        try await test.sqlite.checkpoint()
        #expect(try await test.sqlite.synchronousSetting() == 2)
    }

    @Test(arguments: StoreKind.allCases) func aBatchSentTwiceAtOnceIsStoredOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let recordings = try await (0..<4).asyncMap { index in
                try await store.startRecording(NewRecording(name: "r\(index)"), userID: user.id)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for recording in recordings {
                    for _ in 0..<2 {
                        group.addTask {
                            for start in stride(from: 0, to: 600, by: 20) {
                                _ = try await store.appendFixes(RecordingTests.fixes(start..<(start + 20)), recordingID: recording.id, userID: user.id)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            for recording in recordings {
                let track = try #require(try await store.track(id: recording.trackID, userID: user.id))
                #expect(try track.content.document().tracks[0].segments[0].points == RecordingTests.fixes(0..<600).map(\.point))
            }
        }
    }

    enum Either: Sendable {
        case imported(FileImportOutcome)
        case reads([Duration])
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
