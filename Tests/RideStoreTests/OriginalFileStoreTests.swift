import Foundation
import RideKit
@testable import RideStore
import TestSupport
import Testing

/// An imported FIT file kept as it came (issue 23: the export carries "FIT when it came as FIT"), on both stores.
@Suite struct OriginalFileStoreTests {
    @Test(arguments: StoreKind.allCases) func aFITImportKeepsItsBytesAndOtherFormatsDoNot(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let other = try await store.createUser(name: "other", passwordHash: nil).id
            let library = TrackLibrary(store: store, userID: user)
            let fitBytes = try Data(contentsOf: Fixtures.url("fit/python-fitparse/garmin-edge-820-bike.fit"))
            // Each way in: bytes (an upload), and a file.
            let fromData = try #require(try await library.importData(fitBytes, fileName: "ride.fit").tracks.first)
            let stored = try #require(try await store.originalFile(trackID: fromData.id, userID: user))
            #expect(stored.bytes == fitBytes && stored.format == .fit && stored.fileName == "ride.fit")
            #expect(try await store.originalFile(trackID: fromData.id, userID: other) == nil)
            _ = try await store.purgeTracks(ids: [fromData.id], userID: user)
            let fromFile = try #require(try await library.importFile(at: Fixtures.url("fit/python-fitparse/garmin-edge-820-bike.fit")).tracks.first)
            #expect(try await store.originalFile(trackID: fromFile.id, userID: user)?.bytes == fitBytes)
            // GPX is written back faithfully from the points: not kept.
            let gpx = try #require(try await library.importFile(at: Fixtures.url("gpx/gpxpy/route.gpx")).tracks.first)
            #expect(try await store.originalFile(trackID: gpx.id, userID: user) == nil)
        }
    }

    @Test func onlyFITFilesUpTo16MiBAreKept() {
        #expect(OriginalFileRules.keeps(format: .fit, byteCount: 1))
        #expect(OriginalFileRules.keeps(format: .fit, byteCount: 16 << 20))
        #expect(!OriginalFileRules.keeps(format: .fit, byteCount: (16 << 20) + 1))
        #expect(!OriginalFileRules.keeps(format: .fit, byteCount: 0))
        for format in [TrackFileFormat.gpx, .tcx, .geojson, .gpx436] { #expect(!OriginalFileRules.keeps(format: format, byteCount: 100)) }
    }
}
