import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// One import is one transaction; the same file is not imported twice unless asked.
@Suite struct ImportTransactionTests {
    @Test(arguments: StoreKind.allCases) func aFailureInsideTheTransactionLeavesNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let ride = GeneratedRide.document(points: 5000)
            let tracks = [NewTrack(name: "ok", kind: .ride, content: TrackContent(document: ride), stats: ride.stats())]
            let before = try await storedPointRows(store)
            let visible = try await VisibleState.of(store, userID: user.id)
            // The tracks are written first; the place's unknown label fails the transaction after them.
            let batch = TrackImport(
                source: ImportSource(fileName: "x.gpx", format: .gpx, contentHash: "abc", byteCount: 1),
                tracks: tracks + tracks, places: [NewPlace(latitude: 1, longitude: 2, name: "p", labelIDs: [.random()])])
            await #expect(throws: RideStoreError.self) { try await store.saveImport(batch, userID: user.id) }
            let after = try await storedPointRows(store)
            #expect(after.segments == before.segments && after.blocks == before.blocks)
            #expect(try await VisibleState.of(store, userID: user.id) == visible)

            // Replacing a track that does not exist fails the same way.
            let replacing = TrackImport(
                source: ImportSource(fileName: "x.gpx", format: .gpx, contentHash: "abc", byteCount: 1), tracks: tracks, replacing: .random())
            await #expect(throws: RideStoreError.notFound(kind: "track", id: replacing.replacing!.rawValue)) {
                try await store.saveImport(replacing, userID: user.id)
            }
            let afterReplacing = try await storedPointRows(store)
            #expect(afterReplacing.segments == before.segments && afterReplacing.blocks == before.blocks)
        }
    }

    @Test(arguments: StoreKind.allCases) func theSameFileIsImportedOnceUnlessAsked(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in try await Self.importsOnceUnlessAsked(library) }
    }

    static func importsOnceUnlessAsked(_ library: TrackLibrary) async throws {
        let url = Fixtures.url("gpx/ruby-gpx/tracks.gpx")
        let first = try await library.importFile(at: url)
        #expect(!first.tracks.isEmpty)
        let second = try await library.importFile(at: url)
        #expect(second.result == .duplicate(of: first.tracks.map(\.id)))
        // Bytes uploaded are recognised too.
        let upload = try await library.importData(try Data(contentsOf: url), fileName: "renamed.gpx")
        #expect(upload.result == .duplicate(of: first.tracks.map(\.id)))
        let forced = try await library.importFile(at: url, options: ImportOptions(allowsDuplicates: true))
        #expect(forced.tracks.count == first.tracks.count)
        #expect(Set(forced.tracks.map(\.id)).isDisjoint(with: first.tracks.map(\.id)))

        // Once every copy is deleted, the file can come in again.
        _ = try await library.delete(first.tracks.map(\.id) + forced.tracks.map(\.id), permanently: false)
        let afterDelete = try await library.importFile(at: url)
        #expect(afterDelete.tracks.count == first.tracks.count)
    }

    @Test(arguments: StoreKind.allCases) func eachTrkBecomesATrackAndWaypointsCanBecomePlaces(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let url = Fixtures.url("gpx/gpxpy/gpx1.1_with_all_fields.gpx")
            let document = try GPXReader.read(contentsOf: url)
            let outcome = try await library.importFile(at: url, options: ImportOptions(waypointsAsPlaces: true))
            guard case .imported(_, let tracks, let places) = outcome.result else {
                Issue.record("not imported")
                return
            }
            // An empty `trk` (this file's second) rides along with its neighbour rather than being a 0 m track.
            let nonEmpty = document.tracks.filter { !$0.points.isEmpty }.count + document.routes.filter { !$0.points.isEmpty }.count
            #expect(nonEmpty < document.tracks.count + document.routes.count)
            #expect(tracks.count == nonEmpty)
            #expect(places.count == document.waypoints.count)
            #expect(tracks.filter { $0.kind == .route }.count == document.routes.count)
            let stored = try await library.store.places(PlaceQuery(order: .name), userID: library.userID)
            #expect(Set(stored.map(\.name)) == Set(document.waypoints.map { $0.placeFields.name }))
        }
    }

    @Test(arguments: StoreKind.allCases) func aFolderImportReportsProgressAndBadFilesAndGoesOn(_ kind: StoreKind) async throws {
        // The files in a folder of their own (the SQLite store's: it is removed with it), the tracks in `kind`'s store.
        let test = try TestStore()
        try await withLibrary(kind) { library in try await Self.importsAFolder(test, library) }
    }

    static func importsAFolder(_ test: TestStore, _ library: TrackLibrary) async throws {
        let folder = test.folder.appending(path: "in/sub")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try GeneratedRide.write(points: 3000, name: "one", to: folder.appending(path: "one.gpx"))
        try GeneratedRide.write(points: 2000, name: "two", to: test.folder.appending(path: "in/two.gpx"))
        try Data("<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"91\" lon=\"0\"/></trkseg></trk></gpx>".utf8)
            .write(to: folder.appending(path: "bad.gpx"))
        try Data("not a track".utf8).write(to: folder.appending(path: "notes.txt"))
        try Data("{}".utf8).write(to: folder.appending(path: ".hidden.gpx"))
        let steps = Steps()
        let report = await library.importPaths([test.folder.appending(path: "in"), test.folder.appending(path: "missing.gpx")]) { steps.add($0) }
        #expect(report.importedTrackCount == 2)
        #expect(report.pointCount == 5000)
        #expect(report.failures.count == 2)
        #expect(report.failures.contains { $0.path.hasSuffix("bad.gpx") && $0.reason.contains("1:") && $0.reason.contains("lat") })
        #expect(report.failures.contains { $0.path.hasSuffix("missing.gpx") })
        let seen = steps.all
        #expect(seen.first?.filesDone == 0 && seen.first?.filesTotal == 3)
        #expect(seen.last?.filesDone == 3 && seen.last?.pointsDone == 5000)
        #expect(seen.map(\.filesDone) == [0, 1, 2, 3])
    }
}

/// Progress steps seen, from any thread.
final class Steps: @unchecked Sendable {
    private let lock = NSLock()
    private var steps: [ImportProgress] = []
    func add(_ step: ImportProgress) { lock.withLock { steps.append(step) } }
    var all: [ImportProgress] { lock.withLock { steps } }
}
