import Foundation
import RideKit
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import Testing

@Suite struct ServerEndpointsTests {
    @Test func healthSaysOK() async throws {
        try await TestServer().run { client in
            let response = try await client.get("/health")
            #expect(response.status == .ok)
            let object = try response.jsonObject()
            #expect(object["status"] as? String == "ok")
            #expect(object["storage"] as? String == "store")
        }
    }

    @Test func metricsAreCountedInPrometheusText() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...7))
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...7))
            _ = try await client.get("/api/nothing-here")
            let response = try await client.get("/metrics")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = response.text
            #expect(text.contains("bikeride_recordings_started_total 1\n"))
            #expect(text.contains("bikeride_fixes_stored_total 7\n"))
            #expect(text.contains("bikeride_fixes_duplicate_total 7\n"))
            #expect(text.contains("bikeride_http_requests_total{method=\"POST\",status=\"200\"} 2\n"))
            #expect(text.contains("bikeride_http_requests_total{method=\"GET\",status=\"404\"} 1\n"))
        }
    }

    @Test func unknownAPIAddressesAreJSON404s() async throws {
        try await TestServer().run { client in
            let response = try await client.get("/api/nothing-here")
            #expect(response.status == .notFound)
            #expect(try response.errorCode() == "not_found")
        }
    }

    @Test func aNewStoreListsNoTracks() async throws {
        try await TestServer().run { client in
            let response = try await client.get("/api/tracks")
            #expect(response.status == .ok)
            #expect((try response.jsonObject()["tracks"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func theWebAppIsServed() async throws {
        try await TestServer().run { client in
            let page = try await client.get("/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(page.text.contains("<title>bikeride</title>"))
            let module = try await client.get("/js/api.js")
            #expect(module.status == .ok)
            #expect(module.headers[.contentType]?.contains("javascript") == true)
            let manifest = try await client.get("/manifest.webmanifest")
            #expect(manifest.status == .ok && manifest.headers[.contentType] == "application/manifest+json")
            #expect(try await client.get("/../Package.swift").status != .ok)
        }
    }

    @Test func leafletComesFromTheSystemOrTheFallback() async throws {
        try await TestServer().run { client in
            let response = try await client.get("/vendor/leaflet/leaflet.js")
            if FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js") {
                #expect(response.status == .ok)
                #expect(response.text.contains("Leaflet"))
            } else {
                #expect(response.status == .found)
                #expect(response.headers[.location]?.hasSuffix("/leaflet.js") == true)
            }
        }
    }

    @Test func theLeafletFallbackRedirectsToThePublicCopy() async throws {
        var server = try await TestServer()
        server.configuration.leafletDirectory = "/nonexistent"
        let fallback = server.configuration.leafletFallbackURL
        try await server.run { client in
            let response = try await client.get("/vendor/leaflet/leaflet.css")
            #expect(response.status == .found)
            #expect(response.headers[.location] == fallback + "/leaflet.css")
        }
    }

    @Test func configDescribesTheMapLayers() async throws {
        try await TestServer().run { client in
            let object = try await client.get("/api/config").jsonObject()
            #expect(object["offlineTiles"] == nil || object["offlineTiles"] is NSNull)
            #expect((object["standard"] as? [String: Any])?["url"] as? String != nil)
            #expect(object["cameraRadiusMeters"] as? Double == 300)
        }
    }

    @Test func theSimulationIsTheCupertinoLoop() async throws {
        try await TestServer().run { client in
            let object = try await client.get("/api/simulation?speedKmh=36").jsonObject()
            let length = try #require(object["routeLengthMeters"] as? Double)
            let fixes = try #require(object["fixes"] as? [[String: Any]])
            #expect(fixes.count == Int((length / 10).rounded(.up)) + 1)
            #expect(try await client.get("/api/simulation?speedKmh=0").status == .badRequest)
            #expect(try await client.get("/api/simulation?speedKmh=fast").status == .badRequest)
        }
    }

    @Test func aSimulationRidesAlongAnySavedTrack() async throws {
        // A route (rte) due north: 10 points 100 m apart, 900 m long on the ellipsoid's meridian.
        let start = Coordinate(latitude: 46.0, longitude: 7.0)
        let points = (0..<10).map { start.destination(distanceMeters: 100 * Double($0), bearingDegrees: 0) }
        let gpx = """
            <?xml version="1.0"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><rte><name>North</name>
            \(points.map { #"<rtept lat="\#($0.latitude)" lon="\#($0.longitude)"/>"# }.joined())</rte></gpx>
            """
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let upload = try await client.upload(gpx, name: "north.gpx")
            #expect(upload.status == .created)
            let id = try #require((try upload.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let object = try await client.get("/api/simulation?speedKmh=36&intervalSeconds=2&trackId=\(id)").jsonObject()
            #expect(object["name"] as? String == "North")
            let length = try #require(object["routeLengthMeters"] as? Double)
            #expect(abs(length - 900) < 0.01)
            // 10 m/s, a fix every 2 s: one every 20 m, from the first point to the last.
            let fixes = try #require(object["fixes"] as? [[String: Any]])
            #expect(fixes.count == 46)
            #expect(fixes.first?["latitude"] as? Double == points[0].latitude)
            let last = try #require(fixes.last)
            let end = Coordinate(latitude: try #require(last["latitude"] as? Double), longitude: try #require(last["longitude"] as? Double))
            #expect(end.distanceMeters(to: points[9]) < 0.01)

            #expect(try await client.get("/api/simulation?trackId=ZZZZZZZZ").status == .notFound)
            #expect(try await client.get("/api/simulation?trackId=..%2F..%2Fetc").status == .notFound)
            // 900 m at 1 km/h, a fix every 0.2 s: 16,200 fixes, within the cap; a planet-sized track would not be.
            #expect(try await client.get("/api/simulation?speedKmh=1&intervalSeconds=0.2&trackId=\(id)").status == .ok)
        }
    }
}

@Suite struct WebAppShellTests {
    static let web = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Web")

    /// The service worker caches the shell from a list: a module missing from it breaks the app offline.
    @Test func theServiceWorkerCachesEveryModuleAndStylesheet() throws {
        let worker = try String(contentsOf: Self.web.appending(path: "sw.js"), encoding: .utf8)
        for folder in ["js", "css"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: Self.web.appending(path: folder).path) {
                #expect(worker.contains("'/\(folder)/\(file)'"), "sw.js does not cache /\(folder)/\(file)")
            }
        }
    }
}
