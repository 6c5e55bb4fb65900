import Foundation
import Testing
import TestSupport

import RideKit
@testable import RideStore

/// Issue 22: tracks saved before best efforts were measured (or measured by an older version) get them in the
/// background, on both stores, and the records are then those of a brute-force computation over the points.
@Suite struct EffortsBackfillTests {
    /// A ride north in 10 m steps, each taking `stepSeconds[i]` seconds: a known line whose fastest stretches the test
    /// finds by itself.
    static func gpx(name: String, day: Int, stepSeconds: [Int]) -> Data {
        let origin = Coordinate(latitude: 47.3, longitude: 8.5)
        var seconds = Int64(1_714_550_400 + day * 86_400)  // 2024-05-01 + day, 08:00 UTC-ish
        var points: [String] = []
        for index in 0...stepSeconds.count {
            if index > 0 { seconds += Int64(stepSeconds[index - 1]) }
            let position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: seconds).rfc3339
            points.append(#"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)"><ele>400</ele><time>\#(time)</time></trkpt>"#)
        }
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name><trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
            </gpx>
            """.utf8)
    }

    /// The oracle: over every pair of points, the least time between two that lie at least `meters` apart (the steps
    /// are 10 m, so a window of whole steps is where the least time lies).
    static func bruteForceFastest(_ stepSeconds: [Int], meters: Int) -> Double? {
        var elapsed = [0]
        for step in stepSeconds { elapsed.append(elapsed.last! + step) }
        var best: Int?
        for i in 0..<elapsed.count {
            for j in (i + 1)..<elapsed.count where (j - i) * 10 >= meters {
                let time = elapsed[j] - elapsed[i]
                if best == nil || time < best! { best = time }
            }
        }
        return best.map(Double.init)
    }

    @Test(arguments: StoreKind.allCases) func tracksWithoutEffortRowsGetThemAndTheRecordsAgreeWithABruteForceOracle(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            var random = SeededGenerator(seed: 22)
            // Five rides of 1.5–6 km, 10 m steps of 1–3 s (3.3–10 m/s): their fastest kilometres lie anywhere in them.
            var rides: [(id: TrackID, steps: [Int])] = []
            for index in 0..<5 {
                let steps = (0..<Int.random(in: 150...600, using: &random)).map { _ in Int.random(in: 1...3, using: &random) }
                let report = try await library.importData(Self.gpx(name: "R\(index)", day: index, stepSeconds: steps), fileName: "r\(index).gpx")
                rides.append((report.tracks[0].id, steps))
            }
            let store = library.store, user = library.userID
            let asImported = try await store.personalRecords(kind: .ride, userID: user)
            #expect(!asImported.isEmpty)
            #expect(try await store.remeasureEfforts(limit: 10) == 0, "tracks measured at their import are current")

            // As a library from before best efforts: no rows, version 0.
            try await executeRaw(store, sqlite: "DELETE FROM trackEffort", postgres: "DELETE FROM track_efforts")
            try await executeRaw(store, sqlite: "UPDATE track SET effortsVersion = 0", postgres: "UPDATE tracks SET efforts_version = 0")
            #expect(try await store.personalRecords(kind: .ride, userID: user).isEmpty)

            // In batches of two: 2 + 2 + 1 tracks, then nothing left; again, nothing to do.
            #expect(try await TrackLibrary.remeasureEfforts(in: store, batch: 2) == 5)
            #expect(try await store.remeasureEfforts(limit: 10) == 0)
            let records = try await store.personalRecords(kind: .ride, userID: user)
            #expect(records == asImported)

            for (key, meters) in [(EffortKey.fastest1km, 1000), (.fastest5km, 5000)] {
                let oracle = rides.compactMap { ride in Self.bruteForceFastest(ride.steps, meters: meters).map { (ride.id, $0) } }
                    .sorted { $0.1 < $1.1 }
                let best = records.first { $0.key == key && $0.rank == 1 }
                if let truth = oracle.first {
                    #expect(best.map { abs($0.value - truth.1) <= 0.01 * truth.1 } == true, "\(key): \(String(describing: best?.value)) against \(truth.1)")
                    // A tie in time may go to either track: the oracle's time is what must match.
                    if oracle.count < 2 || oracle[1].1 > truth.1 * 1.01 { #expect(best?.trackID == truth.0) }
                } else {
                    #expect(best == nil)
                }
            }
            let longest = rides.max { $0.steps.count < $1.steps.count }!
            #expect(records.first { $0.key == .longestDistance && $0.rank == 1 }?.trackID == longest.id)

            // `bikeride records --rebuild`: every track of the user measured again, the same records.
            #expect(try await store.invalidateEfforts(userID: user) == 5)
            #expect(try await TrackLibrary.remeasureEfforts(in: store) == 5)
            #expect(try await store.personalRecords(kind: .ride, userID: user) == asImported)
        }
    }
}
