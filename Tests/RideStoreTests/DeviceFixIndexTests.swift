import Foundation
import GRDB
import Testing

import RideKit
@testable import RideStore

/// Every index on `deviceFix` is written for each fix a phone app posts, so it keeps only those its queries need:
/// (deviceId, time) for duplicates, (trackId, time) for a track's fixes, (userId, id) for the live feed. And a post
/// finds its device's ride in progress without reading the device's finished ones.
@Suite struct DeviceFixIndexTests {
    @Test func aDatabaseMadeBeforeVersion8GetsTheIngestionIndexesAndKeepsItsFixes() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "ridestore-v7-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "bikeride.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteRideStore.migrator.migrate(queue, upTo: "v7 device track figures")
            #expect(try await Self.indexes(queue).contains("deviceFix_on_trackId"))
        }
        let store = try SQLiteRideStore(path: path)
        let user = try await store.localUser()
        let device = try await store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-of-a-token", protocolName: "owntracks"), userID: user.id)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let fixes = (0..<3).map { TrackerFix(time: start.addingTimeInterval(Double($0) * 10), latitude: 46.5 + Double($0) * 0.001, longitude: 6.6) }
        let stored = try await store.ingest(fixes, deviceID: device.id, userID: user.id, gapSeconds: 1800)
        #expect(stored.storedCount == 3)

        let reopened = try DatabaseQueue(path: path)
        #expect(try await Self.indexes(reopened) == ["deviceFix_feed", "deviceFix_trackTime", "sqlite_autoindex_deviceFix_1"])
        let plan = try await reopened.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN SELECT time FROM deviceFix WHERE trackId = ? ORDER BY time", arguments: ["x"])
                .map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("deviceFix_trackTime") })
    }

    /// A device with many finished rides: its post reads the recording in progress through the partial index
    /// (the query plan says so), and finds the right one.
    @Test func aPostFindsItsDevicesRideInProgressAmongManyFinishedOnes() async throws {
        let test = try TestStore()
        let store = test.store
        let user = try await store.localUser()
        let device = try await store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-of-a-token", protocolName: "owntracks"), userID: user.id)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        // Ten rides an hour apart (the gap is 30 min): nine finished, the last in progress.
        var trackIDs: [TrackID] = []
        for ride in 0..<10 {
            let fix = TrackerFix(time: start.addingTimeInterval(Double(ride) * 3600), latitude: 46.5, longitude: 6.6 + Double(ride) * 0.01)
            let result = try await store.ingest([fix], deviceID: device.id, userID: user.id, gapSeconds: 1800)
            trackIDs.append(try #require(result.liveTrackID))
        }
        #expect(Set(trackIDs).count == 10)
        let later = TrackerFix(time: start.addingTimeInterval(9 * 3600 + 60), latitude: 46.5, longitude: 6.7)
        #expect(try await store.ingest([later], deviceID: device.id, userID: user.id, gapSeconds: 1800).liveTrackID == trackIDs.last)

        let queue = try DatabaseQueue(path: test.databasePath)
        let plan = try await queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + LiveDeviceTrack.query, arguments: [device.id.rawValue]).map { $0["detail"] as String }
        }
        #expect(plan.first?.contains("recording_liveDevice") == true, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    }

    static func indexes(_ queue: DatabaseQueue) async throws -> [String] {
        try await queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deviceFix' ORDER BY name")
        }
    }
}
