import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
@testable import RideStore
import Testing
import TestSupport

/// Issue 22 over HTTP, on both stores: heatmap tiles as PNG (read back by the tests' own PNG reader) showing the
/// pixels of a ride's fixes by the Web Mercator formula, transparent elsewhere; a deletion is in the next tile (no
/// stale tile from memory); bad addresses are 400s naming the field; explorer tiles are the tiles of the fixes.
@Suite struct HeatmapAPITests {
    static let origin = Coordinate(latitude: 47.37, longitude: 8.54)

    /// The pixel of a coordinate at a zoom, by the formula.
    static func pixel(_ c: Coordinate, zoom: Int) -> (x: Int, y: Int, px: Int, py: Int) {
        let n = pow(2.0, Double(zoom)) * 256
        let lat = c.latitude * .pi / 180
        let px = Int(((c.longitude + 180) / 360 * n).rounded(.down))
        let py = Int(((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n).rounded(.down))
        return (px / 256, py / 256, px % 256, py % 256)
    }

    @Test(arguments: StoreKind.allCases) func tilesShowTheRideAndForgetItWhenDeleted(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                let id = try await client.upload(TrackPageAPITests.sensorGPX(name: "Zurich north"), name: "z.gpx").jsonObject()["tracks"]
                let trackID = try #require(((id as? [[String: Any]])?.first)?["id"] as? String)
                let middle = Self.origin.destination(distanceMeters: 1000, bearingDegrees: 0)
                for zoom in [3, 11, 14, 16, 18] {
                    let p = Self.pixel(middle, zoom: zoom)
                    let response = try await client.get("/api/heatmap/\(zoom)/\(p.x)/\(p.y).png")
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType] == "image/png")
                    let png = try DecodedPNG(Data(buffer: response.body))
                    #expect(png.alpha(x: p.px, y: p.py) > 0, "zoom \(zoom)")
                    // Filtered out: transparent.
                    let runs = try DecodedPNG(Data(buffer: try await client.get("/api/heatmap/\(zoom)/\(p.x)/\(p.y).png?kind=run").body))
                    #expect(runs.pixels.allSatisfy { $0 == 0 })
                }
                // Away from the ride: transparent.
                let far = Self.pixel(Coordinate(latitude: 40, longitude: -3), zoom: 12)
                let empty = try DecodedPNG(Data(buffer: try await client.get("/api/heatmap/12/\(far.x)/\(far.y).png").body))
                #expect(empty.pixels.allSatisfy { $0 == 0 })

                // Unchanged: 304 on the tile's ETag; after a deletion the same address is drawn again, without the ride.
                let p = Self.pixel(middle, zoom: 16)
                let first = try await client.get("/api/heatmap/16/\(p.x)/\(p.y).png")
                let tag = try #require(first.headers[.eTag])
                let again = try await client.execute(uri: "/api/heatmap/16/\(p.x)/\(p.y).png", method: .get, headers: [.ifNoneMatch: tag])
                #expect(again.status == .notModified)
                #expect(try await client.delete("/api/tracks/\(trackID)").status.code < 300)
                let after = try await client.execute(uri: "/api/heatmap/16/\(p.x)/\(p.y).png", method: .get, headers: [.ifNoneMatch: tag])
                #expect(after.status == .ok)
                #expect(try DecodedPNG(Data(buffer: after.body)).pixels.allSatisfy { $0 == 0 })
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func anInstanceNeverServesATileAnotherInstanceMadeStale(_ kind: StoreKind) async throws {
        try await RecordingAcrossInstancesTests.withTwoInstances(kind) { first, second in
            try await RecordingAcrossInstancesTests.withLongLivedClients(first, second) { a, b in
                let middle = Self.origin.destination(distanceMeters: 1000, bearingDegrees: 0)
                let p = Self.pixel(middle, zoom: 15)
                let uri = "/api/heatmap/15/\(p.x)/\(p.y).png"
                #expect(try DecodedPNG(Data(buffer: try await a.get(uri).body)).pixels.allSatisfy { $0 == 0 })  // drawn and kept by A
                let created = try await b.upload(TrackPageAPITests.sensorGPX(name: "Via B"), name: "b.gpx")
                #expect(created.status == .created)
                #expect(try DecodedPNG(Data(buffer: try await a.get(uri).body)).alpha(x: p.px, y: p.py) > 0)
                let id = try #require(((try created.jsonObject()["tracks"] as? [[String: Any]])?.first)?["id"] as? String)
                #expect(try await b.delete("/api/tracks/\(id)").status.code < 300)
                #expect(try DecodedPNG(Data(buffer: try await a.get(uri).body)).pixels.allSatisfy { $0 == 0 })
            }
        }
    }

