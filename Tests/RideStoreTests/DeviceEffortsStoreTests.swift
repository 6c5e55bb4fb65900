import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// A device file without positions (an indoor trainer) takes part in records with the efforts of the device's own
/// distance, power and heart rate (`IndoorRideFIT`: every figure known by construction), on both stores; changing
/// its kind picks that kind's distances.
@Suite struct DeviceEffortsStoreTests {
    @Test(arguments: StoreKind.allCases) func anIndoorRideSetsRecords(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let store = library.store
            let outcome = try await library.importData(Data(IndoorRideFIT.bytes()), fileName: "indoor.fit")
            guard case .imported(_, let tracks, _) = outcome.result, let track = tracks.first else {
                Issue.record("not imported: \(outcome.result)")
                return
            }
            #expect(track.pointCount == 0 && track.distanceMeters == IndoorRideFIT.totalMeters)
            func record(_ kind: TrackKind, _ key: EffortKey) async throws -> PersonalRecord? {
                try await store.personalRecords(kind: kind, userID: library.userID).first { $0.key == key && $0.rank == 1 }
            }
            #expect(try await record(.ride, .fastest1km)?.value == 100)
            #expect(try await record(.ride, .fastest1km)?.trackID == track.id)
            #expect(try await record(.ride, .fastest5km)?.value == 800)
            #expect(try await record(.ride, .power5min)?.value == 300)
            #expect(try await record(.ride, .heartRate5min)?.value == 170)
            #expect(try await record(.ride, .longestDistance)?.value == IndoorRideFIT.totalMeters)
            #expect(try await record(.ride, .fastest400m) == nil)
            // As a run: the runner's distances, from what the device stored with the track.
            _ = try await library.setKind(track.id, to: .run)
            #expect(try await record(.run, .fastest400m)?.value == 40)
            #expect(try await record(.run, .fastest1mi).map { abs($0.value - 160.9344) < 1e-6 } == true)
            #expect(try await record(.ride, .fastest1km) == nil)
            // The track's page marks them.
            let ranked = try await store.rankedEfforts(trackID: track.id, userID: library.userID)
            #expect(ranked.contains { $0.effort.key == .fastest400m && $0.rank == 1 })
        }
    }
}
