import Foundation
import RideKit
@testable import RideStore
import TestSupport
import Testing

/// What a bike computer or a watch measured is kept with the track it recorded, on both stores: the device's
/// totals and laps exactly as its file gave them (the reader is checked against fitdecode in FITReaderTests), and
/// for a file without a single position the track's own figures are the device's, whatever recomputes them.
@Suite struct DeviceFiguresStoreTests {
    static func device(_ path: String) throws -> DeviceActivity {
        try DeviceFileReader.read(bytes: try Fixtures.bytes(path), format: .fit, lenient: ImportOptions().readOptions.lenient)
    }

    static func imported(_ library: TrackLibrary, _ path: String) async throws -> StoredTrack {
        let outcome = try await library.importData(Data(try Fixtures.bytes(path)), fileName: String(path.split(separator: "/").last!))
        guard case .imported(_, let tracks, _) = outcome.result, let first = tracks.first else {
            throw RideStoreError.invalidFile(path: path, reason: "not imported: \(outcome.result)")
        }
        return try #require(try await library.store.track(id: first.id, userID: library.userID))
    }

    @Test(arguments: StoreKind.allCases)
    func aDeviceFilesTotalsAndLapsAreKeptBesideTheTracksOwnFigures(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let path = "fit/python-fitparse/garmin-edge-500-activity.fit"
            let activity = try Self.device(path)
            let totals = try #require(activity.totals)
            let track = try await Self.imported(library, path)
            #expect(track.device?.totals == totals)
            #expect(track.device?.laps == activity.laps)
            #expect(track.device?.laps.count == activity.laps.count && !activity.laps.isEmpty)
            // The track's own figures are bikeride's, computed from its points: the same as a GPX of them would
            // give, not the device's copied over (they differ in the last metres).
            let own = try TrackLibrary.stats(of: track.content, kind: track.summary.kind)
            #expect(track.summary.distanceMeters == own.distanceMeters)
            #expect(abs(track.summary.distanceMeters - (totals.distanceMeters ?? 0)) / (totals.distanceMeters ?? 1) < 0.01)

            // A GPX track has no device figures.
            let gpx = try await library.importData(Data(try Fixtures.bytes("gpx/gpxpy/cerknicko-jezero.gpx")), fileName: "k.gpx")
            guard case .imported(_, let gpxTracks, _) = gpx.result else { Issue.record("not imported"); return }
            #expect(try await library.store.track(id: gpxTracks[0].id, userID: library.userID)?.device == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aFileWithoutPositionsTakesTheDevicesFiguresAndKeepsThem(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let path = "fit/python-fitparse/compressed-speed-distance.fit"  // 10.25 km on a sensor, no GPS (fitdecode)
            let activity = try Self.device(path)
            #expect(!activity.hasPositions)
            let totals = try #require(activity.totals)
            let distance = try #require(totals.distanceMeters)
            let timer = try #require(totals.timerSeconds)
            #expect(distance > 0 && timer > 0)

            let track = try await Self.imported(library, path)
            func check(_ summary: TrackSummary) {
                #expect(summary.pointCount == 0)
                #expect(summary.distanceMeters == distance)
                #expect(summary.movingSeconds == timer)
                #expect(summary.elapsedSeconds == max(totals.elapsedSeconds ?? timer, timer))
                #expect(summary.startTime == totals.startTime)
            }
            check(track.summary)
            #expect(track.stats.distanceMeters == distance)

            // Its kind changed: the figures are computed again (from no points), and are still the device's.
            let edited = try await library.setKind(track.id, to: .run)
            check(edited)
            let reread = try #require(try await library.store.track(id: track.id, userID: library.userID))
            check(reread.summary)
            #expect(reread.device?.totals == totals)

            // It counts in the totals of its week, as the list shows it.
            let start = try #require(totals.startTime?.date)
            let totalsThen = try await library.store.trackTotals(since: [start.addingTimeInterval(-3600)], userID: library.userID)
            #expect(totalsThen.first?.distanceMeters == distance)
        }
    }
}
