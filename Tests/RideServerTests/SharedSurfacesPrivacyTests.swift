import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import TestSupport

/// Every surface someone other than the owner sees goes through the owner's privacy zones (issue 23). The routes
/// come from the router: one answered without a session (a link's page) that is not in `surfaces` fails the test
/// until it is checked here.
@Suite struct SharedSurfacesPrivacyTests {
    static let home = (latitude: 46.50, longitude: 6.60)
    /// 5 km east along the parallel, a point every 10 m at 5 m/s, with heart rate and power.
    static let length = 5_000.0

    /// How each route a link opens is checked. `ride`: the ride page and its downloads; `live`: the live page and its
    /// JSON; `placeOnly`: a place's page and its photos, which show no ride or position of the rider's, only the
    /// place the owner chose to share (PlaceShareLinkTests checks them).
    enum Check: Sendable { case ride, live, placeOnly }
    static let surfaces: [String: Check] = [
        "/ride/{token}": .ride,
        "/live/{token}": .live,
        "/share/{token}": .placeOnly,
        "/share/{token}/photos/{photoId}": .placeOnly,
        "/share/{token}/photos/{photoId}/thumbnail": .placeOnly,
    ]

    /// The ride as a GPX file: from home east.
    static func rideGPX() -> String {
        let start = Coordinate(latitude: home.latitude, longitude: home.longitude)
        let count = Int(length / 10)
        let points = (0...count).map { index -> TrackPoint in
            let c = start.destination(distanceMeters: Double(index) * 10, bearingDegrees: 90)
            return TrackPoint(latitude: c.latitude, longitude: c.longitude, elevation: 400 + Double(index % 50),
                              time: GPXTime(secondsSince1970: 1_700_000_000 + Int64(index * 2)), heartRate: 130, powerWatts: 200)
        }
        return String(decoding: GPXWriter.data(GPXDocument(tracks: [Track(name: "To <b>work</b>", segments: [TrackSegment(points: points)])])), as: UTF8.self)
    }

    /// The zones: home (300 m, the start inside), one that overlaps it, one the ride passes through in its middle.
    static func zones() -> [(latitude: Double, longitude: Double, radius: Double)] {
        let start = Coordinate(latitude: home.latitude, longitude: home.longitude)
        let overlap = start.destination(distanceMeters: 350, bearingDegrees: 80)
        let middle = start.destination(distanceMeters: 2_500, bearingDegrees: 90)
        return [(home.latitude, home.longitude, 300), (overlap.latitude, overlap.longitude, 200), (middle.latitude, middle.longitude, 250)]
    }

    static let hiddenEnds = 400.0

