import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
@testable import RideStore
import Testing

/// A phone's batches behind a load balancer: two long-lived `serve` applications on one database (each keeps its
/// recorders between requests, as a real instance does), the ride's blocks of fixes moving between them. Every
/// answer and the saved track must come from what the database holds, not from what one instance saw (issue 19:
/// the saved ride counted only the last instance's blocks, 726 m of 997 m).
///
/// On SQLite the two applications open the same database file, each with its own store; on PostgreSQL each has
/// its own connection pool on one database (needs `BIKERIDE_TEST_DATABASE_URL`).
@Suite struct RecordingAcrossInstancesTests {
    /// Fix `sequence` (1…200) of a ride laid out from known legs, one a second and 5 m apart: north 100 fixes,
    /// then a detour, 125 m east (fixes 101–125, climbing 0.4 m a fix) and 125 m north (126–150), then north 50
    /// more. Every step is 5 m, so the ride is 199 × 5 = 995 m long, climbs 10 m and lasts 199 s; without the
    /// detour's block it would be 923 m (the chord across it).
    static func fix(_ sequence: Int) -> String {
        let start = Coordinate(latitude: 46.5190, longitude: 6.6323)
        let firstCorner = start.destination(distanceMeters: 99 * 5, bearingDegrees: 0)
        let secondCorner = firstCorner.destination(distanceMeters: 125, bearingDegrees: 90)
        let position: Coordinate
        var altitude = 400.0
        switch sequence {
        case ...100: position = start.destination(distanceMeters: Double(sequence - 1) * 5, bearingDegrees: 0)
        case 101...125:
            position = firstCorner.destination(distanceMeters: Double(sequence - 100) * 5, bearingDegrees: 90)
            altitude += Double(sequence - 100) * 0.4
        default:
            position = secondCorner.destination(distanceMeters: Double(sequence - 125) * 5, bearingDegrees: 0)
            altitude += 10
        }
        let time = GPXTime(secondsSince1970: 1_700_000_000 + Int64(sequence)).rfc3339
        return #"{"sequence":\#(sequence),"latitude":\#(position.latitude),"longitude":\#(position.longitude),"altitude":\#(altitude),"accuracy":5,"time":"\#(time)"}"#
    }

    static func batch(_ range: ClosedRange<Int>) -> String {
        #"{"fixes":[\#(range.map(fix).joined(separator: ","))]}"#
    }

    /// The saved track's id in a Stop answer.
    static func trackID(of stopped: TestResponse) throws -> String {
        try #require(try stopped.jsonObject()["trackId"] as? String, "\(stopped.text)")
    }

    static let truthDistanceMeters = 995.0
    static let truthElapsedSeconds = 199.0
    static let truthAscentMeters = 10.0

    /// Two libraries on one database: what two `serve` processes open.
    static func withTwoInstances(_ kind: StoreKind, _ body: (TrackLibrary, TrackLibrary) async throws -> Void) async throws {
        switch kind {
        case .sqlite:
            let database = try TemporaryStore()
            try await body(try await database.open(), try await database.open())
        case .postgres:
            try await PostgresServerTests.withTwoInstances(body)
        }
    }

    /// Two applications built once each and kept for the whole of `body`, so that whatever an instance keeps in
    /// memory between requests survives from one batch to the next.
    static func withLongLivedClients(
        _ first: TrackLibrary, _ second: TrackLibrary,
        _ body: @escaping @Sendable (any TestClientProtocol, any TestClientProtocol) async throws -> Void
    ) async throws {
        let appA = try buildApplication(configuration: TestServer(library: first).configuration, library: first)
        let appB = try buildApplication(configuration: TestServer(library: second).configuration, library: second)
        try await appA.test(.router) { clientA in
            try await appB.test(.router) { clientB in
                try await body(clientA, clientB)
            }
        }
    }

    /// The figures of an answer (`stats`) or of a saved track.
    struct Figures: Equatable, CustomStringConvertible {
        var distanceMeters: Double
        var elapsedSeconds: Double
        var ascentMeters: Double

