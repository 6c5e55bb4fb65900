import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// A GPX file of one track: `count` points going east 10 m apart, every other one 30 m north (a zig-zag that
/// simplification can thin), one a second from `start`, rising 1 m a point.
func zigzagGPX(name: String, count: Int = 50, start: Int64 = 1_700_000_000) -> String {
    let origin = Coordinate(latitude: 46.5, longitude: 6.6)
    let points = (0..<count).map { index -> String in
        var position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 90)
        if index % 2 == 1 { position = position.destination(distanceMeters: 30, bearingDegrees: 0) }
        let time = GPXTime(secondsSince1970: start + Int64(index)).rfc3339
        return #"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)"><ele>\#(400 + index)</ele><time>\#(time)</time></trkpt>"#
    }
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <wpt lat="46.5" lon="6.6"><name>Start</name></wpt>
        <trk><name>\(name)</name><trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
        </gpx>
        """
}

extension TestClientProtocol {
    func upload(_ text: String, name: String? = nil) async throws -> TestResponse {
        let uri = "/api/tracks" + (name.map { "?name=\($0)" } ?? "")
        return try await execute(uri: uri, method: .post, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(string: text))
    }

    /// Uploads a GPX file and returns the new track's id.
    func uploadTrack(_ name: String, start: Int64 = 1_700_000_000) async throws -> String {
        let response = try await upload(zigzagGPX(name: name, start: start), name: "\(name).gpx")
        #expect(response.status == .created)
        let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
        return try #require(tracks.first?["id"] as? String)
    }

    func patch(_ uri: String, json: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .patch, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    func delete(_ uri: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .delete)
    }
}

@Suite struct TracksAPITests {
    @Test func uploadListsAndGetsATrack() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let response = try await client.upload(zigzagGPX(name: "Lake loop"), name: "lake.gpx")
            #expect(response.status == .created)
            let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
            #expect(tracks.count == 1 && tracks[0]["name"] as? String == "Lake loop" && tracks[0]["pointCount"] as? Int == 50)
            let id = try #require(tracks[0]["id"] as? String)
            #expect(response.headers[.location] == "/api/tracks/\(id)")

            let page = try await client.get("/api/tracks").jsonObject()
            let rows = try #require(page["tracks"] as? [[String: Any]])
            #expect(rows.count == 1 && rows[0]["id"] as? String == id)
            #expect((rows[0]["shape"] as? [[Double]])?.isEmpty == false)
            #expect(rows[0]["startedAt"] as? String == "2023-11-14T22:13:20Z")
            #expect(page["nextCursor"] == nil || page["nextCursor"] is NSNull)

            let track = try await client.get("/api/tracks/\(id)")
            #expect(track.status == .ok)
            let object = try track.jsonObject()
            #expect(object["name"] as? String == "Lake loop" && object["kind"] as? String == "ride")
            let segments = try #require(object["segments"] as? [[[Double]]])
            #expect(segments.count == 1 && segments[0].count == 50)
            let stats = try #require(object["stats"] as? [String: Any])
            #expect((stats["distanceMeters"] as? Double ?? 0) > 490)
            #expect((object["waypoints"] as? [[String: Any]])?.first?["name"] as? String == "Start")
        }
    }

    @Test func theSameFileTwiceIsADuplicate() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Twice")
            let again = try await client.upload(zigzagGPX(name: "Twice"), name: "Twice.gpx")
            #expect(again.status == .ok)
            let object = try again.jsonObject()
            #expect(object["duplicate"] as? Bool == true)
            #expect((object["tracks"] as? [[String: Any]])?.first?["id"] as? String == id)
            #expect((try await client.get("/api/tracks").jsonObject()["tracks"] as? [Any])?.count == 1)
        }
    }

    @Test func uploadsAreSniffedNotTakenFromTheName() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Source")
            let gpx436 = try await client.get("/api/tracks/\(id).gpx436")
            let geojson = try await client.get("/api/tracks/\(id).geojson")
            // Named .gpx, but JSON: read as what it is.
            let fromJSON = try await client.upload(gpx436.text, name: "wrong.gpx")
            #expect(fromJSON.status == .created)
            #expect((try fromJSON.jsonObject()["tracks"] as? [[String: Any]])?.first?["pointCount"] as? Int == 50)
            let fromGeoJSON = try await client.upload(geojson.text)
            #expect(fromGeoJSON.status == .created)
            #expect((try fromGeoJSON.jsonObject()["tracks"] as? [[String: Any]])?.first?["pointCount"] as? Int == 50)
        }
    }

    @Test func aGzipCompressedGPXIsReadAsItsPlainSelf() async throws {
        // The fixture GraphHopper gave, compressed: one track of 171 points and a route of 22 (its upstream
        // test's figures, after gunzip).
        let fixture = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "shared/fixtures/gpx/gpxgo/graphhopper.gpx.gz")
        let compressed = try Data(contentsOf: fixture)
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let response = try await client.execute(
                uri: "/api/tracks?name=graphhopper.gpx.gz", method: .post, headers: [.contentType: "application/gzip"],
                body: ByteBuffer(bytes: compressed))
            #expect(response.status == .created)
            let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
            #expect(Set(tracks.compactMap { $0["pointCount"] as? Int }) == [171, 22])
        }
    }

    @Test func aBadFileIs422WithWhereAndStoresNothing() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        try await server.run { client in
            var broken = zigzagGPX(name: "Broken")
            broken = broken.replacingOccurrences(of: "</trkseg>", with: "</trksegment>")
            let response = try await client.upload(broken, name: "broken.gpx")
            #expect(response.status == .unprocessableContent)
            #expect(try response.errorCode() == "invalid_file")
            let message = try #require((try response.jsonObject()["error"] as? [String: Any])?["message"] as? String)
            #expect(message.hasPrefix("line "))

            let notATrack = try await client.upload("hello, world", name: "notes.txt")
            #expect(notATrack.status == .unprocessableContent)
            #expect(try notATrack.errorCode() == "unsupported_format")
            let empty = try await client.upload("", name: "empty.gpx")
            #expect(empty.status == .badRequest)
            #expect((try await client.get("/api/tracks").jsonObject()["tracks"] as? [Any])?.isEmpty == true)
        }
        #expect(try await library.store.trackCount(userID: library.userID) == 0)
    }

    /// Issue 24: a waypoints-only (or empty) upload is 422 `nothing_to_import` and stores nothing; with
    /// `?waypointsAsPlaces=1` its waypoints become places, and still no track. An untimed line is a route.
    @Test(arguments: StoreKind.allCases) func aWaypointsOnlyUploadMakesNoTrack(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, library in
            try await server.run { client in
                let waypoints = """
                    <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
                    <wpt lat="46.51" lon="6.61"><name>Bakery</name></wpt><wpt lat="46.52" lon="6.62"><name>Post office</name></wpt></gpx>
                    """
                let refused = try await client.upload(waypoints, name: "errands.gpx")
                #expect(refused.status == .unprocessableContent)
                #expect(try refused.errorCode() == "nothing_to_import")
                let message = try #require((try refused.jsonObject()["error"] as? [String: Any])?["message"] as? String)
                #expect(message.contains("only waypoints") && message.contains("waypointsAsPlaces=1"))
                let empty = try await client.upload(
                    #"<?xml version="1.0"?><gpx version="1.0" creator="t" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg/></trk></gpx>"#,
                    name: "empty.gpx")
                #expect(empty.status == .unprocessableContent)
                #expect(try empty.errorCode() == "nothing_to_import")
                let badFlag = try await client.execute(
                    uri: "/api/tracks?name=e.gpx&waypointsAsPlaces=maybe", method: .post, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(string: waypoints))
                #expect(badFlag.status == .badRequest)
                #expect((try await client.get("/api/places").jsonObject()["places"] as? [Any])?.isEmpty == true)

                let asPlaces = try await client.execute(
                    uri: "/api/tracks?name=errands.gpx&waypointsAsPlaces=1", method: .post, headers: [.contentType: "application/octet-stream"], body: ByteBuffer(string: waypoints))
                #expect(asPlaces.status == .created)
                let answer = try asPlaces.jsonObject()
                #expect((answer["tracks"] as? [Any])?.isEmpty == true)
                #expect((answer["places"] as? [String])?.count == 2)
                #expect(answer["message"] as? String == "2 places imported")

                let untimed = zigzagGPX(name: "Plan").replacingOccurrences(of: #"<time>[^<]*</time>"#, with: "", options: .regularExpression)
                let route = try await client.upload(untimed, name: "plan.gpx")
                #expect(route.status == .created)
                #expect(((try route.jsonObject()["tracks"] as? [[String: Any]])?.first?["kind"] as? String) == "route")
            }
            #expect(try await library.store.trackCount(userID: library.userID) == 1)
            #expect(try await library.store.places(PlaceQuery(), userID: library.userID).count == 2)
        }
    }

    /// Only a ride recorded in bikeride changes source (a simulated one kept as real, and back): a file stays a file.
    @Test func patchingTheSourceOfAFileIs400AndChangesNothing() async throws {
        try await TestServer().run { client in
            let id = try await client.uploadTrack("Source")
            let refused = try await client.patch("/api/tracks/\(id)", json: #"{"source":"recording","name":"Other"}"#)
            #expect(refused.status == .badRequest)
            #expect(try refused.errorCode() == "invalid_value")
            #expect(try await client.patch("/api/tracks/\(id)", json: #"{"source":"satellite"}"#).status == .badRequest)
            let track = try await client.get("/api/tracks/\(id)").jsonObject()
            #expect(track["source"] as? String == "file" && track["name"] as? String == "Source")
        }
    }

    @Test func anOversizeUploadIs413() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let body = ByteBuffer(repeating: UInt8(ascii: " "), count: TracksController<RideRequestContext>.uploadLimitBytes + 1)
            let response = try await client.execute(uri: "/api/tracks?name=big.gpx", method: .post, body: body)
            #expect(response.status == .contentTooLarge)
            #expect(try response.errorCode() == "body_too_large")
        }
    }

    @Test func theListIsPagedNewestFirstAndSearchable() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let oldest = try await client.uploadTrack("Morning hill", start: 1_700_000_000)
            let middle = try await client.uploadTrack("Evening lake", start: 1_700_100_000)
            let newest = try await client.uploadTrack("Morning lake", start: 1_700_200_000)
            let first = try await client.get("/api/tracks?limit=2").jsonObject()
            #expect((first["tracks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [newest, middle])
            let cursor = try #require(first["nextCursor"] as? String)
            let second = try await client.get("/api/tracks?limit=2&cursor=\(cursor)").jsonObject()
            #expect((second["tracks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [oldest])
            #expect(second["nextCursor"] == nil || second["nextCursor"] is NSNull)

            let found = try await client.get("/api/tracks?q=morning").jsonObject()
            #expect((found["tracks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [newest, oldest])
            // Two words as a browser's URLSearchParams writes them (+ for the space) and percent-encoded.
            for query in ["morning+lake", "morning%20lake", "Morning+Lake"] {
                let both = try await client.get("/api/tracks?q=\(query)").jsonObject()
                #expect((both["tracks"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [newest], "\(query)")
            }
            // %2B is a plus, not a space: no track is named with one.
            let plus = try await client.get("/api/tracks?q=morning%2Blake").jsonObject()
            #expect((plus["tracks"] as? [[String: Any]])?.isEmpty == true)

            #expect(try await client.get("/api/tracks?limit=0").status == .badRequest)
            #expect(try await client.get("/api/tracks?limit=many").status == .badRequest)
            #expect(try await client.get("/api/tracks?cursor=garbage").status == .badRequest)
        }
    }

    @Test func unknownIdsAre404() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            for uri in ["/api/tracks/ZZZZZZZZ", "/api/tracks/nope", "/api/tracks/ZZZZZZZZ.gpx", "/api/tracks/ZZZZZZZZ/profile"] {
                let response = try await client.get(uri)
                #expect(response.status == .notFound, "\(uri)")
                #expect(try response.errorCode() == "not_found")
            }
            #expect(try await client.patch("/api/tracks/ZZZZZZZZ", json: #"{"name":"x"}"#).status == .notFound)
            #expect(try await client.delete("/api/tracks/ZZZZZZZZ").status == .notFound)
            #expect(try await client.post("/api/tracks/ZZZZZZZZ/restore").status == .notFound)
        }
    }

    @Test func patchRenamesAndSetsTheKind() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Old name")
            let response = try await client.patch("/api/tracks/\(id)", json: #"{"name":"  New name ","kind":"run"}"#)
            #expect(response.status == .ok)
            let object = try response.jsonObject()
            #expect(object["name"] as? String == "New name" && object["kind"] as? String == "run")
            let track = try await client.get("/api/tracks/\(id)").jsonObject()
            #expect(track["name"] as? String == "New name" && track["kind"] as? String == "run")
        }
    }

    @Test func aBadPatchIs400AndChangesNothing() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Kept")
            let cases: [(String, String)] = [
                (#"{"name":5}"#, "wrong_type"), (#"{"name":"ok","kind":"boat"}"#, "invalid_value"), (#"{"name":"   "}"#, "invalid_value"),
                ("not json", "bad_json"), (#"{"kind":["run"]}"#, "wrong_type"),
            ]
            for (body, code) in cases {
                let response = try await client.patch("/api/tracks/\(id)", json: body)
                #expect(response.status == .badRequest, "\(body)")
                #expect(try response.errorCode() == code, "\(body)")
            }
            let track = try await client.get("/api/tracks/\(id)").jsonObject()
            #expect(track["name"] as? String == "Kept" && track["kind"] as? String == "ride")
        }
    }

    @Test func deleteIsUndoneByRestore() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Gone soon")
            #expect(try await client.delete("/api/tracks/\(id)").status == .noContent)
            #expect(try await client.get("/api/tracks/\(id)").status == .notFound)
            #expect((try await client.get("/api/tracks").jsonObject()["tracks"] as? [Any])?.isEmpty == true)
            #expect(try await client.delete("/api/tracks/\(id)").status == .notFound)
            let restored = try await client.post("/api/tracks/\(id)/restore")
            #expect(restored.status == .ok)
            #expect(try restored.jsonObject()["name"] as? String == "Gone soon")
            #expect(try await client.get("/api/tracks/\(id)").status == .ok)
            #expect(try await client.post("/api/tracks/\(id)/restore").status == .notFound)
        }
    }

    @Test func downloadsInEachFormat() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Download me")
            let gpx = try await client.get("/api/tracks/\(id).gpx")
            #expect(gpx.status == .ok && gpx.headers[.contentType] == "application/gpx+xml")
            #expect(gpx.text.contains("<trkpt") && gpx.text.contains("Download me"))
            #expect(gpx.headers[.contentDisposition] == #"attachment; filename="Download me.gpx""#)
            let gpx436 = try await client.get("/api/tracks/\(id).gpx436")
            #expect(gpx436.status == .ok && gpx436.headers[.contentType] == "application/json")
            #expect((try? JSONSerialization.jsonObject(with: Data(buffer: gpx436.body))) != nil)
            let geojson = try await client.get("/api/tracks/\(id).geojson")
            #expect(geojson.status == .ok && geojson.headers[.contentType] == "application/geo+json")
            #expect(try await client.get("/api/tracks/\(id).txt").status == .notFound)
        }
    }

    @Test func geoJSONIsSimplifiedForAZoom() async throws {
        @Sendable func coordinateCount(_ response: TestResponse) throws -> Int {
            let object = try response.jsonObject()
            let features = try #require(object["features"] as? [[String: Any]])
            return features.reduce(0) { total, feature in
                guard let geometry = feature["geometry"] as? [String: Any], geometry["type"] as? String != "Point" else { return total }
                let coordinates = geometry["coordinates"] as? [Any] ?? []
                // LineString: [[lon, lat]]; MultiLineString: [[[lon, lat]]].
                if let lines = coordinates as? [[[Double]]] { return total + lines.reduce(0) { $0 + $1.count } }
                return total + coordinates.count
            }
        }
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Zig-zag")
            let full = try coordinateCount(try await client.get("/api/tracks/\(id).geojson"))
            let close = try coordinateCount(try await client.get("/api/tracks/\(id).geojson?zoom=18"))
            let far = try coordinateCount(try await client.get("/api/tracks/\(id).geojson?zoom=5"))
            #expect(full == 50 && close == 50)
            #expect(far == 2)
            #expect(try await client.get("/api/tracks/\(id).geojson?zoom=99").status == .badRequest)
            #expect(try await client.get("/api/tracks/\(id).geojson?zoom=far").status == .badRequest)
            #expect(try await client.get("/api/tracks/\(id).gpx?zoom=5").status == .badRequest)
        }
    }

    @Test func theTrackPageLineIsSimplifiedForItsMap() async throws {
        @Sendable func line(_ response: TestResponse) throws -> (points: Int, zoom: Int?, total: Int?) {
            #expect(response.status == .ok)
            let object = try response.jsonObject()
            let segments = try #require(object["segments"] as? [[[Double]]])
            return (segments.reduce(0) { $0 + $1.count }, object["simplifiedForZoom"] as? Int, object["pointCount"] as? Int)
        }
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            // 490 m east with 30 m zig-zags, at latitude 46.5.
            let id = try await client.uploadTrack("Zig-zag")
            let full = try line(try await client.get("/api/tracks/\(id)"))
            #expect(full.points == 50 && full.zoom == nil && full.total == 50)
            // In a 400 × 300 map it fits at zoom 16 (about 300 px wide): simplified for 17, a pixel is 0.8 m
            // there, so every zig-zag stays.
            let big = try line(try await client.get("/api/tracks/\(id)?fit=400x300"))
            #expect(big.points == 50 && big.zoom == 17 && big.total == 50)
            // In 4 × 4 pixels it fits at zoom 9: simplified for 10, a pixel is 105 m, the line is its two ends.
            let tiny = try line(try await client.get("/api/tracks/\(id)?fit=4x4"))
            #expect(tiny.points == 2 && tiny.zoom == 10 && tiny.total == 50)
            let zoomed = try line(try await client.get("/api/tracks/\(id)?zoom=18"))
            #expect(zoomed.points == 50 && zoomed.zoom == 18)
            for bad in ["fit=0x10", "fit=400", "fit=axb", "fit=400x300x2", "fit=99999x10", "zoom=25", "zoom=5&fit=4x4"] {
                #expect(try await client.get("/api/tracks/\(id)?\(bad)").status == .badRequest, "\(bad)")
            }
        }
    }

    @Test func theProfile() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.uploadTrack("Climb")
            let response = try await client.get("/api/tracks/\(id)/profile")
            #expect(response.status == .ok)
            let object = try response.jsonObject()
            let distances = try #require(object["distanceMeters"] as? [Double])
            let elevations = try #require(object["elevationMeters"] as? [Any])
            #expect(!distances.isEmpty && distances.count == elevations.count)
            #expect((distances.last ?? 0) > 490)
        }
    }

    @Test func aStoppedRecordingIsListed() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.startRecording(#"{"name":"Recorded"}"#)
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10))
            #expect((try await client.get("/api/tracks").jsonObject()["tracks"] as? [Any])?.isEmpty == true)
            let trackID = try #require(try await client.post("/api/recordings/\(id)/stop").jsonObject()["trackId"] as? String)
            let rows = try #require(try await client.get("/api/tracks").jsonObject()["tracks"] as? [[String: Any]])
            #expect(rows.count == 1 && rows[0]["id"] as? String == trackID && rows[0]["source"] as? String == "recording")
            let track = try await client.get("/api/tracks/\(trackID)").jsonObject()
            #expect((track["segments"] as? [[[Double]]])?.first?.count == 10)
        }
    }
}
