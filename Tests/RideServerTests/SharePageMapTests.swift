import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// The live and place share pages for family (issue 24): times on the clock where the position is, coordinates to
/// 5 decimals, and a map with streets (the tile server's images under the drawing, allowed by the page's CSP and
/// by nothing else), all user text escaped; the place page's GPX download gives that place only.
@Suite struct SharePageMapTests {
    /// A Munich position at a known instant: the page says the time in Munich (summer time, +02:00; zoneinfo gives
    /// 2024-07-03T11:46:40+02:00 for 1_720_000_000), not in UTC.
    @Test func theLivePageShowsLocalTimeFiveDecimalsAndATileMap() async throws {
        let server = try await TestServer()
        let (device, token) = try await server.addDevice("Oma <i>", user: "local")
        let instant = Int(Date().timeIntervalSince1970) - 60
        try await server.run { client in
            for (index, lat) in [48.137431234, 48.138021987].enumerated() {
                let body = #"{"_type":"location","lat":\#(lat),"lon":11.575491234,"tst":\#(instant - 60 + index * 30)}"#
                let response = try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic("local", token)], body: ByteBuffer(string: body))
                #expect(response.status == .ok)
            }
            let url = try #require(try await client.post("/api/devices/\(device.id)/share", json: #"{"hours":2}"#).jsonObject()["url"] as? String)
            let page = try await client.get(url)
            #expect(page.status == .ok)
            let html = page.text
            #expect(html.contains("48.13802, 11.57549"))
            // Munich's clock now: Foundation's own zone database, independent of the grid that found the zone.
            let munich = try #require(TimeZone(identifier: "Europe/Berlin"))
            let offset = munich.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant - 30))) / 3600
            #expect(html.contains("(UTC+0\(offset):00, Europe/Berlin)"))
            #expect(!html.contains("(UTC)"))
            // The map: OpenStreetMap's tiles (the default standard map) under the drawing, which the CSP allows.
            #expect(html.contains("<img class=\"tile\" src=\"https://tile.openstreetmap.org/"))
            #expect(html.contains("<polyline") && html.contains("<circle"))
            #expect(html.contains("© OpenStreetMap contributors"))
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("img-src 'self' https://tile.openstreetmap.org;") && policy.contains("default-src 'none'") && !policy.contains("script-src"))
            #expect(html.contains("Oma &lt;i&gt;") && !html.contains("<i>"))
        }
    }

    @Test func thePlacePageShowsLocalDatesFiveDecimalsAndItsMap() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let created = try await client.post("/api/places", json: #"{"name":"Bäcker <b>","latitude":27.7172453,"longitude":85.3239605}"#)
            let id = try #require(try created.jsonObject()["id"] as? String)
            let token = try #require(try await client.post("/api/places/\(id)/share").jsonObject()["token"] as? String)
            let page = try await client.get("/share/\(token)")
            let html = page.text
            #expect(html.contains("27.71725, 85.32396"))
            // Kathmandu keeps +05:45 all year.
            #expect(html.contains("(UTC+05:45, Asia/Kathmandu)"))
            #expect(html.contains("<img class=\"tile\"") && html.contains("<circle"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("img-src 'self' https://tile.openstreetmap.org;") == true)
            #expect(html.contains("Bäcker &lt;b&gt;") && !html.contains("<b>"))
        }
    }

    /// Without a tile server the pages draw the plain map, and the CSP allows this server's images only.
    @Test func withoutTilesThePlainDrawingAndTheStrictPolicy() async throws {
        var server = try await TestServer()
        server.configuration.standardTilesURL = ""
        try await server.run { client in
            let id = try #require(try await client.post("/api/places", json: #"{"name":"Home","latitude":46.5,"longitude":6.6}"#).jsonObject()["id"] as? String)
            let token = try #require(try await client.post("/api/places/\(id)/share").jsonObject()["token"] as? String)
            let page = try await client.get("/share/\(token)")
            #expect(!page.text.contains("class=\"tile\"") && page.text.contains("<circle"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("img-src 'self';") == true)
        }
    }

    @Test func theTileOriginForTheCSP() {
        #expect(ShareMap(tileTemplate: "https://{s}.tile.example.org/{z}/{x}/{y}.png", attribution: "").imageSource == "https://*.tile.example.org")
        #expect(ShareMap(tileTemplate: "http://tiles.local:8081/{z}/{x}/{y}.png", attribution: "").imageSource == "http://tiles.local:8081")
        #expect(ShareMap(tileTemplate: "/tiles/{z}/{x}/{y}.png", attribution: "").imageSource == nil)
    }

    /// A place page's GPX download: that place only; another user's place or none answers 404.
    @Test func thePlacesGPXOfOnePlace() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            var ids: [String] = []
            for name in ["First", "Second"] {
                let created = try await client.post("/api/places", json: #"{"name":"\#(name)","latitude":46.5,"longitude":6.6}"#)
                ids.append(try #require(try created.jsonObject()["id"] as? String))
            }
            let one = try await client.get("/api/places.gpx?place=\(ids[1])")
            #expect(one.status == .ok)
            let document = try GPXReader.read(bytes: Array(one.text.utf8))
            #expect(document.waypoints.map(\.name) == ["Second"])
            #expect(try await client.get("/api/places.gpx").text.components(separatedBy: "<wpt").count - 1 == 2)
            #expect(try await client.get("/api/places.gpx?place=ZZZZZZZZ").status == .notFound)
            #expect(try await client.get("/api/places.gpx?place=../../x").status == .notFound)
        }
    }
}