        init(_ stats: [String: Any]) throws {
            distanceMeters = try #require(stats["distanceMeters"] as? Double)
            elapsedSeconds = try #require(stats["elapsedSeconds"] as? Double)
            ascentMeters = try #require(stats["ascentMeters"] as? Double)
        }

        init(_ summary: TrackSummary) {
            distanceMeters = summary.distanceMeters
            elapsedSeconds = summary.elapsedSeconds
            ascentMeters = summary.ascentMeters
        }

        var description: String { "\(distanceMeters) m, \(elapsedSeconds) s, \(ascentMeters) m up" }

        /// Within 1 % of the ride's known length and duration, and its known climb within 1 m.
        var isTruth: Bool {
            abs(distanceMeters - truthDistanceMeters) <= truthDistanceMeters * 0.01
                && abs(elapsedSeconds - truthElapsedSeconds) <= truthElapsedSeconds * 0.01
                && abs(ascentMeters - truthAscentMeters) <= 1
        }
    }

    /// Sends `blocks` in turn to the clients `route` picks, then stops on the last; the last batch's figures and
    /// the saved track's.
    static func ride(
        blocks: [ClosedRange<Int>], clients: [any TestClientProtocol], route: (Int) -> Int, library: TrackLibrary
    ) async throws -> (answered: Figures, saved: Figures) {
        let id = try await clients[route(0)].startRecording(#"{"name":"Load balanced"}"#)
        var answered: Figures?
        for (index, block) in blocks.enumerated() {
            let response = try await clients[route(index)].post("/api/recordings/\(id)/fixes", json: batch(block))
            #expect(response.status == .ok, "\(response.text)")
            let object = try response.jsonObject()
            #expect(object["stored"] as? Int == block.count, "block \(block)")
            let figures = try Figures(try #require(object["stats"] as? [String: Any]))
            // Each answer counts every block stored so far, whichever instance stored it (5 m a fix).
            let sofar = Double(block.upperBound - 1) * 5
            #expect(abs(figures.distanceMeters - sofar) <= sofar * 0.01 + 1, "after \(block): \(figures)")
            answered = figures
        }
        let stopped = try await clients[route(blocks.count - 1)].post("/api/recordings/\(id)/stop")
        #expect(stopped.status == .ok, "\(stopped.text)")
        let trackID = try #require(TrackID(try Self.trackID(of: stopped)))
        let summary = try #require(try await library.store.trackSummary(id: trackID, userID: library.userID))
        #expect(summary.pointCount == 200)
        return (try #require(answered), Figures(summary))
    }

    @Test(arguments: StoreKind.allCases)
    func aRideWhoseBlocksMoveBetweenInstancesSavesWhatTheDatabaseHolds(_ kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { first, second in
            try await Self.withLongLivedClients(first, second) { a, b in
                let blocks = [1...50, 51...100, 101...150, 151...200]
                let single = try await Self.ride(blocks: blocks, clients: [a, b], route: { _ in 0 }, library: first)
                let alternating = try await Self.ride(blocks: blocks, clients: [a, b], route: { $0 % 2 }, library: second)
                #expect(single.answered.isTruth && single.saved.isTruth, "one instance: \(single)")
                #expect(alternating.answered == single.answered, "the last answer: \(alternating.answered) against \(single.answered)")
                #expect(alternating.saved == single.saved, "saved: \(alternating.saved) against \(single.saved)")
                // Smaller blocks, and the same instance twice in a row now and then.
                let smaller = (0..<8).map { 25 * $0 + 1...25 * $0 + 25 }
                let mixed = try await Self.ride(blocks: smaller, clients: [a, b], route: { [0, 1, 1, 0, 1, 0, 0, 1][$0] }, library: first)
                #expect(mixed.saved == single.saved, "saved: \(mixed.saved) against \(single.saved)")
            }
        }
    }

    /// Pause on one instance and Resume on the other: the first, which saw only its own Pause, must store the
    /// next block (a cached "paused" would acknowledge it and keep nothing), and Stop saves every fix.
    @Test(arguments: StoreKind.allCases)
    func pauseOnOneInstanceAndResumeOnTheOtherLosesNoFix(_ kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { first, second in
            try await Self.withLongLivedClients(first, second) { a, b in
                let id = try await a.startRecording(#"{"name":"Paused elsewhere"}"#)
                #expect(try await a.post("/api/recordings/\(id)/fixes", json: Self.batch(1...100)).status == .ok)
                #expect(try await a.post("/api/recordings/\(id)/pause").status == .ok)
                let resumed = try await b.post("/api/recordings/\(id)/resume")
                #expect(try resumed.jsonObject()["state"] as? String == "recording")
                let answer = try await a.post("/api/recordings/\(id)/fixes", json: Self.batch(101...200)).jsonObject()
                #expect(answer["stored"] as? Int == 100, "\(answer)")
                #expect((answer["recording"] as? [String: Any])?["state"] as? String == "recording")
                let state = try await a.get("/api/recordings/\(id)").jsonObject()
                #expect(state["state"] as? String == "recording")
                let stopped = try await b.post("/api/recordings/\(id)/stop")
                let trackID = try #require(TrackID(try Self.trackID(of: stopped)))
                let summary = try #require(try await second.store.trackSummary(id: trackID, userID: second.userID))
                #expect(summary.pointCount == 200)
                #expect(summary.segmentCount == 2)
            }
        }
    }

    /// Following a route while the blocks move between instances: each answer says where the rider is on the
    /// route as the truth does (remaining distance and the next corner), though each instance saw only some
    /// blocks itself.
    @Test(arguments: StoreKind.allCases)
    func theRouteFollowerAnswersFromTheWholeRide(_ kind: StoreKind) async throws {
        try await Self.withTwoInstances(kind) { first, second in
            try await Self.withLongLivedClients(first, second) { a, b in
                let route = PlannedRoute.crossing
                let routeID = try await a.uploadRoute(route.gpx(asRoute: false))
                let id = try await b.startRecording(#"{"routeTrackId":"\#(routeID)"}"#)
                let alongs = Array(stride(from: 0.0, through: route.lengthMeters - 5, by: 5))
                let blockSize = 30
                for (blockIndex, start) in stride(from: 0, to: alongs.count, by: blockSize).enumerated() {
                    let indices = start..<min(start + blockSize, alongs.count)
                    let fixes = indices.map { fixJSON($0 + 1, route.position(at: alongs[$0])) }.joined(separator: ",")
                    let client = blockIndex % 2 == 0 ? a : b
                    let response = try await client.post("/api/recordings/\(id)/fixes", json: #"{"fixes":[\#(fixes)]}"#)
                    #expect(response.status == .ok, "\(response.text)")
                    let navigation = try #require(try response.jsonObject()["navigation"] as? [String: Any])
                    let along = alongs[indices.upperBound - 1]
                    #expect(navigation["offRoute"] as? Bool == false, "at \(along) m")
                    let remaining = try #require(navigation["remainingMeters"] as? Double)
                    #expect(abs(remaining - (route.lengthMeters - along)) < 2, "at \(along) m: \(remaining) m remaining")
                    // Within a few metres of a corner either answer is right.
                    if !route.corners.contains(where: { abs($0.distanceMeters - along) < 6 }), let corner = route.nextCorner(after: along) {
                        let cue = try #require(navigation["nextCue"] as? [String: Any], "no cue at \(along) m")
                        let distance = try #require(cue["distanceMeters"] as? Double)
                        #expect(abs(distance - (corner.distanceMeters - along)) < 2, "at \(along) m: \(distance) m to the corner at \(corner.distanceMeters) m")
                    }
                }
                let stopped = try await a.post("/api/recordings/\(id)/stop")
                let trackID = try #require(TrackID(try Self.trackID(of: stopped)))
                let summary = try #require(try await first.store.trackSummary(id: trackID, userID: first.userID))
                let length = Double(alongs.count - 1) * 5
                #expect(abs(summary.distanceMeters - length) < length * 0.01, "\(summary.distanceMeters) m of \(length) m")
            }
        }
    }
}
