import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import TestSupport

/// Issue 11, the Tracks half, over HTTP: forgiving uploads that say what they left out, "8 tracks imported",
/// search by file name, date and kind, the kind filter, totals, charts' series, splits and the local start.
@Suite struct TrackPageAPITests {
    /// A ride due north from Zurich, `count` points 10 m apart, one every 2 s (18 km/h), with heart rate 150
    /// and cadence 85 on every point, its times in UTC.
    static func sensorGPX(name: String, count: Int = 201, start: String = "2024-05-04T06:00:00Z") throws -> String {
        let startTime = try GPXTime(parsing: start)
        let origin = Coordinate(latitude: 47.37, longitude: 8.54)
        let points = (0..<count).map { index -> String in
            let position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: startTime.secondsSince1970 + Int64(index) * 2).rfc3339
            return #"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)"><ele>410</ele><time>\#(time)</time>"#
                + "<extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>150</gpxtpx:hr><gpxtpx:cad>85</gpxtpx:cad></gpxtpx:TrackPointExtension></extensions></trkpt>"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
            <trk><name>\(name)</name><trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
            </gpx>
            """
    }

    @Test func aFileWithOneBadWaypointImportsWithAWarningInPlainWords() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            var text = zigzagGPX(name: "Forgiven")
            text = text.replacingOccurrences(of: #"<wpt lat="46.5" lon="6.6">"#, with: #"<wpt lat="95" lon="6.6">"#)
            text = text.replacingOccurrences(of: "<ele>410</ele>", with: "<ele>410</ele><surface>gravel</surface>")
            let response = try await client.upload(text, name: "forgiven.gpx")
            #expect(response.status == .created)
            let object = try response.jsonObject()
            #expect(object["message"] as? String == "1 track imported")
            let warnings = try #require(object["warnings"] as? [[String: Any]])
            #expect(warnings.map { $0["message"] as? String } == [
                "1 waypoint skipped: latitude 95 is out of range",
                "1 unknown element skipped: <surface> is not part of GPX (in <trkpt>)",
            ])
            #expect(warnings[0]["line"] as? Int == 3 && warnings[0]["column"] as? Int == 1)
            #expect(warnings[0]["kind"] as? String == "waypointSkipped" && warnings[0]["count"] as? Int == 1)
            // Broken XML is still refused.
            let broken = try await client.upload("<gpx><trk></gpx>", name: "broken.gpx")
            #expect(broken.status == .unprocessableContent)
        }
    }

    @Test func aFileOfManyTracksSaysHowManyAndHasNoPhantoms() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            // GPSBabel's Cerknica file: 8 `trk`, the first without a point.
            let data = try Data(contentsOf: Fixtures.url("gpx/gpxpy/cerknicko-jezero.gpx"))
            let response = try await client.execute(
                uri: "/api/tracks?name=cerknicko-jezero.gpx", method: .post, headers: [.contentType: "application/gpx+xml"],
                body: ByteBuffer(bytes: data))
            #expect(response.status == .created)
            let object = try response.jsonObject()
            #expect(object["message"] as? String == "7 tracks imported")
            let tracks = try #require(object["tracks"] as? [[String: Any]])
            #expect(tracks.count == 7 && tracks.allSatisfy { ($0["pointCount"] as? Int ?? 0) > 0 })
            #expect((object["warnings"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func searchByFileNameDateAndKindAndTheKindFilter() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            _ = try await client.upload(try Self.sensorGPX(name: "Zurich loop"), name: "garmin-export.gpx")
            let run = try await client.uploadTrack("Evening", start: 1_600_000_000)  // 2020-09-13
            _ = try await client.patch("/api/tracks/\(run)", json: #"{"kind":"run"}"#)
            func names(_ query: String) async throws -> [String] {
                let page = try await client.get("/api/tracks?\(query)").jsonObject()
                return (page["tracks"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            }
            #expect(try await names("q=garmin") == ["Zurich loop"])
            #expect(try await names("q=2020-09") == ["Evening"])
            #expect(try await names("q=runs") == ["Evening"])
            #expect(try await names("q=zurich%202024") == ["Zurich loop"])
            #expect(try await names("q=nothing-like-it").isEmpty)
            #expect(try await names("kind=run") == ["Evening"])
            #expect(try await names("kind=ride,run") == ["Zurich loop", "Evening"])
            #expect(try await client.get("/api/tracks?kind=bike").status == .badRequest)
            #expect(try await client.get("/api/tracks?q=" + String(repeating: "a", count: 201)).status == .badRequest)
        }
    }

    @Test func totalsAreTheListsFiguresSummed() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let now = Date()
            let recent = GPXTime(date: now.addingTimeInterval(-60)).rfc3339  // a minute ago: this week, month, year
            _ = try await client.upload(try Self.sensorGPX(name: "Today", start: recent), name: "today.gpx")
            _ = try await client.uploadTrack("Long ago", start: 1_000_000_000)
            let totals = try await client.get("/api/tracks/totals?offset=0").jsonObject()
            let page = try await client.get("/api/tracks?q=today").jsonObject()
            let today = try #require((page["tracks"] as? [[String: Any]])?.first)
            for period in ["week", "month", "year"] {
                let figures = try #require(totals[period] as? [String: Any])
                #expect(figures["trackCount"] as? Int == 1)
                #expect(figures["distanceMeters"] as? Double == today["distanceMeters"] as? Double)
                #expect(figures["movingSeconds"] as? Double == today["movingSeconds"] as? Double)
            }
            // 2,000 m due north: the distance is the geometry's.
            #expect(abs((today["distanceMeters"] as? Double ?? 0) - 2000) < 2)
            #expect(try await client.get("/api/tracks/totals?offset=900").status == .badRequest)
            #expect(try await client.get("/api/tracks/totals?offset=east").status == .badRequest)
        }
    }

    @Test func aTrackPageHasSensorSeriesSplitsTheLocalStartAndItsKindInGPX() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let upload = try await client.upload(try Self.sensorGPX(name: "Sensors"), name: "sensors.gpx")
            let id = try #require((try upload.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)

            let profile = try await client.get("/api/tracks/\(id)/profile").jsonObject()
            let heartRate = try #require(profile["heartRate"] as? [Double])
            #expect(!heartRate.isEmpty && heartRate.allSatisfy { $0 == 150 })
            #expect((profile["cadence"] as? [Double])?.allSatisfy { $0 == 85 } == true)
            #expect(profile["powerWatts"] == nil)  // no power in the file: no power chart
            // 10 m every 2 s is 5 m/s (18 km/h) in every sample: the flat line the page must draw flat.
            let speeds = try #require(profile["speedMetersPerSecond"] as? [Double])
            #expect(speeds.allSatisfy { abs($0 - 5) < 0.01 })
            let positions = try #require(profile["positions"] as? [[Double]])
            #expect(positions.count == speeds.count && abs((positions.last?[0] ?? 0) - 47.387986) < 0.0001)

            let track = try await client.get("/api/tracks/\(id)").jsonObject()
            // Written in UTC in Zurich: shown in Central European Summer Time, UTC+2.
            #expect(track["localStartTime"] as? String == "2024-05-04T08:00:00+02:00")
            #expect(track["timeZoneSource"] as? String == "zone")
            #expect(track["timeZone"] as? String == "Europe/Zurich")
            let splits = try #require(track["splits"] as? [String: Any])
            let kilometres = try #require(splits["kilometer"] as? [[String: Any]])
            #expect(kilometres.count == 2)
            #expect(kilometres.allSatisfy { abs(($0["durationSeconds"] as? Double ?? 0) - 200) < 0.5 })  // 1 km at 5 m/s
            #expect((splits["mile"] as? [[String: Any]])?.count == 2)  // one mile and 391 m

            #expect(try await client.get("/api/tracks/\(id).gpx").text.contains("<type>cycling</type>"))
            _ = try await client.patch("/api/tracks/\(id)", json: #"{"kind":"run"}"#)
            #expect(try await client.get("/api/tracks/\(id).gpx").text.contains("<type>running</type>"))
        }
    }

    @Test func aTrackWithoutTimesHasNoStartTime() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let data = try Data(contentsOf: Fixtures.url("gpx/gpxpy/cerknicko-without-times.gpx"))
            let response = try await client.execute(
                uri: "/api/tracks?name=untimed.gpx", method: .post, headers: [.contentType: "application/gpx+xml"], body: ByteBuffer(bytes: data))
            let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
            // The file's times were removed but for the last track's last five points.
            let untimed = tracks.filter { $0["startTime"] == nil }
            #expect(untimed.count == tracks.count - 1)
            #expect(untimed.allSatisfy { $0["localStartTime"] == nil && $0["elapsedSeconds"] as? Double == 0 })
        }
    }
}