    /// No point within a zone's radius, nor within the hidden length of the ride's first and last point; no drawn
    /// line between two points of a segment enters a zone.
    static func expectOutside(_ segments: [[(Double, Double)]], _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let start = Coordinate(latitude: home.latitude, longitude: home.longitude)
        let end = start.destination(distanceMeters: length, bearingDegrees: 90)
        let circles = zones().map { ($0.latitude, $0.longitude, $0.radius) }
            + [(start.latitude, start.longitude, hiddenEnds), (end.latitude, end.longitude, hiddenEnds)]
        for segment in segments {
            for (lat, lon) in segment {
                for (cLat, cLon, radius) in circles {
                    #expect(TestGeodesic.meters(cLat, cLon, lat, lon) >= radius, "\(what): a point \(lat), \(lon) inside a zone", sourceLocation: sourceLocation)
                }
            }
            for (a, b) in zip(segment, segment.dropFirst()) {
                for step in 1..<16 {
                    let f = Double(step) / 16
                    for (cLat, cLon, radius) in circles {
                        #expect(TestGeodesic.meters(cLat, cLon, a.0 + f * (b.0 - a.0), a.1 + f * (b.1 - a.1)) >= radius,
                                "\(what): a line crosses a zone", sourceLocation: sourceLocation)
                    }
                }
            }
        }
    }

    /// The preview of `shown` (latitude, longitude per point) against the zones: each shown point is drawn in the line's
    /// red at its Web Mercator pixel (the formula written here), and every pixel of a zone's disc (less the drawn
    /// line's half width and a pixel) is the plain background.
    static func expectPreviewOutside(_ png: DecodedPNG, shown: [[(Double, Double)]], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(png.width == 1200 && png.height == 630, sourceLocation: sourceLocation)
        let layout = RidePreview.layout(for: shown.map { $0.map { Coordinate(latitude: $0.0, longitude: $0.1) } })
        let size = 256 * pow(2, Double(layout.zoom))
        func pixel(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) {
            let phi = lat * .pi / 180
            return ((lon + 180) / 360 * size - layout.originX, (1 - asinh(tan(phi)) / .pi) / 2 * size - layout.originY)
        }
        var drawn = 0
        for (lat, lon) in shown.flatMap({ $0 }) {
            let p = pixel(lat, lon)
            if png.rgba(x: Int(p.x), y: Int(p.y)) == [198, 40, 40, 255] { drawn += 1 }
        }
        #expect(drawn == shown.flatMap { $0 }.count, "shown points drawn: \(drawn)", sourceLocation: sourceLocation)
        let start = Coordinate(latitude: home.latitude, longitude: home.longitude)
        let end = start.destination(distanceMeters: length, bearingDegrees: 90)
        let circles = zones().map { ($0.latitude, $0.longitude, $0.radius) }
            + [(start.latitude, start.longitude, hiddenEnds), (end.latitude, end.longitude, hiddenEnds)]
        var checked = 0
        for (lat, lon, radius) in circles {
            let centre = pixel(lat, lon)
            // Pixels per metre on the Mercator map at this latitude.
            let scale = size / (2 * .pi * 6_378_137 * cos(lat * .pi / 180))
            let inner = radius * scale - RidePreview.casingWidth / 2 - 1
            for y in max(0, Int(centre.y - inner))...min(629 - 110, Int(centre.y + inner)) {
                for x in max(0, Int(centre.x - inner))...min(1199, Int(centre.x + inner))
                where hypot(Double(x) + 0.5 - centre.x, Double(y) + 0.5 - centre.y) < inner {
                    checked += 1
                    #expect(png.rgba(x: x, y: y) == [233, 236, 239, 255], "preview: pixel \(x),\(y) drawn inside a zone", sourceLocation: sourceLocation)
                }
            }
        }
        #expect(checked > 1_000, sourceLocation: sourceLocation)
    }

    static func postFix(_ client: any TestClientProtocol, token: String, _ c: Coordinate, at time: Int) async throws {
        let body = #"{"_type":"location","lat":\#(c.latitude),"lon":\#(c.longitude),"tst":\#(time),"batt":64,"vel":18}"#
        let response = try await client.execute(
            uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic("local", token)], body: ByteBuffer(string: body))
        #expect(response.status == .ok)
    }

    @Test func everySharedSurfaceKeepsOutOfTheZones() async throws {
        let server = try await TestServer()
        // Every route a link opens is in the table.
        let router = buildRouter(configuration: server.configuration, library: server.library)
        let linkRoutes = router.routes.map { "\($0.path)" }.filter { $0.hasPrefix("/share/") || $0.hasPrefix("/live/") || $0.hasPrefix("/ride/") }
        #expect(!linkRoutes.isEmpty)
        for route in linkRoutes { #expect(Self.surfaces[route] != nil, "\(route) is shared and not checked against the zones") }
        #expect(Set(linkRoutes) == Set(Self.surfaces.keys))

        let (device, deviceToken) = try await server.addDevice("Phone", user: "local")
        try await server.run { client in
            for zone in Self.zones() {
                let added = try await client.post("/api/privacy-zones", json: #"{"latitude":\#(zone.latitude),"longitude":\#(zone.longitude),"radiusMeters":\#(zone.radius),"name":"<i>Home</i>"}"#)
                #expect(added.status == .created, "\(added.text)")
            }
            let setting = try await client.execute(
                uri: "/api/privacy-zones", method: .patch, headers: [.contentType: "application/json"], body: ByteBuffer(string: #"{"hideEndsMeters":\#(Self.hiddenEnds)}"#))
            #expect(setting.status == .ok)
            let uploaded = try await client.upload(Self.rideGPX(), name: "ride.gpx")
            let trackID = try #require((try uploaded.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let shared = try await client.post("/api/tracks/\(trackID)/share", json: #"{"hideHeartRate":true,"expiresInDays":7}"#)
            #expect(shared.status == .created)
            let rideURL = try #require(try shared.jsonObject()["url"] as? String)

            // The ride's JSON: outside every zone, a gap in the middle, the figures of what is shown.
            let json = try await client.get(rideURL + ".json")
            #expect(json.status == .ok && json.headers[.init("Referrer-Policy")!] == "no-referrer")
            let ride = try json.jsonObject()
            let segments = try #require(ride["segments"] as? [[[String: Any]]]).map { $0.map { ($0["latitude"] as! Double, $0["longitude"] as! Double) } }
            Self.expectOutside(segments, "ride JSON")
            #expect(segments.count == 2)
            #expect(segments.flatMap { $0 }.count > 200)
            let measured = segments.map { s in zip(s, s.dropFirst()).map { TestGeodesic.meters($0.0, $0.1, $1.0, $1.1) }.reduce(0, +) }.reduce(0, +)
            let distance = try #require(ride["distanceMeters"] as? Double)
            #expect(abs(distance - measured) < measured * 0.002, "shared distance \(distance) against the shown points' \(measured)")
            #expect(distance < Self.length - 2 * 300)
            #expect(ride["clipped"] as? Bool == true)
            #expect(try #require(ride["segments"] as? [[[String: Any]]]).flatMap { $0 }.allSatisfy { $0["heartRate"] == nil && $0["powerWatts"] as? Double == 200 })

            // The GPX download: the same points.
            let gpx = try await client.get(rideURL + ".gpx")
            #expect(gpx.status == .ok)
            let document = try GPXReader.read(data: Data(buffer: gpx.body))
            let gpxSegments = document.tracks.flatMap(\.segments).map { $0.points.map { ($0.latitude, $0.longitude) } }
            Self.expectOutside(gpxSegments, "ride GPX")
            #expect(gpxSegments.map(\.count) == segments.map(\.count))
            #expect(document.tracks.flatMap(\.segments).flatMap(\.points).allSatisfy { $0.heartRate == nil })

            // The preview image: the shown line drawn where Web Mercator puts it, and no pixel but the background within
            // a zone (less the line's half width).
            let image = try await client.get(rideURL + ".png")
            #expect(image.status == .ok && image.headers[.contentType] == "image/png" && image.headers[.init("Referrer-Policy")!] == "no-referrer")
            Self.expectPreviewOutside(try DecodedPNG(Data(buffer: image.body)), shown: segments)

            // The page: one line per shown piece, the figures of what is shown, no script, escaped.
            let page = try await client.get(rideURL)
            #expect(page.status == .ok && page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(page.text.components(separatedBy: "<polyline").count - 1 == 2 + 2)  // the line's two pieces, two profiles
            #expect(page.text.contains(String(format: "%.2f km", distance / 1000)))
            #expect(page.text.contains("To &lt;b&gt;work&lt;/b&gt;") && !page.text.contains("<b>work"))
            #expect(page.text.contains("og:title") && !page.text.contains("<script"))
            // The preview's address is absolute (chat apps fetch it from elsewhere).
            #expect(page.text.contains(#"<meta property="og:image" content="http"#) && page.text.contains(rideURL + #".png">"#))
            #expect(page.text.contains("not shown"))

            // The owner's own download keeps every point.
            let own = try GPXReader.read(data: Data(buffer: try await client.get("/api/tracks/\(trackID).gpx").body))
            #expect(own.tracks.flatMap(\.segments).flatMap(\.points).count == Int(Self.length / 10) + 1)

            // The live share: a path from home east, the latest position inside the middle zone.
            let live = try await client.post("/api/devices/\(device.id)/share", json: #"{"hours":2}"#)
            let liveURL = try #require(try live.jsonObject()["url"] as? String)
            let now = Int(Date().timeIntervalSince1970) - 600
            let start = Coordinate(latitude: Self.home.latitude, longitude: Self.home.longitude)
            for step in 0...25 {
                try await Self.postFix(client, token: deviceToken, start.destination(distanceMeters: Double(step) * 100, bearingDegrees: 90), at: now + step * 20)
            }
            let liveJSON = try await client.get(liveURL + ".json").jsonObject()
            #expect(liveJSON["lastFix"] == nil || liveJSON["lastFix"] is NSNull)
            #expect(liveJSON["hidden"] as? Bool == true)
            let liveSegments = try #require(liveJSON["segments"] as? [[[Double]]]).map { $0.map { ($0[0], $0[1]) } }
            Self.expectOutside(liveSegments, "live JSON")
            Self.expectOutside(try #require(liveJSON["path"] as? [[Double]]).map { [($0[0], $0[1])] }, "live JSON path")
            #expect(!liveSegments.isEmpty)
            let livePage = try await client.get(liveURL)
            #expect(livePage.text.contains("hidden near a private place"))
            let last = start.destination(distanceMeters: 2_500, bearingDegrees: 90)
            #expect(!livePage.text.contains(String(last.latitude)) && !livePage.text.contains("geo:"))
            // Out of the zone again: shown.
            try await Self.postFix(client, token: deviceToken, start.destination(distanceMeters: 3_200, bearingDegrees: 90), at: now + 26 * 20)
            let moved = try await client.get(liveURL + ".json").jsonObject()
            let lastFix = try #require(moved["lastFix"] as? [String: Any])
            Self.expectOutside([[(lastFix["latitude"] as! Double, lastFix["longitude"] as! Double)]], "live position")
            Self.expectOutside(try #require(moved["segments"] as? [[[Double]]]).map { $0.map { ($0[0], $0[1]) } }, "live path")
        }
    }

    @Test func revokedExpiredAndNeverIssuedRideLinksAnswerTheSame404() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let uploaded = try await client.upload(Self.rideGPX(), name: "ride.gpx")
            let trackID = try #require((try uploaded.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            let token = try #require(try await client.post("/api/tracks/\(trackID)/share", json: "{}").jsonObject()["token"] as? String)
            #expect(try await client.get("/ride/\(token)").status == .ok)
            // Listed by an id (what the store keeps of the token), never the token itself; revoked by that id.
            let listed = try await client.get("/api/shares")
            let entry = try #require((try listed.jsonObject()["shares"] as? [[String: Any]])?.first)
            #expect(entry["kind"] as? String == "ride" && entry["name"] as? String == "To <b>work</b>")
            #expect(!listed.text.contains(token))
            let id = try #require(entry["id"] as? String)
            #expect(id.count == 64 && id != token)
            #expect(try await client.execute(uri: "/api/shares/\(id)", method: .delete).status == .noContent)
            let expired = try await server.library.store.createRideShare(
                token: SecretToken.make(), trackID: try #require(TrackID(trackID)), userID: server.library.userID, options: RideShareOptions(),
                expiresAt: Date().addingTimeInterval(-1))
            var bodies: Set<String> = []
            for link in [token, expired.token, SecretToken.make(), "short"] {
                let page = try await client.get("/ride/\(link)")
                #expect(page.status == .notFound)
                bodies.insert(page.text)
                for suffix in [".json", ".gpx", ".png"] { #expect(try await client.get("/ride/\(link)\(suffix)").status == .notFound) }
            }
            #expect(bodies.count == 1)
            #expect((try await client.get("/api/shares").jsonObject()["shares"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func badZonesAndShareOptionsAre400AndStoreNothing() async throws {
        let server = try await TestServer()
        try await server.run { client in
            for body in [
                #"{"latitude":46.5,"longitude":6.6,"radiusMeters":99}"#, #"{"latitude":46.5,"longitude":6.6,"radiusMeters":2001}"#,
                #"{"latitude":91,"longitude":6.6,"radiusMeters":200}"#, #"{"latitude":46.5,"longitude":-181,"radiusMeters":200}"#,
                #"{"latitude":"NaN","longitude":6.6,"radiusMeters":200}"#, #"{"latitude":NaN,"longitude":6.6,"radiusMeters":200}"#,
                #"{"latitude":1e999,"longitude":6.6,"radiusMeters":200}"#, #"{"longitude":6.6,"radiusMeters":200}"#, "[]",
            ] {
                let answer = try await client.post("/api/privacy-zones", json: body)
                #expect(answer.status == .badRequest, "\(body): \(answer.status)")
            }
            for body in [#"{"hideEndsMeters":-1}"#, #"{"hideEndsMeters":1601}"#, #"{"hideEndsMeters":"100"}"#] {
                let answer = try await client.execute(
                    uri: "/api/privacy-zones", method: .patch, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                #expect(answer.status == .badRequest, "\(body)")
            }
            let settings = try await client.get("/api/privacy-zones").jsonObject()
            #expect((settings["zones"] as? [Any])?.isEmpty == true && settings["hideEndsMeters"] as? Double == 0)

            let uploaded = try await client.upload(Self.rideGPX(), name: "ride.gpx")
            let trackID = try #require((try uploaded.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
            for body in [
                #"{"hideStartTime":"yes"}"#, #"{"hidePower":1}"#, #"{"expiresInDays":0}"#, #"{"expiresInDays":-3}"#, #"{"expiresInDays":366}"#,
                #"{"expiresInDays":"7"}"#, "[1]",
            ] {
                let answer = try await client.post("/api/tracks/\(trackID)/share", json: body)
                #expect(answer.status == .badRequest, "\(body): \(answer.status)")
            }
            #expect(try await client.post("/api/tracks/ZZZZZZZZ/share", json: "{}").status == .notFound)
            #expect((try await client.get("/api/shares").jsonObject()["shares"] as? [Any])?.isEmpty == true)
            #expect(try await client.execute(uri: "/api/privacy-zones/ZZZZZZZZ", method: .delete).status == .notFound)
        }
    }
}

/// A ride link made on one instance and revoked, or zones changed, on the other answers at once on both: every
/// answer is read from the database (issue 23).
@Suite struct RideLinksAcrossInstancesTests {
    @Test(arguments: StoreKind.allCases) func revocationAndZonesHoldAtOnceOnEveryInstance(_ kind: StoreKind) async throws {
        try await RecordingAcrossInstancesTests.withTwoInstances(kind) { first, second in
            let serverA = TestServer(library: first), serverB = TestServer(library: second)
            let url = try await serverA.run { client -> String in
                let uploaded = try await client.upload(SharedSurfacesPrivacyTests.rideGPX(), name: "ride.gpx")
                let trackID = try #require((try uploaded.jsonObject()["tracks"] as? [[String: Any]])?.first?["id"] as? String)
                return try #require(try await client.post("/api/tracks/\(trackID)/share", json: #"{"expiresInDays":1}"#).jsonObject()["url"] as? String)
            }
            let wholeText = try await serverB.run { client in try await client.get(url + ".json").text }
            let whole = try #require(try JSONSerialization.jsonObject(with: Data(wholeText.utf8)) as? [String: Any])
            let wholeCount = (whole["segments"] as? [[Any]])?.flatMap { $0 }.count ?? 0
            #expect(wholeCount == Int(SharedSurfacesPrivacyTests.length / 10) + 1)
            // A zone set on B: A's next answer leaves the start out.
            let home = SharedSurfacesPrivacyTests.home
            let added = try await serverB.run { client in
                try await client.post("/api/privacy-zones", json: #"{"latitude":\#(home.latitude),"longitude":\#(home.longitude),"radiusMeters":500}"#).status
            }
            #expect(added == .created)
            let clippedText = try await serverA.run { client in try await client.get(url + ".json").text }
            let clipped = try #require(try JSONSerialization.jsonObject(with: Data(clippedText.utf8)) as? [String: Any])
            let points = (clipped["segments"] as? [[[String: Any]]])?.flatMap { $0 } ?? []
            #expect(points.count < wholeCount && !points.isEmpty)
            #expect(points.allSatisfy { TestGeodesic.meters(home.latitude, home.longitude, $0["latitude"] as! Double, $0["longitude"] as! Double) >= 500 })
            // Revoked on B: gone on A.
            let token = String(url.split(separator: "/").last!)
            let revoked = try await serverB.run { client in try await client.execute(uri: "/api/shares/\(token)", method: .delete).status }
            #expect(revoked == .noContent)
            let after = try await serverA.run { client in [try await client.get(url).status, try await client.get(url + ".gpx").status] }
            #expect(after == [.notFound, .notFound])
        }
    }
}
