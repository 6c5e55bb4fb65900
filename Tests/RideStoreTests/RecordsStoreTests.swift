import Foundation
import Testing

import RideKit
@testable import RideStore

/// Issue 22: best efforts stored with each track (both stores), records and ranks by query, weekly goals.
@Suite struct RecordsStoreTests {
    /// A straight ride north, `meters` long in 10 m steps of `secondsPerStep`, starting at `start` (RFC 3339).
    static func gpx(name: String, start: String, meters: Int, secondsPerStep: Int, type: String? = nil) throws -> Data {
        let startTime = try GPXTime(parsing: start)
        let origin = Coordinate(latitude: 46.5, longitude: 6.6)
        let points = (0...(meters / 10)).map { index -> String in
            let position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: startTime.secondsSince1970 + Int64(index * secondsPerStep)).rfc3339
            return #"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)"><ele>400</ele><time>\#(time)</time></trkpt>"#
        }
        let typeElement = type.map { "<type>\($0)</type>" } ?? ""
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name>\(typeElement)<trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
            </gpx>
            """.utf8)
    }

    static func near(_ value: Double?, _ expected: Double, _ tolerance: Double = 0.02) -> Bool {
        guard let value else { return false }
        return abs(value - expected) <= tolerance * expected
    }

    @Test(arguments: StoreKind.allCases) func recordsAreTheBestTwoOfEachEffortOverLiveTracks(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            // Oldest first: 2 km at 5 m/s, 6 km at 10 m/s, 3 km at 2.5 m/s; a run at 5 m/s.
            let a = try await library.importData(try Self.gpx(name: "A", start: "2024-05-01T08:00:00Z", meters: 2000, secondsPerStep: 2), fileName: "a.gpx")
            let b = try await library.importData(try Self.gpx(name: "B", start: "2024-05-02T08:00:00Z", meters: 6000, secondsPerStep: 1), fileName: "b.gpx")
            let c = try await library.importData(try Self.gpx(name: "C", start: "2024-05-03T08:00:00Z", meters: 3000, secondsPerStep: 4), fileName: "c.gpx")
            _ = try await library.importData(
                try Self.gpx(name: "R", start: "2024-05-04T08:00:00Z", meters: 1000, secondsPerStep: 2, type: "running"), fileName: "r.gpx")
            let (idA, idB, idC) = (a.tracks[0].id, b.tracks[0].id, c.tracks[0].id)
            let store = library.store, user = library.userID

            let records = try await store.personalRecords(kind: .ride, userID: user)
            func record(_ key: EffortKey, _ rank: Int) -> PersonalRecord? { records.first { $0.key == key && $0.rank == rank } }
            // Known truth: 1 km takes 100 s at 10 m/s (B), 200 s at 5 m/s (A).
            #expect(record(.fastest1km, 1)?.trackID == idB && Self.near(record(.fastest1km, 1)?.value, 100))
            #expect(record(.fastest1km, 2)?.trackID == idA && Self.near(record(.fastest1km, 2)?.value, 200))
            #expect(record(.fastest5km, 1)?.trackID == idB && Self.near(record(.fastest5km, 1)?.value, 500))
            #expect(record(.fastest5km, 2) == nil)
            #expect(record(.longestDistance, 1)?.trackID == idB && record(.longestDistance, 2)?.trackID == idC)
            #expect(record(.fastest1km, 1)?.trackName == "B")
            #expect(records.allSatisfy { $0.rank <= 2 })
            #expect(try await store.personalRecords(kind: .run, userID: user).first { $0.key == .fastest400m } != nil)

            // Ranks when each was saved: A was a record (first ride); B beat it; C was third at 1 km.
            func rank(_ id: TrackID, _ key: EffortKey) async throws -> Int? {
                try await store.rankedEfforts(trackID: id, userID: user).first { $0.effort.key == key }?.rank
            }
            #expect(try await rank(idA, .fastest1km) == 1)
            #expect(try await rank(idB, .fastest1km) == 1)
            #expect(try await rank(idC, .fastest1km) == 3)
            #expect(try await rank(idC, .longestDistance) == 2)
            #expect(try await store.rankedEfforts(trackID: idA, userID: try await store.createUser(name: "other", passwordHash: nil).id).isEmpty)

            // A deleted track does not count; restored, it does again.
            _ = try await store.deleteTracks(ids: [idB], userID: user)
            let without = try await store.personalRecords(kind: .ride, userID: user)
            #expect(without.first { $0.key == .fastest1km && $0.rank == 1 }?.trackID == idA)
            #expect(without.first { $0.key == .fastest5km } == nil)
            #expect(try await rank(idC, .fastest1km) == 2)
            _ = try await store.restoreTracks(ids: [idB], userID: user)
            #expect(try await store.personalRecords(kind: .ride, userID: user) == records)

            // A track made a run leaves the ride records and joins the run records (its figures are recomputed).
            _ = try await library.setKind(idB, to: .run)
            #expect(try await store.personalRecords(kind: .ride, userID: user).first { $0.key == .fastest1km && $0.rank == 1 }?.trackID == idA)
            #expect(try await store.personalRecords(kind: .run, userID: user).first { $0.key == .fastest1mi && $0.rank == 1 }?.trackID == idB)
        }
    }

    @Test(arguments: StoreKind.allCases) func weeklyGoalsAreKeptPerKindAndChecked(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            #expect(try await store.weeklyGoals(userID: user).isEmpty)
            try await store.setWeeklyGoal(WeeklyGoal(kind: .ride, measure: .distance, target: 150_000), kind: .ride, userID: user)
            try await store.setWeeklyGoal(WeeklyGoal(kind: .run, measure: .time, target: 3 * 3600), kind: .run, userID: user)
            try await store.setWeeklyGoal(WeeklyGoal(kind: .ride, measure: .distance, target: 200_000), kind: .ride, userID: user)
            #expect(
                try await store.weeklyGoals(userID: user) == [
                    WeeklyGoal(kind: .ride, measure: .distance, target: 200_000), WeeklyGoal(kind: .run, measure: .time, target: 3 * 3600),
                ])
            for bad in [
                WeeklyGoal(kind: .ride, measure: .distance, target: -1), WeeklyGoal(kind: .ride, measure: .distance, target: .infinity),
                WeeklyGoal(kind: .ride, measure: .distance, target: 2e7), WeeklyGoal(kind: .ride, measure: .time, target: 200 * 3600),
                WeeklyGoal(kind: .route, measure: .distance, target: 1000),
            ] {
                await #expect(throws: RideStoreError.self) { try await store.setWeeklyGoal(bad, kind: bad.kind, userID: user) }
            }
            try await store.setWeeklyGoal(nil, kind: .run, userID: user)
            #expect(try await store.weeklyGoals(userID: user).map(\.kind) == [.ride])
        }
    }

    @Test(arguments: StoreKind.allCases) func overviewRowsAreTheTimedTracksThatAreNoRoutes(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let a = try await library.importData(try Self.gpx(name: "A", start: "2024-05-01T08:00:00+02:00", meters: 1000, secondsPerStep: 2), fileName: "a.gpx")
            let plan = try await library.importData(try Self.gpx(name: "P", start: "2024-05-02T08:00:00Z", meters: 1000, secondsPerStep: 2), fileName: "p.gpx")
            _ = try await library.setKind(plan.tracks[0].id, to: .route)
            let rows = try await library.store.overviewTracks(userID: library.userID)
            #expect(rows.map(\.id) == [a.tracks[0].id])
            #expect(rows.first?.startTime == "2024-05-01T06:00:00Z")  // the helper writes UTC
            #expect(rows.first?.distanceMeters == a.tracks[0].distanceMeters)
        }
    }
}
