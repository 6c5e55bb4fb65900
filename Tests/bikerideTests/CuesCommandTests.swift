import Foundation
import RideKit
import Testing

/// `bikeride cues`, run as a user would, on lines whose corners are known.
@Suite struct CuesCommandTests {
    /// Legs of 200 m from a start, turning by each angle (positive: right) in turn; the corners.
    static func route(turns: [Double]) -> (points: [Coordinate], corners: [Coordinate]) {
        var position = Coordinate(latitude: 47.3769, longitude: 8.5417)
        var bearing = 20.0
        var points = [position]
        var corners: [Coordinate] = []
        for turn in turns + [0] {
            // A point every 20 m, as a routing engine gives.
            for _ in 0..<10 {
                position = position.destination(distanceMeters: 20, bearingDegrees: bearing)
                points.append(position)
            }
            if turn != 0 { corners.append(position) }
            bearing += turn
        }
        return (points, corners)
    }

    static func writeGPX(_ points: [Coordinate], asRoute: Bool) throws -> String {
        let url = FileManager.default.temporaryDirectory.appending(path: "cues-\(UUID().uuidString).gpx")
        let body = points.map { point in
            asRoute ? #"<rtept lat="\#(point.latitude)" lon="\#(point.longitude)"/>"# : #"<trkpt lat="\#(point.latitude)" lon="\#(point.longitude)"/>"#
        }.joined(separator: "\n")
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            \(asRoute ? "<rte>" : "<trk><trkseg>")
            \(body)
            \(asRoute ? "</rte>" : "</trkseg></trk>")
            </gpx>
            """
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    static func cues(_ run: CommandRun) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: Any]])
    }

    @Test(arguments: [true, false])
    func aGeneratedRouteGivesEachCornerItsDirectionClassAndPlace(asRoute: Bool) throws {
        // Right 90° (turn), left 90° (turn), right 135° (sharp), left 45° (slight), right 170° (U-turn).
        let turns: [Double] = [90, -90, 135, -45, 170]
        let (points, corners) = Self.route(turns: turns)
        let path = try Self.writeGPX(points, asRoute: asRoute)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try CommandRun.run(["cues", "--json", path])
        #expect(run.status == 0, "\(run.error)")
        let cues = try Self.cues(run)
        try #require(cues.count == turns.count, "\(run.output)")
        let expected: [(String, String, String)] = [
            ("right", "turn", "Turn right"), ("left", "turn", "Turn left"), ("right", "sharp", "Sharp right"),
            ("left", "slight", "Slight left"), ("right", "uturn", "Make a U-turn"),
        ]
        for (index, cue) in cues.enumerated() {
            #expect(Set(cue.keys) == ["latitude", "longitude", "distanceMeters", "direction", "severity", "angleDegrees", "text"])
            #expect(cue["direction"] as? String == expected[index].0)
            #expect(cue["severity"] as? String == expected[index].1)
            #expect(cue["text"] as? String == expected[index].2)
            // Each corner is 200 m further along than the one before.
            let distance = try #require(cue["distanceMeters"] as? Double)
            #expect(abs(distance - 200 * Double(index + 1)) < 3, "cue \(index) at \(distance) m")
            let angle = try #require(cue["angleDegrees"] as? Double)
            #expect(abs(angle - turns[index]) < 5, "cue \(index) turns \(angle)°")
            let position = Coordinate(latitude: try #require(cue["latitude"] as? Double), longitude: try #require(cue["longitude"] as? Double))
            #expect(position.distanceMeters(to: corners[index]) < 3)
        }
    }

    @Test func theTableSaysEachTurnInTheUnitsAsked() throws {
        let (points, _) = Self.route(turns: [90, -90])
        let path = try Self.writeGPX(points, asRoute: false)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let imperial = try CommandRun.run(["cues", "--units", "imperial", path])
        #expect(imperial.status == 0, "\(imperial.error)")
        let lines = imperial.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix("DISTANCE") == true)
        // 200 m and 400 m: 0.12 and 0.25 miles.
        #expect(lines[1].contains("0.12 mi") && lines[1].contains("Turn right") && lines[1].contains("90°"))
        #expect(lines[2].contains("0.25 mi") && lines[2].contains("Turn left") && lines[2].contains("-90°"))
        let metric = try CommandRun.run(["cues", path])
        #expect(metric.output.contains("0.20 km") && metric.output.contains("0.40 km"))
        let straight = try Self.writeGPX(Self.route(turns: []).points, asRoute: true)
        defer { try? FileManager.default.removeItem(atPath: straight) }
        #expect(try CommandRun.run(["cues", straight]).output == "no turns\n")
        #expect(try CommandRun.run(["cues", "--json", straight]).output == "[]\n")
    }

    /// gpxpy's route: every vertex where the line turns 40° or more between legs of 45 m or more is a cue in its
    /// direction, and every cue is near a vertex that turns (measured here on the file's own vertices).
    @Test func aFixtureRouteHasACueAtEachSharpVertex() throws {
        let path = CommandRun.fixture("gpx/gpxpy/route.gpx")
        let document = try GPXReader.read(bytes: Array(try Data(contentsOf: URL(filePath: path))))
        let vertices = try #require(document.routes.first).points.map(\.coordinate)
        var sharp: [(Coordinate, Double)] = []
        for index in 1..<(vertices.count - 1) {
            let before = vertices[index - 1], here = vertices[index], after = vertices[index + 1]
            var turn = here.initialBearingDegrees(to: after) - before.initialBearingDegrees(to: here)
            turn = (turn + 540).truncatingRemainder(dividingBy: 360) - 180
            if before.distanceMeters(to: here) >= 45, here.distanceMeters(to: after) >= 45, abs(turn) >= 40 { sharp.append((here, turn)) }
        }
        let run = try CommandRun.run(["cues", "--json", path])
        #expect(run.status == 0, "\(run.error)")
        let cues = try Self.cues(run).map { cue in
            (Coordinate(latitude: cue["latitude"] as? Double ?? 0, longitude: cue["longitude"] as? Double ?? 0), cue["direction"] as? String ?? "")
        }
        #expect(!sharp.isEmpty)
        for (corner, turn) in sharp {
            let direction = turn > 0 ? "right" : "left"
            #expect(cues.contains { $0.1 == direction && $0.0.distanceMeters(to: corner) <= 30 }, "no \(direction) cue at \(corner)")
        }
        for (position, _) in cues {
            #expect(vertices.contains { $0.distanceMeters(to: position) <= 30 }, "cue at \(position) is on a straight stretch")
        }
    }

    @Test func aBrokenFileIsNamedWithLineAndColumn() throws {
        let run = try CommandRun.run(["cues", CommandRun.fixture("gpx/malformed/coregpx__wptError.gpx")])
        #expect(run.status == 1)
        #expect(run.error.contains("coregpx__wptError.gpx:3:2: invalid lat '91.38389'"))
        #expect(run.output.isEmpty)
        let missing = try CommandRun.run(["cues", "/nonexistent/route.gpx"])
        #expect(missing.status == 1 && missing.error.contains("/nonexistent/route.gpx"))
    }
}
