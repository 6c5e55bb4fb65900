import Foundation
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// A long import reads back exactly the points of the file, point by point, on both stores (on PostgreSQL with its
/// point blocks written by `COPY` and by `INSERT`s, `PostgresRideStore.copyThreshold`).
@Suite struct BulkImportTests {
    @Test(arguments: StoreKind.allCases) func aLongImportReadsBackEveryPointAsTheFileHasIt(_ kind: StoreKind) async throws {
        // Two segments of 100,000 and 70,001 points: 98 and 69 blocks of 1,024.
        var document = GeneratedRide.document(points: 100_000, name: "Long ride")
        document.tracks[0].segments.append(GeneratedRide.document(points: 70_001, start: 1_714_908_400).tracks[0].segments[0])
        let data = GPXWriter.data(document)
        let parsed = try GPXReader.read(bytes: Array(data))
        try await withLibrary(kind) { library in
            // On PostgreSQL by COPY (from 64 blocks), then by INSERTs; the threshold means nothing to SQLite.
            let thresholds: [Int?] = kind == .postgres ? [64, nil] : [nil]
            for (round, threshold) in thresholds.enumerated() {
                let outcome = try await PostgresRideStore.$copyThreshold.withValue(threshold) {
                    try await library.importData(data, fileName: "long.gpx", options: ImportOptions(allowsDuplicates: true))
                }
                let track = try #require(outcome.tracks.first)
                let stored = try #require(try await library.store.track(id: track.id, userID: library.userID))
                #expect(stored.summary.pointCount == 170_001)
                let read = try stored.content.document()
                #expect(read.tracks.count == 1 && read.tracks[0].segments.count == 2)
                for (index, (expected, actual)) in zip(parsed.tracks[0].segments, read.tracks[0].segments).enumerated() {
                    #expect(actual.points.count == expected.points.count, "segment \(index), threshold \(String(describing: threshold))")
                    let different = zip(expected.points, actual.points).enumerated().filter { $0.element.0 != $0.element.1 }
                    #expect(different.isEmpty, "segment \(index): \(different.count) points differ, the first at \(different.first?.offset ?? -1)")
                }
                let rows = try await storedPointRows(library.store)
                #expect(rows.segments == 2 * (round + 1) && rows.blocks == (98 + 69) * (round + 1))
            }
        }
    }

    /// Both ways of writing blocks on PostgreSQL (`COPY`, `INSERT`s) store the same, whichever the threshold picks.
    @Test func copyAndInsertsStoreTheSamePoints() async throws {
        let data = GPXWriter.data(GeneratedRide.document(points: 5_000))
        let parsed = try GPXReader.read(bytes: Array(data))
        try await withLibrary(.postgres) { library in
            var read: [GPXDocument] = []
            for (threshold, name) in [(0, "copied.gpx"), (nil, "inserted.gpx")] as [(Int?, String)] {
                let outcome = try await PostgresRideStore.$copyThreshold.withValue(threshold) {
                    try await library.importData(data, fileName: name, options: ImportOptions(allowsDuplicates: true))
                }
                let track = try #require(outcome.tracks.first)
                read.append(try #require(try await library.store.track(id: track.id, userID: library.userID)).content.document())
            }
            #expect(read.map(\.tracks[0].segments) == [parsed.tracks[0].segments, parsed.tracks[0].segments])
            #expect(try await storedPointRows(library.store).blocks == 5 + 5)
        }
    }

    /// A measurement, not a check: with `BIKERIDE_BENCH_IMPORT_FILE` set (and PostgreSQL), reads that file once, then
    /// saves its tracks (`saveImport`: the store's part of an import, one transaction) into a fresh database by row
    /// `INSERT`s and by `COPY`, three times each, alternating, and prints the wall times.
    @Test func importTimesByInsertsAndByCopy() async throws {
        guard let path = ProcessInfo.processInfo.environment["BIKERIDE_BENCH_IMPORT_FILE"], !path.isEmpty else {
            try Test.cancel("a measurement: set BIKERIDE_BENCH_IMPORT_FILE to a GPX file to run it")
        }
        let document = try GPXReader.read(contentsOf: URL(filePath: path))
        let track = NewTrack(
            name: "Bench", kind: .ride, content: TrackContent(document: document), stats: TrackStats(activity: TrackKind.ride.activity), preview: [])
        let points = document.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
        for run in 1...3 {
            for (label, threshold) in [("INSERT", nil), ("COPY", 64)] as [(String, Int?)] {
                try await withStore(.postgres) { store in
                    let user = try await store.localUser()
                    let batch = TrackImport(
                        source: ImportSource(fileName: "bench.gpx", format: .gpx, contentHash: "bench", byteCount: 1), tracks: [track])
                    let clock = ContinuousClock()
                    let start = clock.now
                    _ = try await PostgresRideStore.$copyThreshold.withValue(threshold) { try await store.saveImport(batch, userID: user.id) }
                    print("saveImport by \(label), run \(run): \(points) points in \(clock.now - start)")
                }
            }
        }
    }
}
