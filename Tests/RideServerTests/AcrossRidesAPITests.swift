import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// Issue 22 over HTTP, on both stores: records with their tracks, a track's PR badges, the overview, the goal.
@Suite struct AcrossRidesAPITests {
    /// A straight ride north, 10 m steps every `secondsPerStep` s.
    static func gpx(name: String, start: String, meters: Int, secondsPerStep: Int) throws -> String {
        let startTime = try GPXTime(parsing: start)
        let origin = Coordinate(latitude: 47.37, longitude: 8.54)
        let points = (0...(meters / 10)).map { index -> String in
            let position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: startTime.secondsSince1970 + Int64(index * secondsPerStep)).rfc3339
            return #"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)"><ele>410</ele><time>\#(time)</time></trkpt>"#
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name><trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
            </gpx>
            """
    }

    static func upload(_ client: some TestClientProtocol, _ text: String, name: String) async throws -> String {
        let response = try await client.execute(
            uri: "/api/tracks?name=\(name)", method: .post, headers: [.contentType: "application/gpx+xml"], body: ByteBuffer(string: text))
        #expect(response.status == .created)
        let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
        return try #require(tracks.first?["id"] as? String)
    }

    /// The zoom-14 tiles of the fixes of `gpx(meters:)`, by the Web Mercator formula (10 m steps: a line north
    /// enters no tile without a fix in it).
    static func tiles(meters: Int) -> Set<[Int]> {
        let origin = Coordinate(latitude: 47.37, longitude: 8.54)
        return Set((0...(meters / 10)).map { index -> [Int] in
            let c = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let n = 16384.0, lat = c.latitude * .pi / 180
            return [Int(((c.longitude + 180) / 360 * n).rounded(.down)), Int(((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n).rounded(.down))]
        })
    }

    @Test(arguments: StoreKind.allCases) func theOverviewCountsExplorerTilesRiddenAndNewInTheYear(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                // 2023: 3 km north; 2024: 8 km north from the same start (the first 3 km ridden before), and a run.
                _ = try await Self.upload(client, try Self.gpx(name: "Old", start: "2023-05-02T08:00:00Z", meters: 3000, secondsPerStep: 1), name: "a.gpx")
                _ = try await Self.upload(client, try Self.gpx(name: "New", start: "2024-05-08T08:00:00Z", meters: 8000, secondsPerStep: 1), name: "b.gpx")
                let old = Self.tiles(meters: 3000), new = Self.tiles(meters: 8000)
                #expect(new.count > old.count && old.count >= 2, "the test's rides cross several tiles")
                for (year, ridden, fresh) in [(2024, new.count, new.subtracting(old).count), (2023, old.count, old.count), (2022, 0, 0)] {
                    let overview = try await client.get("/api/overview?year=\(year)&kind=ride").jsonObject()
                    let explorer = try #require(overview["explorer"] as? [String: Any])
                    #expect(explorer["tileCount"] as? Int == new.count, "\(year)")
                    #expect(explorer["tilesThisYear"] as? Int == ridden, "\(year)")
                    #expect(explorer["newThisYear"] as? Int == fresh, "\(year)")
                    // One column of tiles: the largest square is a single tile, and no tile has four ridden neighbours.
                    #expect(explorer["maxSquareSize"] as? Int == 1 && explorer["clusterTileCount"] as? Int == 0)
                }
                let runs = try #require(try await client.get("/api/overview?year=2024&kind=run").jsonObject()["explorer"] as? [String: Any])
                #expect(runs["tileCount"] as? Int == 0)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func recordsBadgesOverviewAndGoal(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                // 2024-05-01: 2.5 km at 5 m/s; 2024-05-08: 3 km at 10 m/s (a record); 2023-05-02: 1 km.
                let slow = try await Self.upload(client, try Self.gpx(name: "Slow", start: "2024-05-01T08:00:00+02:00", meters: 2500, secondsPerStep: 2), name: "a.gpx")
                let fast = try await Self.upload(client, try Self.gpx(name: "Fast", start: "2024-05-08T08:00:00+02:00", meters: 3000, secondsPerStep: 1), name: "b.gpx")
                _ = try await Self.upload(client, try Self.gpx(name: "Old", start: "2023-05-02T08:00:00+02:00", meters: 1000, secondsPerStep: 2), name: "c.gpx")

                let records = try await client.get("/api/records?kind=ride")
                #expect(records.status == .ok)
                let list = try #require(try records.jsonObject()["records"] as? [[String: Any]])
                let best1km = try #require(list.first { $0["key"] as? String == "1km" && $0["rank"] as? Int == 1 })
                #expect(best1km["trackId"] as? String == fast && best1km["trackName"] as? String == "Fast" && best1km["label"] as? String == "PR")
                #expect(abs((best1km["value"] as? Double ?? 0) - 100) < 3)  // 1 km at 10 m/s
                #expect(best1km["startTime"] as? String == "2024-05-08T06:00:00Z")  // as the helper writes it
                #expect(list.first { $0["key"] as? String == "longest-distance" && $0["rank"] as? Int == 2 }?["trackId"] as? String == slow)

                // The fast ride's page: a PR at 1 km. The slow one was the longest ride when it was ridden (a PR then,
                // though the fast one has beaten it since).
                let page = try await client.get("/api/tracks/\(fast)").jsonObject()
                let efforts = try #require(page["efforts"] as? [[String: Any]])
                #expect(efforts.first { $0["key"] as? String == "1km" }?["label"] as? String == "PR")
                let slowPage = try await client.get("/api/tracks/\(slow)").jsonObject()
                let slowEfforts = try #require(slowPage["efforts"] as? [[String: Any]])
                #expect(slowEfforts.first { $0["key"] as? String == "longest-distance" }?["label"] as? String == "PR")

                // Bad kinds and years.
                #expect(try await client.get("/api/records?kind=boat").status == .badRequest)
                #expect(try await client.get("/api/records?kind=route").status == .badRequest)
                #expect(try await client.get("/api/overview?year=99999").status == .badRequest)
                #expect(try await client.get("/api/overview?year=abc").status == .badRequest)
                #expect(try await client.get("/api/overview?year=2024&kind=x").status == .badRequest)

                // The goal: set, read, refused when absurd, and this week's progress in the overview.
                let goal = try await client.put("/api/settings/goal", json: #"{"kind":"ride","measure":"distance","target":100000}"#)
                #expect(goal.status == .ok)
                for bad in [
                    #"{"kind":"ride","measure":"distance","target":-5}"#, #"{"kind":"ride","measure":"distance","target":1e12}"#,
                    #"{"kind":"ride","measure":"time","target":700000}"#, #"{"kind":"route","target":10}"#, #"{"kind":"ride","measure":"x","target":10}"#,
                    #"{"kind":"ride","target":"far"}"#,
                ] {
                    #expect(try await client.put("/api/settings/goal", json: bad).status == .badRequest, "\(bad)")
                }
                let goals = try #require(try await client.get("/api/settings/goal").jsonObject()["goals"] as? [[String: Any]])
                #expect(goals.count == 1 && goals[0]["target"] as? Double == 100_000)

                let overview = try await client.get("/api/overview?year=2024&kind=ride")
                #expect(overview.status == .ok)
                let object = try overview.jsonObject()
                let totals = try #require((object["totals"] as? [String: Any])?["kinds"] as? [[String: Any]])
                #expect(totals.first?["count"] as? Int == 2)
                let calendar = try #require(object["calendar"] as? [[String: Any]])
                #expect(calendar.map { $0["date"] as? String } == ["2024-05-01", "2024-05-08"])
                let thisYear = try #require(object["thisYearByWeek"] as? [Double])
                let lastYear = try #require(object["lastYearByWeek"] as? [Double])
                #expect(thisYear.count == 52 && lastYear.count == 52)
                // 1 May 2024 is in ISO week 18, 8 May in week 19.
                #expect(thisYear[16] == 0 && thisYear[17] > 1900 && abs(thisYear[18] - (thisYear.last ?? 0)) < 1e-6 && thisYear[18] > 4900)
                #expect(lastYear.last ?? 0 > 900)
                // Eddington: two days of 2 km or more (2.5 and 3 km), one of 1 km: E = 2.
                #expect((object["eddingtonKilometers"] as? [String: Any])?["number"] as? Int == 2)
                #expect((object["goals"] as? [[String: Any]])?.first?["target"] as? Double == 100_000)
                // A deleted track leaves the overview.
                #expect(try await client.execute(uri: "/api/tracks/\(fast)", method: .delete).status == .noContent)
                let after = try await client.get("/api/overview?year=2024").jsonObject()
                #expect((after["calendar"] as? [[String: Any]])?.count == 1)
            }
        }
    }
}
