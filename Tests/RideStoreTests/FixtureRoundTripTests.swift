import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// Every fixture imported, exported and imported again gives back the same data: every field and extension,
/// time offsets and digits, empty segments, waypoints and routes (issue 3) - on both stores.
@Suite struct FixtureRoundTripTests {
    @Test(arguments: Fixtures.wellFormedGPX)
    func importingAndExportingGivesTheFileBack(_ path: String) async throws {
        let test = try TestStore(inMemory: true)
        try await Self.roundTrip(path, library: try await test.library(), folder: test.folder)
    }

    /// The same on PostgreSQL, every fixture in one database (a user of its own each, so that no file is another's
    /// duplicate): one database made instead of 55 at once beside the rest of the suite, which kept the server
    /// busy past other tests' 30-second transactions.
    @Test func everyFixtureImportedAndExportedGivesTheFileBackOnPostgreSQL() async throws {
        let test = try TestStore(inMemory: true)
        try await withStore(.postgres) { store in
            for (index, path) in Fixtures.wellFormedGPX.enumerated() {
                let user = try await store.createUser(name: "fixture \(index)", passwordHash: nil)
                try await Self.roundTrip(path, library: TrackLibrary(store: store, userID: user.id), folder: test.folder)
            }
        }
    }

    /// Imports the fixture at `path`, exports it (into `folder`) and imports it again, and checks every step.
    static func roundTrip(_ path: String, library: TrackLibrary, folder: URL) async throws {
        let original = try GPXReader.read(contentsOf: Fixtures.url(path))
        if original.tracks.allSatisfy({ $0.segments.allSatisfy(\.points.isEmpty) }), original.routes.allSatisfy(\.points.isEmpty) {
            // No point in any track or route (only waypoints, or empty): no 0 m track is made (`RouteImportTests`).
            await #expect(throws: RideStoreError.self) { _ = try await library.importFile(at: Fixtures.url(path)) }
            return
        }

        // Each trk a track (the default): exporting them all together gives the file's data back.
        let outcome = try await library.importFile(at: Fixtures.url(path))
        let ids = outcome.tracks.map(\.id)
        #expect(!ids.isEmpty)
        let exported = try await library.document(for: ids)
        expectSameDocument(exported, original, "\(path) per trk")

        // The same through the GPX bytes, into a file and back into the store.
        let file = folder.appending(path: "exported.gpx")
        try await library.export(ids, as: .gpx, to: file)
        let written = try GPXReader.read(contentsOf: file)
        var expected = original
        expected.version = written.version
        expected.creator = written.creator
        expectSameDocument(written, expected, "\(path) written")
        let again = try await library.importFile(at: file)
        expectSameDocument(try await library.document(for: again.tracks.map(\.id)), expected, "\(path) re-imported")

        // The whole file as one track.
        let whole = try await library.importFile(at: Fixtures.url(path), options: ImportOptions(oneTrackPerFile: true, allowsDuplicates: true))
        #expect(whole.tracks.count == 1)
        expectSameDocument(try await library.document(for: whole.tracks.map(\.id)), original, "\(path) one track")

        // Figures are those RideKit computes, stored with the track.
        if original.tracks.count == 1, let summary = outcome.tracks.first {
            let stats = original.tracks[0].stats(activity: summary.kind.activity, measuringEfforts: true)
            #expect(summary.distanceMeters == stats.distanceMeters)
            #expect(summary.ascentMeters == stats.ascentMeters)
            #expect(summary.startTime == stats.startTime)
            let stored = try #require(try await library.store.track(id: summary.id, userID: library.userID))
            #expect(stored.stats == stats)
        }
    }

    @Test(arguments: StoreKind.allCases, ["gpx/coregpx/GPXTest-TrackPointOnly.gpx", "gpx/opentracks/gpx_timezone.gpx", "gpx/togeojson/blue_hills.gpx"])
    func jsonTrackFormatAndGeoJSONComeBackAsTheyWereRead(_ kind: StoreKind, _ path: String) async throws {
        // The exported files in a folder of the test's own; the tracks in `kind`'s store.
        let test = try TestStore(inMemory: true)
        try await withLibrary(kind) { library in
            let original = try GPXReader.read(contentsOf: Fixtures.url(path))
            for format in [TrackFileFormat.gpx436, .geojson] {
                let data = try TrackLibrary.encode(original, as: format)
                let read = format == .gpx436 ? try JSONTrackFormat.decode(data) : try GeoJSONReader.read(data)
                let outcome = try await library.importData(data, fileName: "file.\(format.fileExtension)")
                let back = try await library.document(for: outcome.tracks.map(\.id))
                #expect(back.tracks.flatMap(\.segments) == read.tracks.flatMap(\.segments), "\(path) as \(format)")
                #expect(back.routes == read.routes)
                #expect(back.waypoints == read.waypoints)
                // Export in the same format gives the same bytes as RideKit's writer.
                let file = test.folder.appending(path: "out.\(format.fileExtension)")
                try await library.export(outcome.tracks.map(\.id), as: format, to: file)
                let again = format == .gpx436 ? try JSONTrackFormat.decode(try Data(contentsOf: file)) : try GeoJSONReader.read(try Data(contentsOf: file))
                #expect(again.tracks.flatMap(\.segments).flatMap(\.points) == read.tracks.flatMap(\.segments).flatMap(\.points))
            }
        }
    }

    @Test(arguments: StoreKind.allCases, Fixtures.malformedGPX)
    func aMalformedFileChangesNothing(_ kind: StoreKind, _ path: String) async throws {
        // A documents folder of the test's own, so that a failed import would show there too.
        let test = try TestStore(inMemory: true)
        try await withStore(kind) { store in
            let library = TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: test.documents)
            _ = try await library.importFile(at: Fixtures.url("gpx/opentracks/gpx_timezone.gpx"))
            let points = try await storedPointRows(store)
            let places = try await storedPlaceRows(store)
            let visible = try await VisibleState.of(store, userID: library.userID)
            await #expect(throws: RideStoreError.self) { try await library.importFile(at: Fixtures.url(path)) }
            let pointsAfter = try await storedPointRows(store)
            let placesAfter = try await storedPlaceRows(store)
            #expect(pointsAfter.segments == points.segments && pointsAfter.blocks == points.blocks)
            #expect(placesAfter.places == places.places && placesAfter.notes == places.notes && placesAfter.placeLabels == places.placeLabels)
            #expect(try await VisibleState.of(store, userID: library.userID) == visible)
        }
    }
}
