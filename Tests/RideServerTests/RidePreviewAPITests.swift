import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import TestSupport

/// The shared ride's preview image over an offline tile set, and its address in the page's `og:image` (issue 23).
/// What it may show is checked against the zones in SharedSurfacesPrivacyTests.
@Suite struct RidePreviewAPITests {
    /// An MBTiles file of zooms 0–`maxZoom` whose every tile is one colour, as a PNG.
    static func solidTiles(_ colour: RGBAColor, maxZoom: Int) throws -> String {
        var tile = RGBACanvas(width: 256, height: 256)
        tile.fill(colour)
        let png = PNGEncoder.encode(tile)
        let path = FileManager.default.temporaryDirectory.appending(path: "bikeride-preview-\(UUID().uuidString).mbtiles").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                CREATE TABLE metadata (name TEXT, value TEXT);
                CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                INSERT INTO metadata VALUES ('name', 'solid'), ('format', 'png'), ('minzoom', '0'), ('maxzoom', '\(maxZoom)');
                """)
            for zoom in 0...maxZoom {
                for x in 0..<(1 << zoom) {
                    for y in 0..<(1 << zoom) {
                        try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [zoom, x, y, png])
                    }
                }
            }
        }
        return path
    }

    @Test func thePreviewIsDrawnOverTheOfflineTilesAndThePageShowsItAsTheMap() async throws {
        let teal = RGBAColor(red: 0, green: 128, blue: 128)
        let path = try Self.solidTiles(teal, maxZoom: 4)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var server = try await TestServer(tilesPath: path)
        server.configuration.publicURL = "https://rides.example.org/"
        try await server.run { client in
            let uploaded = try await client.upload(SharedSurfacesPrivacyTests.rideGPX(), name: "ride.gpx")
            let trackID = try #require((try uploaded.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let url = try #require(try await client.post("/api/tracks/\(trackID)/share", json: "{}").jsonObject()["url"] as? String)
            let image = try DecodedPNG(Data(buffer: try await client.get(url + ".png").body))
            #expect(image.width == 1200 && image.height == 630)
            // Far from the line (the corners above the band): the tiles' colour, enlarged from zoom 4.
            for (x, y) in [(3, 3), (1196, 3), (3, 515), (1196, 515)] { #expect(image.rgba(x: x, y: y) == [0, 128, 128, 255]) }
            // The line is there, in red.
            var red = 0
            for y in stride(from: 0, to: 520, by: 2) { for x in stride(from: 0, to: 1200, by: 2) where image.rgba(x: x, y: y) == [198, 40, 40, 255] { red += 1 } }
            #expect(red > 500)
            let page = try await client.get(url).text
            #expect(page.contains(#"<meta property="og:image" content="https://rides.example.org\#(url).png">"#))
            #expect(page.contains(#"<img class="map" src="\#(url).png""#))
            #expect(!page.contains(#"<svg class="line""#))
        }
    }

    @Test func withoutTilesThePreviewHasAPlainBackgroundAndThePageDrawsTheLine() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let uploaded = try await client.upload(SharedSurfacesPrivacyTests.rideGPX(), name: "ride.gpx")
            let trackID = try #require((try uploaded.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let url = try #require(try await client.post("/api/tracks/\(trackID)/share", json: "{}").jsonObject()["url"] as? String)
            let response = try await client.get(url + ".png")
            #expect(response.headers[.cacheControl] == "no-store" && response.headers[.contentSecurityPolicy] != nil)
            let image = try DecodedPNG(Data(buffer: response.body))
            #expect(image.rgba(x: 3, y: 3) == [233, 236, 239, 255])
            let page = try await client.get(url).text
            #expect(page.contains(#"<svg class="line""#) && !page.contains(#"<img class="map""#))
        }
    }
}
