import Foundation
import RideKit
import Testing
import TestSupport

/// Turn detection on the fixtures that are routes, against expectations found independently of it.
@Suite struct TurnDetectionFixtureTests {
    /// GraphHopper's own turn instructions (`gh:sign` on its `rtept`: −2 left, 2 right) on the 171-point
    /// track it drew for the same route, where a second, simpler measure also sees a turn: the change from
    /// the bearing of the track point 20 m before the instruction point to it, to the bearing from it to the
    /// point 20 m after, is 45° or more. Each of those must be a cue within 30 m in GraphHopper's direction.
    /// (GraphHopper also says "turn" where the road network makes it one with the line bending 20–30°, and
    /// its keep-left/right and continue signs are about forks; geometry is not expected to see those.)
    @Test func everyTurnGraphHopperAnnouncesIsACue() throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url("gpx/gpxgo/graphhopper.gpx.gz"))
        let instructions = try #require(document.routes.first).points
        let track = try #require(document.tracks.first).points.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        #expect(track.count == 171)
        let cues = TurnDetector.cues(along: track)
        var along = [0.0]
        for (a, b) in zip(track, track.dropFirst()) { along.append(along[along.count - 1] + a.distanceMeters(to: b)) }

        var checked = 0
        for point in instructions {
            guard let sign = point.extensions.first(where: { $0.localName == "sign" }).flatMap({ Int($0.text) }), abs(sign) == 2
            else { continue }
            let corner = Coordinate(latitude: point.latitude, longitude: point.longitude)
            let here = try #require(track.indices.min { track[$0].distanceMeters(to: corner) < track[$1].distanceMeters(to: corner) })
            guard let before = track.indices.last(where: { along[here] - along[$0] >= 20 }),
                  let after = track.indices.first(where: { along[$0] - along[here] >= 20 }) else { continue }
            var change = track[here].initialBearingDegrees(to: track[after]) - track[before].initialBearingDegrees(to: track[here])
            if change > 180 { change -= 360 } else if change < -180 { change += 360 }
            guard abs(change) >= 45 else { continue }
            checked += 1
            let match = cues.contains { $0.coordinate.distanceMeters(to: corner) <= 30 && ($0.direction == .right) == (sign > 0) }
            #expect(match, "GraphHopper's \(sign > 0 ? "right" : "left") at \(corner), \(Int(change))° by the chords")
        }
        // Instructions #2, #3, #5, #6, #7, #12 and #13 of the file.
        #expect(checked == 7)
    }

    /// A second method for routes drawn point by point: the angle at each vertex between its two segments.
    /// Every vertex that turns 40° or more between segments of 45 m or more must be a cue in the same
    /// direction (within 30 m), and every cue must lie within 30 m of a vertex that turns at least 15° (no
    /// cue on a straight stretch).
    @Test(arguments: ["gpx/gpxpy/route.gpx", "gpx/georust-gpx/ecology-trail-and-lovers-lane-loop.gpx", "gpx/gpxgo/graphhopper.gpx.gz"])
    func cuesAgreeWithTheAnglesAtTheVerticesOfARoute(path: String) throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url(path))
        let line = try #require(document.routes.first).points.map { Coordinate(latitude: $0.latitude, longitude: $0.longitude) }
        #expect(line.count > 20)
        let cues = TurnDetector.cues(along: line)
        var strong = 0
        var turning: [Coordinate] = []
        for index in 1..<(line.count - 1) {
            let into = line[index - 1].initialBearingDegrees(to: line[index])
            let out = line[index].initialBearingDegrees(to: line[index + 1])
            var angle = out - into
            if angle > 180 { angle -= 360 } else if angle < -180 { angle += 360 }
            if abs(angle) >= 15 { turning.append(line[index]) }
            guard abs(angle) >= 40, line[index - 1].distanceMeters(to: line[index]) >= 45,
                  line[index].distanceMeters(to: line[index + 1]) >= 45 else { continue }
            strong += 1
            #expect(cues.contains { $0.coordinate.distanceMeters(to: line[index]) <= 30 && ($0.direction == .right) == (angle > 0) },
                    "vertex \(index) turns \(angle)°")
        }
        #expect(strong >= 2)
        for cue in cues {
            #expect(turning.contains { $0.distanceMeters(to: cue.coordinate) <= 30 }, "cue at \(cue.distanceMeters) m")
        }
        print("\(path): \(line.count) points, \(cues.count) cues, \(strong) strong vertex turns")
    }
}