    @Test func aTileAskedWhileTheIndexIsBuiltIs503WithRetryAfter() async throws {
        try await withServer(.sqlite) { server, library in
            try await server.run { client in
                _ = try await client.upload(TrackPageAPITests.sensorGPX(name: "Zurich north"), name: "z.gpx")
                // Another instance's build under way (its claim, as `SQLiteRideStore.buildHeatmapOnce` writes it).
                let store = try #require(library.store as? SQLiteRideStore)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                try await store.writer.write { db in
                    try db.execute(sql: "INSERT INTO heatmapBuild (userId, claimedAt) VALUES (?, ?)", arguments: [library.userID.rawValue, now])
                }
                let p = Self.pixel(Self.origin.destination(distanceMeters: 1000, bearingDegrees: 0), zoom: 15)
                let response = try await client.get("/api/heatmap/15/\(p.x)/\(p.y).png")
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "5")
                #expect((try response.jsonObject()["error"] as? [String: Any])?["code"] as? String == "busy")
                #expect(try await client.get("/api/explorer").status == .serviceUnavailable)
                try await store.writer.write { db in try db.execute(sql: "DELETE FROM heatmapBuild") }
                #expect(try await client.get("/api/heatmap/15/\(p.x)/\(p.y).png").status == .ok)
            }
        }
    }

    /// A 503 `busy` is the server working as designed (the client is told when to come back): logged as a notice,
    /// never at error level, which an operator's alerting would page on.
    @Test func aBusyAnswerIsNotLoggedAsAnError() async throws {
        try await withServer(.sqlite) { server, library in
            let store = try #require(library.store as? SQLiteRideStore)
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            try await store.writer.write { db in
                try db.execute(sql: "INSERT INTO heatmapBuild (userId, claimedAt) VALUES (?, ?)", arguments: [library.userID.rawValue, now])
            }
            let (logger, records) = CapturingLogHandler.logger()
            var configuration = server.configuration
            configuration.logLevel = .trace
            let app = try buildApplication(configuration: configuration, library: library, logger: logger)
            try await app.test(.router) { client in
                let response = try await client.get("/api/heatmap/3/0/0.png")
                #expect(response.status == .serviceUnavailable)
            }
            let deferred = records.messages.filter { $0.contains("code=busy") }
            #expect(deferred.count == 1, "\(records.messages)")
            #expect(deferred.allSatisfy { $0.hasPrefix("notice request deferred") }, "\(deferred)")
            #expect(!records.messages.contains { $0.hasPrefix("error") }, "\(records.messages)")
            #expect(ErrorMiddleware<RideRequestContext>.logLevel(for: APIError(from: RideStoreError.damaged("x"))) == .error)
            #expect(ErrorMiddleware<RideRequestContext>.logLevel(for: APIError(from: RideStoreError.unavailable("x"))) == .warning)
        }
    }

    @Test func badAddressesAreRefusedNamingWhatIsWrong() async throws {
        try await withServer(.sqlite) { server, _ in
            try await server.run { client in
                for (uri, field) in [
                    ("/api/heatmap/19/0/0.png", "z"), ("/api/heatmap/3/8/0.png", "x"), ("/api/heatmap/3/0/8.png", "y"),
                    ("/api/heatmap/a/0/0.png", "z"), ("/api/heatmap/2/0/0.png?kind=route", "kind"), ("/api/heatmap/2/0/0.png?kind=%3Cb%3E", "kind"),
                    ("/api/heatmap/2/0/0.png?year=1800", "year"), ("/api/heatmap/2/0/0.png?year=2024x", "year"),
                    ("/api/heatmap/99999999999999999999/0/0.png", "z"), ("/api/explorer?year=-1", "year"),
                ] {
                    let response = try await client.get(uri)
                    #expect(response.status == .badRequest, "\(uri)")
                    let error = try response.jsonObject()["error"] as? [String: Any]
                    #expect((error?["message"] as? String)?.hasPrefix(field + ":") == true, "\(uri): \(String(describing: error))")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func explorerListsTheTilesOfTheFixes(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                _ = try await client.upload(TrackPageAPITests.sensorGPX(name: "Zurich north", count: 801), name: "z.gpx")
                var expected = Set<[Int]>()
                for i in 0..<801 {
                    let p = Self.pixel(Self.origin.destination(distanceMeters: Double(i) * 10, bearingDegrees: 0), zoom: 14)
                    expected.insert([p.x, p.y])
                }
                let answer = try await client.get("/api/explorer").jsonObject()
                #expect(answer["zoom"] as? Int == 14)
                #expect(answer["tileCount"] as? Int == expected.count)
                #expect(Set((answer["tiles"] as? [[Int]]) ?? []) == expected)
                #expect((answer["maxSquare"] as? [String: Any])?["size"] as? Int == 1)
                #expect((answer["maxCluster"] as? [String: Any])?["size"] as? Int == 0)
                #expect(try await client.get("/api/explorer?kind=run").jsonObject()["tileCount"] as? Int == 0)
            }
        }
    }
}
