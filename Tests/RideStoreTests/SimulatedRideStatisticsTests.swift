import Foundation
import Testing

import RideKit
@testable import RideStore

/// Issues 22 and 24: a simulated ride (the Record tab's demo mode, source `simulation`) counts in no aggregate - the
/// totals, records and a track's ranks, the overview's tracks, the heatmap and explorer tiles - until the rider keeps
/// it as a real ride (source `recording`), when it counts in all of them. On both stores.
@Suite struct SimulatedRideStatisticsTests {
    static let origin = HeatmapIndexTests.lausanne

    @Test(arguments: StoreKind.allCases) func aSimulatedRideCountsNowhereUntilKept(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let store = library.store, user = library.userID
            // A real ride of 2 km at 5 m/s, and a simulated one of 6 km at 10 m/s along the same line, the day after.
            let real = try await library.importData(
                try RecordsStoreTests.gpx(name: "Real", start: "2024-05-01T08:00:00Z", meters: 2000, secondsPerStep: 2), fileName: "real.gpx")
                .tracks[0]
            var simulatedOptions = ImportOptions()
            simulatedOptions.trackSource = .simulation
            let simulated = try await library.importData(
                try RecordsStoreTests.gpx(name: "Demo", start: "2024-05-02T08:00:00Z", meters: 6000, secondsPerStep: 1), fileName: "demo.gpx",
                options: simulatedOptions
            ).tracks[0]
            #expect(simulated.source == .simulation)

            // Beyond the real ride's 2 km: a pixel only the simulated ride crosses; near the start, both.
            let farNorth = Self.origin.destination(distanceMeters: 4000, bearingDegrees: 0)
            let nearStart = Self.origin.destination(distanceMeters: 1000, bearingDegrees: 0)
            func tiles(upTo meters: Int) -> Set<TileXY> {
                Set((0...(meters / 10)).map { step in
                    let tile = HeatmapIndexTests.pixel(Self.origin.destination(distanceMeters: Double(step) * 10, bearingDegrees: 0), zoom: 14).tile
                    return TileXY(x: tile.x, y: tile.y)
                })
            }
            let since = [try GPXTime(parsing: "2024-01-01T00:00:00Z").date]

            func expectCounted(_ counted: Bool) async throws {
                let totals = try await store.trackTotals(since: since, userID: user)[0]
                #expect(totals.trackCount == (counted ? 2 : 1))
                #expect(abs(totals.distanceMeters - (counted ? 8000 : 2000)) < 10)
                // Records: 1 km in 100 s at 10 m/s when the demo counts, else the real ride's 200 s.
                let best = try await store.personalRecords(kind: .ride, userID: user).first { $0.key == .fastest1km && $0.rank == 1 }
                #expect(best?.trackID == (counted ? simulated.id : real.id))
                #expect(RecordsStoreTests.near(best?.value, counted ? 100 : 200))
                let ranks = try await store.rankedEfforts(trackID: simulated.id, userID: user)
                #expect(!ranks.isEmpty)
                #expect(ranks.first { $0.effort.key == .fastest1km }?.rank == (counted ? 1 : 0))
                if !counted { #expect(ranks.allSatisfy { $0.rank == 0 }) }
                #expect(try await store.overviewTracks(userID: user).map(\.id) == (counted ? [real.id, simulated.id] : [real.id]))
                #expect(Set(try await store.explorerTiles(filter: HeatmapFilter(), userID: user).tiles) == tiles(upTo: counted ? 6000 : 2000))
                #expect(try await HeatmapIndexTests.count(store, farNorth, zoom: 15, userID: user) == (counted ? 1 : 0))
                #expect(try await HeatmapIndexTests.count(store, nearStart, zoom: 15, userID: user) == (counted ? 2 : 1))
            }

            try await expectCounted(false)
            let kept = try await library.edit(simulated.id, name: nil, kind: nil, source: .recording)
            #expect(kept.source == .recording)
            try await expectCounted(true)
            // And back: the index follows the change both ways.
            _ = try await library.edit(simulated.id, name: nil, kind: nil, source: .simulation)
            try await expectCounted(false)

            // Only a ride recorded in bikeride changes source; a file stays a file, and nothing changes on a refusal.
            await #expect(throws: RideStoreError.self) { _ = try await library.edit(real.id, name: "Renamed", kind: nil, source: .recording) }
            #expect(try await store.trackSummary(id: real.id, userID: user)?.source == .file)
            #expect(try await store.trackSummary(id: real.id, userID: user)?.name == "Real")
        }
    }

    @Test func theRuleIsOneAndItsSQLSaysTheSame() {
        for kind in TrackKind.allCases {
            for source in TrackSource.allCases {
                #expect(StatisticsRules.counts(kind: kind, source: source) == (kind != .route && source != .simulation))
            }
        }
        #expect(StatisticsRules.sqlCondition(kind: "t.kind", source: "t.source") == "t.kind NOT IN ('route') AND t.source NOT IN ('simulation')")
    }
}
