import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// A route laid out from known legs: each leg's bearing and length, the corners between them, and where a
/// rider is after riding any distance along it (the truth the answers are checked against).
struct PlannedRoute {
    struct Corner {
        var coordinate: Coordinate
        var distanceMeters: Double
        var direction: String
        var severity: String
    }
    var start = Coordinate(latitude: 51.5007, longitude: -0.1246)
    /// (bearing, length) of each leg.
    var legs: [(bearing: Double, length: Double)] = []
    var corners: [Corner] = []
    var vertices: [Coordinate]

    /// Legs of the given lengths, the first heading `bearing`, each later one turned by `turns[i]` degrees
    /// (positive: right) from the one before.
    init(bearing: Double, lengths: [Double], turns: [Double], severities: [String]) {
        vertices = [start]
        var heading = bearing
        var along = 0.0
        for (index, length) in lengths.enumerated() {
            legs.append((heading, length))
            let end = vertices.last!.destination(distanceMeters: length, bearingDegrees: heading)
            vertices.append(end)
            along += length
            if index < turns.count {
                corners.append(Corner(coordinate: end, distanceMeters: along, direction: turns[index] > 0 ? "right" : "left", severity: severities[index]))
                heading += turns[index]
            }
        }
    }

    var lengthMeters: Double { legs.reduce(0) { $0 + $1.length } }

    /// The point `distance` metres along the route.
    func position(at distance: Double) -> Coordinate {
        var rest = distance
        for (index, leg) in legs.enumerated() {
            if rest <= leg.length || index == legs.count - 1 { return vertices[index].destination(distanceMeters: rest, bearingDegrees: leg.bearing) }
            rest -= leg.length
        }
        return vertices.last!
    }

