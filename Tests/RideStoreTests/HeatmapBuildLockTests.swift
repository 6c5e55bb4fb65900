import Foundation
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// Issue 22: the heatmap index's first build runs once, however many requests and instances ask at the same moment,
/// and a request that finds a build under way is answered at once with `busy` (the server's 503 and Retry-After)
/// instead of waiting for it or building again. The claim is in the database: two stores on one SQLite file, two
/// PostgreSQL stores on one database.
@Suite struct HeatmapBuildLockTests {
    static let origin = Coordinate(latitude: 46.5, longitude: 6.6)

    /// A library of `count` rides on one instance.
    static func seed(_ store: any RideStore, count: Int) async throws -> UserID {
        let library = TrackLibrary(store: store, userID: try await store.localUser().id)
        for index in 0..<count {
            let data = try HeatmapIndexTests.gpx(
                name: "R\(index)", start: "2024-05-\(String(format: "%02d", 1 + index % 28))T08:00:00Z",
                origin: origin.destination(distanceMeters: Double(index) * 200, bearingDegrees: 90), meters: 5000)
            _ = try await library.importData(data, fileName: "r\(index).gpx")
        }
        return library.userID
    }

    static let tile = HeatmapRequest(tile: HeatmapIndexTests.pixel(origin.destination(distanceMeters: 2500, bearingDegrees: 0), zoom: 14).tile, filter: HeatmapFilter())

    static func isBusy(_ error: any Error) -> Bool {
        if case RideStoreError.busy(_, let seconds) = error { return seconds > 0 }
        return false
    }

    @Test(arguments: StoreKind.allCases) func concurrentFirstRequestsOnTwoInstancesBuildTheIndexOnce(_ kind: StoreKind) async throws {
        try await withReopenableStore(kind) { open in
            let a = try await open(), b = try await open()
            let user = try await Self.seed(a, count: 40)
            #expect(try await a.heatmapVersion(userID: user) == nil)
            // Sixteen tile requests at once, half on each instance.
            let outcomes = await withTaskGroup(of: String.self) { group in
                for index in 0..<16 {
                    let store = index % 2 == 0 ? a : b
                    group.addTask {
                        do {
                            _ = try await store.heatmapTile(Self.tile, userID: user)
                            return "tile"
                        } catch {
                            return Self.isBusy(error) ? "busy" : "error: \(error)"
                        }
                    }
                }
                var outcomes: [String] = []
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            #expect(outcomes.allSatisfy { $0 == "tile" || $0 == "busy" }, "\(outcomes)")
            #expect(outcomes.contains("tile"), "the request that built it gets its tile")
            // Built once: every build raises the version by one.
            #expect(try await a.heatmapVersion(userID: user) == 1, "\(outcomes)")
            #expect(try await b.heatmapTile(Self.tile, userID: user).counts.isEmpty == false)
            #expect(try await b.heatmapVersion(userID: user) == 1)
        }
    }

    @Test func aFreshClaimOnSQLiteIsAnsweredAtOnceAndAnAbandonedOneIsTakenOver() async throws {
        try await withReopenableStore(.sqlite) { open in
            let a = try await open(), b = try await open()
            let user = try await Self.seed(a, count: 3)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            // Another instance building now.
            try await executeRaw(a, sqlite: "INSERT INTO heatmapBuild (userId, claimedAt) VALUES ('\(user.rawValue)', \(now))", postgres: "")
            await #expect { try await b.heatmapTile(Self.tile, userID: user) } throws: { Self.isBusy($0) }
            await #expect { try await b.explorerTiles(filter: HeatmapFilter(), userID: user) } throws: { Self.isBusy($0) }
            await #expect { try await b.rebuildHeatmap(userID: user) } throws: { Self.isBusy($0) }
            #expect(try await b.heatmapVersion(userID: user) == nil)
            // A claim older than `buildClaimSeconds` was left by a process that stopped: the next request builds.
            let old = now - (HeatmapIndexRules.buildClaimSeconds + 1) * 1000
            try await executeRaw(a, sqlite: "UPDATE heatmapBuild SET claimedAt = \(old)", postgres: "")
            #expect(try await b.heatmapTile(Self.tile, userID: user).counts.isEmpty == false)
            #expect(try await a.heatmapVersion(userID: user) == 1)
            let claims = try await (a as! SQLiteRideStore).writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM heatmapBuild") }
            #expect(claims == 0)
        }
    }

    @Test func aBuildUnderWayOnAnotherPostgreSQLInstanceIsAnsweredAtOnce() async throws {
        try await withReopenableStore(.postgres) { open in
            let a = try #require(try await open() as? PostgresRideStore), b = try await open()
            let user = try await Self.seed(a, count: 3)
            // Instance A holds the build's lock (as its building transaction does) while B is asked.
            let started = Date()
            try await a.transaction { [logger = PostgresTestServer.logger] connection in
                let taken = try await PostgresRideStore.tryHeatmapBuildLock(connection, userID: user, logger: logger)
                #expect(taken)
                await #expect { try await b.heatmapTile(Self.tile, userID: user) } throws: { Self.isBusy($0) }
                await #expect { try await b.rebuildHeatmap(userID: user) } throws: { Self.isBusy($0) }
            }
            #expect(Date().timeIntervalSince(started) < 20, "answered at once, not after a wait")
            #expect(try await b.heatmapVersion(userID: user) == nil)
            // Released with A's transaction: B builds.
            #expect(try await b.heatmapTile(Self.tile, userID: user).counts.isEmpty == false)
            #expect(try await a.heatmapVersion(userID: user) == 1)
        }
    }
}
