import Foundation
import GRDB
import Testing

import RideKit
@testable import RideStore

/// Every index on `deviceFix` is written for each fix a phone app posts, so it keeps only those its queries need:
/// (deviceId, time) for duplicates, (trackId, time) for a track's fixes, (userId, id) for the live feed. And a post
/// finds its device's ride in progress without reading the device's finished ones.
@Suite struct SQLiteDeviceFixIndexTests {
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

/// A live device track's latest fixes wait in deviceFix, outside its point blocks, until its figures are computed
/// again (on SQLite; PostgreSQL appends them to the blocks as they come): every way of reading or ending the track
/// must still see each fix once, on both stores.
@Suite struct PendingDeviceFixTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    static func post(_ store: any RideStore, _ device: Device, seconds: Range<Int>) async throws -> TrackID? {
        var trackID: TrackID?
        for second in seconds {
            let fix = TrackerFix(time: start.addingTimeInterval(Double(second)), latitude: 46.5 + Double(second) * 1e-5, longitude: 6.6)
            trackID = try await store.ingest([fix], deviceID: device.id, userID: device.userID, gapSeconds: 1800).liveTrackID
        }
        return trackID
    }

    static func latitudes(_ store: any RideStore, _ trackID: TrackID, _ userID: UserID) async throws -> [Double] {
        let track = try #require(try await store.track(id: trackID, userID: userID))
        return try track.content.document().tracks.flatMap(\.segments).flatMap(\.points).map(\.latitude)
    }

    static func expected(_ seconds: Range<Int>) -> [Double] { seconds.map { 46.5 + Double($0) * 1e-5 } }

    @Test(arguments: StoreKind.allCases) func aDeletedDevicesRideInProgressIsFinishedWithEveryFix(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-a", protocolName: "owntracks"), userID: user.id)
            let trackID = try #require(try await Self.post(store, device, seconds: 0..<100))
            #expect(try await store.deleteDevice(id: device.id, userID: user.id))
            let summary = try #require(try await store.trackSummary(id: trackID, userID: user.id))
            #expect(summary.state == .complete && summary.pointCount == 100)
            #expect(try await Self.latitudes(store, trackID, user.id) == Self.expected(0..<100))
        }
    }

    /// A library made before v8 held every fix of a live track in its blocks: after the upgrade none is read twice,
    /// and the track goes on growing.
    @Test func anSQLiteLiveTrackFromBeforeVersion8ReadsEachFixOnceAndGoesOn() async throws {
        let test = try TestStore()
        let user = try await test.store.localUser()
        let device = try await test.store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-b", protocolName: "owntracks"), userID: user.id)
        let trackID = try #require(try await Self.post(test.store, device, seconds: 0..<90))
        // As v7 left it: every fix in the blocks, no blocksUntil column, the v8 migration not applied.
        let queue = try DatabaseQueue(path: test.databasePath)
        try await queue.write { db in
            try SQLiteRideStore.blockPendingFixes(trackID: trackID, db)
            try db.execute(sql: "DROP INDEX recording_liveDevice")
            try db.execute(sql: "ALTER TABLE recording DROP COLUMN blocksUntil")
            try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v8 indexes for ingestion'")
        }
        try queue.close()
        let reopened = try SQLiteRideStore(path: test.databasePath)
        #expect(try await Self.latitudes(reopened, trackID, user.id) == Self.expected(0..<90))
        #expect(try await Self.post(reopened, device, seconds: 90..<150) == trackID)
        #expect(try await reopened.trackSummary(id: trackID, userID: user.id)?.pointCount == 150)
        #expect(try await Self.latitudes(reopened, trackID, user.id) == Self.expected(0..<150))
    }

    /// Out of order, a fix rebuilds the blocks from all fixes: the waiting ones are then in them, read once.
    @Test(arguments: StoreKind.allCases) func aLateFixRebuildsAndNothingIsReadTwice(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-c", protocolName: "owntracks"), userID: user.id)
            let trackID = try #require(try await Self.post(store, device, seconds: 1..<80))
            #expect(try await Self.post(store, device, seconds: 0..<1) == trackID)
            #expect(try await Self.latitudes(store, trackID, user.id) == Self.expected(0..<80))
            #expect(try await Self.post(store, device, seconds: 80..<100) == trackID)
            #expect(try await Self.latitudes(store, trackID, user.id) == Self.expected(0..<100))
            #expect(try await store.trackSummary(id: trackID, userID: user.id)?.pointCount == 100)
        }
    }
}