    /// The route as a planner exports it (`rte`, a point at each corner) or as a track (a point every 20 m).
    func gpx(asRoute: Bool) -> String {
        let points: [Coordinate] = asRoute ? vertices : stride(from: 0, through: lengthMeters, by: 20).map { position(at: $0) }
        let body = points.map { point in
            asRoute ? #"<rtept lat="\#(point.latitude)" lon="\#(point.longitude)"/>"# : #"<trkpt lat="\#(point.latitude)" lon="\#(point.longitude)"/>"#
        }.joined(separator: "\n")
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <metadata><name>Planned</name></metadata>
            \(asRoute ? "<rte><name>Planned</name>" : "<trk><name>Planned</name><trkseg>")
            \(body)
            \(asRoute ? "</rte>" : "</trkseg></trk>")
            </gpx>
            """
    }

    /// The next corner more than `margin` metres ahead of `distance`.
    func nextCorner(after distance: Double, margin: Double = 0) -> Corner? {
        corners.first { $0.distanceMeters > distance + margin }
    }

    /// Right 90°, left 90°, right 135°: legs of 300 m.
    static let threeCorners = PlannedRoute(bearing: 0, lengths: [300, 300, 300, 300], turns: [90, -90, 135], severities: ["turn", "turn", "sharp"])

    /// North 400 m, then east, south, and west 400 m across the first leg, then south: the route crosses itself
    /// 200 m after its start and 1,000 m after it.
    static let crossing = PlannedRoute(
        bearing: 0, lengths: [400, 200, 200, 400, 300], turns: [90, 90, 90, -90], severities: ["turn", "turn", "turn", "turn"])
}

/// One fix as the web app sends it.
func fixJSON(_ sequence: Int, _ position: Coordinate, accuracy: Double = 5) -> String {
    let time = GPXTime(secondsSince1970: 1_700_000_000 + Int64(sequence)).rfc3339
    return #"{"sequence":\#(sequence),"latitude":\#(position.latitude),"longitude":\#(position.longitude),"accuracy":\#(accuracy),"time":"\#(time)"}"#
}

extension TestClientProtocol {
    /// Uploads a GPX file and returns its track's id.
    func uploadRoute(_ gpx: String) async throws -> String {
        let response = try await upload(gpx, name: "route.gpx")
        #expect(response.status == .created, "\(response.text)")
        let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
        return try #require(tracks.first?["id"] as? String)
    }

    /// Sends one fix; the answer's `navigation`.
    func send(_ sequence: Int, _ position: Coordinate, to recording: String) async throws -> [String: Any]? {
        let response = try await post("/api/recordings/\(recording)/fixes", json: #"{"fixes":[\#(fixJSON(sequence, position))]}"#)
        #expect(response.status == .ok, "\(response.text)")
        return try response.jsonObject()["navigation"] as? [String: Any]
    }
}

@Suite struct RouteFollowingAPITests {
    /// Rides `route` from `from` to `to` metres at 5 m per fix; checks after every fix that the next cue is the
    /// next corner, with its direction, class and distance (±2 m). Returns the next sequence number.
    @discardableResult
    static func ride(
        _ route: PlannedRoute, from: Double, to: Double, sequence first: Int, recording: String, client: any TestClientProtocol
    ) async throws -> Int {
        var sequence = first
        for along in stride(from: from, through: to, by: 5) {
            let navigation = try #require(try await client.send(sequence, route.position(at: along), to: recording))
            sequence += 1
            #expect(navigation["offRoute"] as? Bool == false, "off route at \(along) m")
            #expect(abs((navigation["remainingMeters"] as? Double ?? -1) - (route.lengthMeters - along)) < 2, "remaining at \(along) m")
            #expect((navigation["distanceFromRouteMeters"] as? Double ?? 99) < 1)
            // Within a few metres of a corner either answer is right.
            if route.corners.contains(where: { abs($0.distanceMeters - along) < 6 }) { continue }
            guard let corner = route.nextCorner(after: along) else {
                #expect(navigation["nextCue"] is NSNull, "a cue past the last corner, at \(along) m")
                continue
            }
            let cue = try #require(navigation["nextCue"] as? [String: Any], "no cue at \(along) m")
            #expect(cue["direction"] as? String == corner.direction, "at \(along) m")
            #expect(cue["severity"] as? String == corner.severity, "at \(along) m")
            let distance = try #require(cue["distanceMeters"] as? Double)
            #expect(abs(distance - (corner.distanceMeters - along)) < 2, "at \(along) m: \(distance) m to the corner at \(corner.distanceMeters) m")
            let position = Coordinate(latitude: cue["latitude"] as? Double ?? 0, longitude: cue["longitude"] as? Double ?? 0)
            #expect(position.distanceMeters(to: corner.coordinate) < 3)
        }
        return sequence
    }

    @Test(arguments: [true, false])
    func aRideHearsEveryCornerBeforeIt(routeAsRte: Bool) async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: routeAsRte))
            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)"}"#)
            try await Self.ride(route, from: 0, to: route.lengthMeters, sequence: 1, recording: id, client: client)
            let recording = try await client.get("/api/recordings/\(id)").jsonObject()
            #expect(recording["routeTrackId"] as? String == routeID)
            #expect((recording["navigation"] as? [String: Any])?["nextCue"] is NSNull)
        }
    }

    @Test func aRouteThatCrossesItselfNeverJumps() async throws {
        let route = PlannedRoute.crossing
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: false))
            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)"}"#)
            // Through the crossing at 200 m and again at 1,000 m: the cue is always the next corner along.
            try await Self.ride(route, from: 0, to: route.lengthMeters, sequence: 1, recording: id, client: client)
        }
    }

    /// The cue's text in the recording's units, at distances whose rounding is far from its steps.
    @Test(arguments: [
        ("metric", [(100.0, "Turn right in 100 m"), (50, "Turn right in 50 m"), (20, "Turn right in 20 m")]),
        ("imperial", [(100.0, "Turn right in 350 feet"), (50, "Turn right in 150 feet"), (20, "Turn right in 50 feet")]),
    ])
    func theTextIsInTheRecordingsUnits(units: String, expected: [(Double, String)]) async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: true))
            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)","units":"\#(units)"}"#)
            var sequence = 1
            for along in stride(from: 0.0, through: 200, by: 5) {
                _ = try await client.send(sequence, route.position(at: along), to: id)
                sequence += 1
            }
            for (before, text) in expected {
                let navigation = try #require(try await client.send(sequence, route.position(at: 300 - before), to: id))
                sequence += 1
                #expect((navigation["nextCue"] as? [String: Any])?["text"] as? String == text)
            }
        }
    }

    @Test func offRouteAndBack() async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: true))
            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)"}"#)
            var sequence = try await Self.ride(route, from: 0, to: 100, sequence: 1, recording: id, client: client)
            // Out to the west of the first leg (due north) and back, 5 m per fix.
            let turnOff = route.position(at: 100)
            var wasOff = false
            for offset in Array(stride(from: 5.0, through: 80, by: 5)) + Array(stride(from: 75.0, through: 0, by: -5)) {
                let navigation = try #require(try await client.send(sequence, turnOff.destination(distanceMeters: offset, bearingDegrees: 270), to: id))
                sequence += 1
                let off = try #require(navigation["offRoute"] as? Bool)
                let distance = try #require(navigation["distanceFromRouteMeters"] as? Double)
                #expect(abs(distance - offset) < 2, "\(distance) m from the route at \(offset) m")
                // Off past 50 m; back only inside 30 m (0.6 × 50).
                if offset > 52 { #expect(off, "on route \(offset) m away") }
                if offset < 48 && !wasOff { #expect(!off, "off route \(offset) m away on the way out") }
                if offset > 32 && wasOff { #expect(off, "back on route \(offset) m away") }
                if offset < 28 { #expect(!off, "still off route \(offset) m away on the way back") }
                if off { #expect(navigation["nextCue"] is NSNull) }
                wasOff = wasOff || off
            }
            #expect(wasOff)
            try await Self.ride(route, from: 105, to: route.lengthMeters, sequence: sequence, recording: id, client: client)
        }
    }

    @Test func aRestartMidRideLosesNothing() async throws {
        let route = PlannedRoute.crossing
        let database = try TemporaryStore()
        let (id, sequence) = try await database.server().server.run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: false))
            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)","units":"imperial"}"#)
            // Past the crossing's first pass and two corners.
            let sequence = try await Self.ride(route, from: 0, to: 900, sequence: 1, recording: id, client: client)
            return (id, sequence)
        }
        // A new application on the same database: the follower is rebuilt from the stored fixes.
        try await database.server().server.run { client in
            let recording = try await client.get("/api/recordings/\(id)").jsonObject()
            let navigation = try #require(recording["navigation"] as? [String: Any])
            let cue = try #require(navigation["nextCue"] as? [String: Any])
            // At 900 m, the next corner is the left at 1,200 m (not the first pass's corners): 300 m = 984 ft.
            #expect(cue["direction"] as? String == "left")
            #expect(abs((cue["distanceMeters"] as? Double ?? 0) - 300) < 2)
            #expect(cue["text"] as? String == "Turn left in 0.2 miles")
            // On through the second pass of the crossing at 1,000 m.
            try await Self.ride(route, from: 905, to: route.lengthMeters, sequence: sequence, recording: id, client: client)
        }
    }

    @Test func theRouteCanBeChosenChangedAndDroppedMidRide() async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: true))
            let id = try await client.startRecording()
            var sequence = 1
            for along in stride(from: 0.0, through: 100, by: 5) {
                #expect(try await client.send(sequence, route.position(at: along), to: id) == nil)
                sequence += 1
            }
            // Chosen at 100 m: the follower has seen the ride so far.
            let chosen = try await client.patch("/api/recordings/\(id)", json: #"{"routeTrackId":"\#(routeID)"}"#)
            #expect(chosen.status == .ok, "\(chosen.text)")
            let object = try chosen.jsonObject()
            #expect(object["routeTrackId"] as? String == routeID)
            let cue = try #require((object["navigation"] as? [String: Any])?["nextCue"] as? [String: Any])
            #expect(abs((cue["distanceMeters"] as? Double ?? 0) - 200) < 2)
            sequence = try await Self.ride(route, from: 105, to: 400, sequence: sequence, recording: id, client: client)
            // Dropped: the answers carry no navigation.
            let dropped = try await client.patch("/api/recordings/\(id)", json: #"{"routeTrackId":null}"#)
            #expect(dropped.status == .ok)
            #expect(try dropped.jsonObject()["routeTrackId"] == nil)
            #expect(try await client.send(sequence, route.position(at: 405), to: id) == nil)
            sequence += 1
            // Unknown tracks, bad bodies, stopped recordings.
            #expect(try await client.patch("/api/recordings/\(id)", json: #"{"routeTrackId":"nope"}"#).status == .notFound)
            #expect(try await client.patch("/api/recordings/\(id)", json: #"{}"#).status == .badRequest)
            #expect(try await client.patch("/api/recordings/nope", json: #"{"routeTrackId":null}"#).status == .notFound)
            _ = try await client.post("/api/recordings/\(id)/stop")
            #expect(try await client.patch("/api/recordings/\(id)", json: #"{"routeTrackId":"\#(routeID)"}"#).status == .conflict)
        }
    }

    @Test func aRouteDeletedMidRideEndsNavigationNotTheRide() async throws {
        let route = PlannedRoute.threeCorners
        let database = try TemporaryStore()
        let id = try await database.server().server.run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: true))
            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)"}"#)
            try await Self.ride(route, from: 0, to: 100, sequence: 1, recording: id, client: client)
            #expect(try await client.delete("/api/tracks/\(routeID)").status == .noContent)
            // A body that is not a track id or null is refused.
            #expect(try await client.patch("/api/recordings/\(id)", json: #"{"routeTrackId":42}"#).status == .badRequest)
            return id
        }
        try await database.server().server.run { client in
            let next = try await client.post("/api/recordings/\(id)/fixes", json: #"{"fixes":[\#(fixJSON(22, route.position(at: 105)))]}"#)
            #expect(next.status == .ok)
            let object = try next.jsonObject()
            #expect(object["stored"] as? Int == 1)
            #expect(object["navigation"] == nil)
        }
    }

    @Test func aRouteThatCannotBeFollowedRefusesTheStart() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let unknown = try await client.post("/api/recordings", json: #"{"routeTrackId":"nope"}"#)
            #expect(unknown.status == .notFound)
            #expect(try unknown.errorCode() == "not_found")
            // One point, twice: no length.
            let point = #"<trkpt lat="51.5" lon="-0.12"/>"#
            let dot = try await client.uploadRoute(
                #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\#(point)\#(point)</trkseg></trk></gpx>"#)
            let tooShort = try await client.post("/api/recordings", json: #"{"routeTrackId":"\#(dot)"}"#)
            #expect(tooShort.status == .unprocessableContent)
            #expect(try tooShort.errorCode() == "route_too_short")
        }
        // Neither start made a recording.
        #expect(try await server.library.store.activeRecordings(userID: server.library.userID).isEmpty)
    }

    @Test func theCuesOfATrack() async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: false))
            let metric = try await client.get("/api/tracks/\(routeID)/cues")
            #expect(metric.status == .ok)
            let cues = try #require(try metric.jsonObject()["cues"] as? [[String: Any]])
            try #require(cues.count == route.corners.count)
            for (cue, corner) in zip(cues, route.corners) {
                #expect(cue["direction"] as? String == corner.direction)
                #expect(cue["severity"] as? String == corner.severity)
                #expect(abs((cue["distanceMeters"] as? Double ?? 0) - corner.distanceMeters) < 3)
                let position = Coordinate(latitude: cue["latitude"] as? Double ?? 0, longitude: cue["longitude"] as? Double ?? 0)
                #expect(position.distanceMeters(to: corner.coordinate) < 3)
                #expect(cue["angleDegrees"] is Double)
                #expect(cue["fromPrevious"] as? String == "300 m")
            }
            #expect(cues.map { $0["text"] as? String } == ["Turn right", "Turn left", "Sharp right"])
            let imperial = try await client.get("/api/tracks/\(routeID)/cues?units=imperial")
            let imperialCues = try #require(try imperial.jsonObject()["cues"] as? [[String: Any]])
            // 300 m is 0.19 miles.
            #expect(imperialCues.map { $0["fromPrevious"] as? String } == ["0.2 miles", "0.2 miles", "0.2 miles"])
            #expect(try await client.get("/api/tracks/\(routeID)/cues?units=furlongs").status == .badRequest)
            #expect(try await client.get("/api/tracks/nope/cues").status == .notFound)
        }
    }

    /// `?line=1`: the line as the follower walks it (every point of a route exported as `rte`, the distance along
    /// it from the legs' known lengths), its thresholds, and the cues as without it; each answer's `state` is where
    /// the follower is, for the web app to go on from offline.
    @Test func theLineToFollowOnTheDevice() async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let routeID = try await client.uploadRoute(route.gpx(asRoute: true))
            let plain = try await client.get("/api/tracks/\(routeID)/cues").jsonObject()
            #expect(plain["guide"] == nil)
            let response = try await client.get("/api/tracks/\(routeID)/cues?line=1")
            #expect(response.status == .ok)
            let sheet = try response.jsonObject()
            let guide = try #require(sheet["guide"] as? [String: Any])
            let line = try #require(guide["line"] as? [[Double]])
            try #require(line.count == route.vertices.count)
            var along = 0.0
            for (index, point) in line.enumerated() {
                #expect(Coordinate(latitude: point[0], longitude: point[1]).distanceMeters(to: route.vertices[index]) < 0.01)
                #expect(abs(point[2] - along) < 0.01, "along at point \(index)")
                if index < route.legs.count { along += route.legs[index].length }
            }
            #expect(abs((guide["lengthMeters"] as? Double ?? 0) - route.lengthMeters) < 0.01)
            #expect(guide["offRouteMeters"] as? Double == RouteFollower.Configuration().offRouteMeters)
            #expect(guide["rejoinFraction"] as? Double == RouteFollower.Configuration().rejoinFraction)
            #expect((sheet["cues"] as? [[String: Any]])?.count == (plain["cues"] as? [[String: Any]])?.count)
            #expect(try await client.get("/api/tracks/\(routeID)/cues?line=maybe").status == .badRequest)

            let id = try await client.startRecording(#"{"routeTrackId":"\#(routeID)"}"#)
            let navigation = try #require(try await client.send(1, route.position(at: 120), to: id))
            let state = try #require(navigation["state"] as? [String: Any])
            #expect(state["hasJoined"] as? Bool == true)
            #expect(state["offRoute"] as? Bool == false)
            #expect(abs((state["progressMeters"] as? Double ?? 0) - 120) < 1)
            // The fix's own time (fixJSON: 1,700,000,001 s), in milliseconds.
            #expect(state["lastFixTime"] as? Double == 1_700_000_001_000)
            #expect(abs((state["lastFixLatitude"] as? Double ?? 0) - route.position(at: 120).latitude) < 1e-9)
        }
    }
}
