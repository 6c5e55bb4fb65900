import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// `GET /api/tracks/{id}.gpx?cues=1` and `.geojson?cues=1`: the turns as course points.
@Suite struct CueExportTests {
    @Test func aGPXDownloadCarriesEachTurnAsACoursePoint() async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let id = try await client.uploadRoute(route.gpx(asRoute: false))
            let plain = try await client.get("/api/tracks/\(id).gpx")
            #expect(!plain.text.contains("<wpt"))
            let response = try await client.get("/api/tracks/\(id).gpx?cues=1")
            #expect(response.status == .ok)
            let document = try GPXReader.read(bytes: Array(response.text.utf8))
            try #require(document.waypoints.count == route.corners.count)
            // Right 90°, left 90°, right 135°: FIT's course point types.
            #expect(document.waypoints.map(\.type) == ["Right", "Left", "SharpRight"])
            #expect(document.waypoints.map(\.symbol) == ["Right", "Left", "SharpRight"])
            #expect(document.waypoints.map(\.name) == ["Turn right", "Turn left", "Sharp right"])
            for (waypoint, corner) in zip(document.waypoints, route.corners) {
                #expect(waypoint.coordinate.distanceMeters(to: corner.coordinate) < 3)
            }
            // The line itself is unchanged.
            #expect(document.tracks.first?.segments.first?.points.count == Int(route.lengthMeters / 20) + 1)
            #expect(try await client.get("/api/tracks/\(id).gpx?cues=yes").status == .badRequest)
            #expect(try await client.get("/api/tracks/\(id).gpx436?cues=1").status == .badRequest)
            #expect(try await client.get("/api/tracks/\(id).gpx436?cues=0").status == .ok)
        }
    }

    @Test func aGeoJSONDownloadCarriesEachTurnAsAPointFeature() async throws {
        let route = PlannedRoute.threeCorners
        try await TestServer().run { client in
            let id = try await client.uploadRoute(route.gpx(asRoute: true))
            let response = try await client.get("/api/tracks/\(id).geojson?cues=1")
            #expect(response.status == .ok)
            let features = try #require(try response.jsonObject()["features"] as? [[String: Any]])
            let points = features.filter { ($0["geometry"] as? [String: Any])?["type"] as? String == "Point" }
            try #require(points.count == route.corners.count)
            for (feature, corner) in zip(points, route.corners) {
                let coordinates = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [Double])
                #expect(Coordinate(latitude: coordinates[1], longitude: coordinates[0]).distanceMeters(to: corner.coordinate) < 3)
                let properties = try #require(feature["properties"] as? [String: Any])
                #expect(properties["name"] as? String == (corner.severity == "sharp" ? "Sharp " : "Turn ") + corner.direction)
            }
        }
    }
}
