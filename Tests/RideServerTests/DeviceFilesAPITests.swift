import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import TestSupport
import Testing
import ZIPFoundation

/// Device files through the server's door: uploads of FIT and TCX (found by their content), a file without
/// positions, a damaged file read leniently with what was left out said, and a route downloaded as a FIT course.
@Suite struct DeviceFilesAPITests {
    static func upload(_ client: some TestClientProtocol, _ path: String, name: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/api/tracks?name=\(name)", method: .post, headers: [.contentType: "application/octet-stream"],
            body: ByteBuffer(bytes: try Fixtures.bytes(path)))
    }

    @Test func fitAndTCXUploadsBecomeTracks() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let fit = try await Self.upload(client, "fit/python-fitparse/garmin-edge-500-activity.fit", name: "Edge.fit")
            #expect(fit.status == .created, "\(fit.text)")
            let track = try #require((try fit.jsonObject()["tracks"] as? [[String: Any]])?.first)
            // Every record with a position (fitdecode counts 10,677), as a ride (the session's sport).
            #expect(track["pointCount"] as? Int == 10_677)
            #expect(track["kind"] as? String == "ride")
            // Named the way any file is; the device's 92.62 km within 1 %.
            let distance = try #require(track["distanceMeters"] as? Double)
            #expect(abs(distance - 92_622.34) / 92_622.34 < 0.01)

            // Named .gpx, it is still FIT: the content decides.
            let tcx = try await Self.upload(client, "tcx/tcxreader/mapmyride_biking.tcx", name: "ride.gpx")
            #expect(tcx.status == .created, "\(tcx.text)")
            #expect((try tcx.jsonObject()["tracks"] as? [[String: Any]])?.first?["pointCount"] as? Int == 3105)
        }
    }

    /// An indoor trainer's FIT has no position: a track without a line, never a refusal.
    @Test func aFileWithoutPositionsIsATrack() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let response = try await Self.upload(client, "fit/python-fitparse/sample-activity-indoor-trainer.fit", name: "trainer.fit")
            #expect(response.status == .created, "\(response.text)")
            let track = try #require((try response.jsonObject()["tracks"] as? [[String: Any]])?.first)
            #expect(track["pointCount"] as? Int == 0)
            #expect(track["name"] as? String == "trainer")
        }
    }

    /// A track page carries the device's own totals and laps beside bikeride's figures, as the file gave them
    /// (the reader is checked against fitdecode in FITReaderTests); a track from a GPX carries neither.
    @Test func theTrackPageCarriesTheDevicesTotalsAndLaps() async throws {
        let path = "fit/python-fitparse/garmin-edge-500-activity.fit"
        let activity = try DeviceFileReader.read(bytes: try Fixtures.bytes(path), format: .fit, lenient: true)
        let totals = try #require(activity.totals)
        let server = try await TestServer()
        try await server.run { client in
            let upload = try await Self.upload(client, path, name: "Edge.fit")
            let id = try #require((try upload.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let page = try await client.get("/api/tracks/\(id)").jsonObject()
            let device = try #require(page["device"] as? [String: Any])
            #expect(device["distanceMeters"] as? Double == totals.distanceMeters)
            #expect(device["timerSeconds"] as? Double == totals.timerSeconds)
            #expect(device["ascentMeters"] as? Double == totals.ascentMeters)
            #expect(device["startTime"] as? String == totals.startTime?.rfc3339)
            let laps = try #require(page["laps"] as? [[String: Any]])
            #expect(laps.count == activity.laps.count)
            #expect(laps.map { $0["distanceMeters"] as? Double } == activity.laps.map(\.distanceMeters))

            // A treadmill-like file (a speed sensor, no GPS): the list row's figures are the device's.
            let sensor = try DeviceFileReader.read(
                bytes: try Fixtures.bytes("fit/python-fitparse/compressed-speed-distance.fit"), format: .fit, lenient: true)
            let indoor = try await Self.upload(client, "fit/python-fitparse/compressed-speed-distance.fit", name: "indoor.fit")
            let row = try #require((try indoor.jsonObject()["tracks"] as? [[String: Any]])?.first)
            #expect(row["distanceMeters"] as? Double == sensor.totals?.distanceMeters)
            #expect(row["movingSeconds"] as? Double == sensor.totals?.timerSeconds)

            let gpx = try await client.execute(
                uri: "/api/tracks?name=k.gpx", method: .post, body: ByteBuffer(bytes: try Fixtures.bytes("gpx/gpxpy/cerknicko-jezero.gpx")))
            let gpxID = try #require((try gpx.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let gpxPage = try await client.get("/api/tracks/\(gpxID)").jsonObject()
            #expect(gpxPage["device"] == nil)
            #expect((gpxPage["laps"] as? [Any])?.isEmpty == true)
        }
    }

    /// A shared ride's page and JSON carry the device's totals and laps too (issue 23), without the heart rate a
    /// link hides; figures only, never a position.
    @Test func aSharedRideCarriesTheDevicesTotalsAndLaps() async throws {
        let path = "fit/python-fitparse/garmin-edge-500-activity.fit"
        let activity = try DeviceFileReader.read(bytes: try Fixtures.bytes(path), format: .fit, lenient: true)
        let totals = try #require(activity.totals)
        #expect(activity.laps.count >= 2)
        let server = try await TestServer()
        try await server.run { client in
            let upload = try await Self.upload(client, path, name: "Edge.fit")
            let id = try #require((try upload.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let url = try #require(try await client.post("/api/tracks/\(id)/share", json: #"{"hideHeartRate":true,"hideStartTime":true}"#).jsonObject()["url"] as? String)
            let json = try await client.get(url + ".json").jsonObject()
            let device = try #require(json["device"] as? [String: Any])
            #expect(device["distanceMeters"] as? Double == totals.distanceMeters && device["ascentMeters"] as? Double == totals.ascentMeters)
            #expect(device["averageHeartRate"] == nil && device["startTime"] == nil)
            let laps = try #require(json["laps"] as? [[String: Any]])
            #expect(laps.map { $0["distanceMeters"] as? Double } == activity.laps.map(\.distanceMeters))
            #expect(laps.allSatisfy { $0["maxHeartRate"] == nil && $0["startTime"] == nil && $0["latitude"] == nil })
            let page = try await client.get(url).text
            #expect(page.contains("<caption>Laps</caption>"))
            #expect(page.components(separatedBy: "<tr><th scope=\"row\">").count - 1 == 7 + activity.laps.count)  // figures table rows + laps
            #expect(page.contains(String(format: "Device: Distance %.2f km", (totals.distanceMeters ?? 0) / 1000)))
            #expect(!page.contains("bpm"))
        }
    }

    /// Uploads are read leniently, as GPX uploads are: a FIT whose CRC is wrong is read, and the answer says so.
    @Test func aDamagedFITIsReadLenientlyAndSaysWhat() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let response = try await Self.upload(client, "fit/python-fitparse/activity-unexpected-eof.fit", name: "cut.fit")
            #expect(response.status == .created, "\(response.text)")
            let warnings = try #require(try response.jsonObject()["warnings"] as? [[String: Any]])
            #expect(warnings.first?["kind"] as? String == "damageSkipped")
            #expect((warnings.first?["message"] as? String)?.contains("FIT, byte") == true)
            // Not FIT at all, whatever its name says: refused.
            let garbage = try await client.execute(
                uri: "/api/tracks?name=x.fit", method: .post, body: ByteBuffer(bytes: [0x0E, 0x10] + [UInt8](repeating: 0xAB, count: 100)))
            #expect(garbage.status == .unprocessableContent)
        }
    }

    /// A route downloaded for a bike computer: a FIT course whose course points are bikeride's cues.
    @Test func aRouteDownloadsAsAFITCourseWithItsCues() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let routeID = try await client.uploadRoute(PlannedRoute.threeCorners.gpx(asRoute: true))
            let response = try await client.get("/api/tracks/\(routeID).fit")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/vnd.ant.fit")
            let course = try FITReader.read(Array(response.body.readableBytesView))
            #expect(course.isCourse)
            let types = course.document.waypoints.compactMap(\.type)
            // Right 90°, left 90°, right 135°.
            #expect(types == ["Right", "Left", "SharpRight"])
            let tcx = try await client.get("/api/tracks/\(routeID).tcx")
            #expect(tcx.status == .notFound)
        }
    }

    /// A Strava-style zip uploaded whole: each activity imported in the background, named from activities.csv; the
    /// same zip again adds nothing and says so (ArchiveImportJobAPITests follows the job as it runs).
    @Test func aZipArchiveUploadsInOneGo() async throws {
        let body = try ArchiveImportJobAPITests.archive([
            ("activities.csv", Array("Activity ID,Activity Name,Activity Type,Filename\n1,Lunch ride,Ride,activities/1.fit.gz\n2,Paddle,Stand Up Paddling,activities/2.tcx\n".utf8)),
            ("activities/1.fit.gz", StoredGzip.encode(try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-bike.fit"))),
            ("activities/2.tcx", try Fixtures.bytes("tcx/tcxreader/sup_activity_1.tcx")),
        ])
        let server = try await TestServer()
        try await server.run { client in
            let first = try await ArchiveImportJobAPITests.importToTheEnd(body, client: client, poll: client)
            #expect(first["message"] as? String == "2 imported")
            var names: [String] = []
            for id in first["trackIds"] as? [String] ?? [] {
                names.append(try await client.get("/api/tracks/\(id)").jsonObject()["name"] as? String ?? "?")
            }
            #expect(names.sorted() == ["Lunch ride", "Paddle"])
            let again = try await ArchiveImportJobAPITests.importToTheEnd(body, client: client, poll: client)
            #expect(again["message"] as? String == "2 already imported")
            #expect(again["alreadyImported"] as? Int == 2 && again["imported"] as? Int == 0)
        }
    }
}
