import Foundation
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// A long import reads back exactly the points of the file, point by point, on both stores.
@Suite struct BulkImportTests {
    @Test(arguments: StoreKind.allCases) func aLongImportReadsBackEveryPointAsTheFileHasIt(_ kind: StoreKind) async throws {
        // Two segments of 100,000 and 70,001 points: 98 and 69 blocks of 1,024.
        var document = GeneratedRide.document(points: 100_000, name: "Long ride")
        document.tracks[0].segments.append(GeneratedRide.document(points: 70_001, start: 1_714_908_400).tracks[0].segments[0])
        let data = GPXWriter.data(document)
        let parsed = try GPXReader.read(bytes: Array(data))
        try await withLibrary(kind) { library in
            let outcome = try await library.importData(data, fileName: "long.gpx", options: ImportOptions(allowsDuplicates: true))
            let track = try #require(outcome.tracks.first)
            let stored = try #require(try await library.store.track(id: track.id, userID: library.userID))
            #expect(stored.summary.pointCount == 170_001)
            let read = try stored.content.document()
            #expect(read.tracks.count == 1 && read.tracks[0].segments.count == 2)
            for (index, (expected, actual)) in zip(parsed.tracks[0].segments, read.tracks[0].segments).enumerated() {
                #expect(actual.points.count == expected.points.count, "segment \(index)")
                let different = zip(expected.points, actual.points).enumerated().filter { $0.element.0 != $0.element.1 }
                #expect(different.isEmpty, "segment \(index): \(different.count) points differ, the first at \(different.first?.offset ?? -1)")
            }
            let rows = try await storedPointRows(library.store)
            #expect(rows.segments == 2 && rows.blocks == 98 + 69)
        }
    }
}
