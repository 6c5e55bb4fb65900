import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// Two users on one server (issue 12): every id of one user's data answers 404 to the other on every route,
/// and nothing of it shows in the other's lists, exports, shares, photos or live feed.
@Suite struct IsolationTests {
    static let gpx = """
        <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Anna's ride</name><trkseg>
        <trkpt lat="46.5" lon="6.6"><time>2024-05-01T10:00:00Z</time></trkpt><trkpt lat="46.501" lon="6.6"><time>2024-05-01T10:01:00Z</time></trkpt>
        </trkseg></trk><wpt lat="46.5" lon="6.6"><name>Anna's spot</name></wpt></gpx>
        """

    @Test func anotherUsersIdsAnswer404AndNothingLeaks() async throws {
        let server = try await TestServer.withAccounts()
        let (annasPhone, annasToken) = try await server.addDevice("Anna's phone", user: "anna")
        try await server.run { client in
            let anna = try await Session.login(client, "anna")
            let bob = try await Session.login(client, "bob")

            // Anna's data: a track, a place with a note and a photo, a label, a share, a recording, device fixes.
            let track = try await client.execute(
                uri: "/api/tracks", method: .post,
                headers: [.cookie: anna.cookie, .origin: Session.origin, .contentType: "application/gpx+xml"],
                body: ByteBuffer(string: Self.gpx))
            #expect(track.status == .created, "\(track.text)")
            let uploaded = try track.jsonObject()["tracks"] as? [[String: Any]]
            let trackID = try #require(uploaded?.first?["id"] as? String)
            let label = try #require(try await anna.post("/api/labels", json: ##"{"name":"Secret","colour":"#112233"}"##).jsonObject()["id"] as? String)
            let place = try await anna.post("/api/places", json: #"{"name":"Anna's home","latitude":46.5,"longitude":6.6,"labels":["\#(label)"]}"#)
            #expect(place.status == .created)
            let placeID = try #require(try place.jsonObject()["id"] as? String)
            let note = try #require(try await anna.post("/api/places/\(placeID)/notes", json: #"{"body":"door code 1234"}"#).jsonObject()["id"] as? String)
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0]
            let photo = try await client.execute(
                uri: "/api/places/\(placeID)/notes/\(note)/photos", method: .post,
                headers: [.cookie: anna.cookie, .origin: Session.origin, .contentType: "image/png"], body: ByteBuffer(bytes: png))
            #expect(photo.status == .created, "\(photo.text)")
            let photoID = try #require(try photo.jsonObject()["id"] as? String)
            let share = try #require(try await anna.post("/api/places/\(placeID)/share").jsonObject()["token"] as? String)
            let recording = try await anna.post("/api/recordings", json: "{}")
            #expect(recording.status == .created)
            let recordingID = try #require(try recording.jsonObject()["id"] as? String)
            let now = Int(Date().timeIntervalSince1970)
            let fix = try await client.execute(
                uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic("anna", annasToken)],
                body: ByteBuffer(string: #"{"_type":"location","lat":46.5,"lon":6.6,"tst":\#(now)}"#))
            #expect(fix.status == .ok)
            // Bob cannot use Anna's token under his own name.
            let wrongName = try await client.execute(
                uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic("bob", annasToken)],
                body: ByteBuffer(string: #"{"_type":"location","lat":46.5,"lon":6.6,"tst":\#(now + 1)}"#))
            #expect(wrongName.status == .unauthorized)

            // Every route, with Anna's ids, as Bob: 404.
            let gets = [
                "/api/tracks/\(trackID)", "/api/tracks/\(trackID).gpx", "/api/tracks/\(trackID).gpx436", "/api/tracks/\(trackID).geojson",
                "/api/tracks/\(trackID)/profile", "/api/tracks/\(trackID)/cues", "/api/simulation?trackId=\(trackID)",
                "/api/places/\(placeID)", "/api/places/\(placeID)/notes/\(note)/photos/\(photoID)", "/api/recordings/\(recordingID)",
                "/api/places/\(placeID)/notes/\(note)/photos/\(photoID)/thumbnail",
            ]
            for uri in gets {
                let response = try await bob.get(uri)
                #expect(response.status == .notFound, "GET \(uri) as bob: \(response.status)")
                #expect(!response.text.contains("Anna") && !response.text.contains("door code"), "\(uri)")
                #expect(try await anna.get(uri).status == .ok, "GET \(uri) as anna")
            }
            let changes: [(String, HTTPRequest.Method, String?)] = [
                ("/api/tracks/\(trackID)", .patch, #"{"name":"mine"}"#), ("/api/tracks/\(trackID)", .delete, nil),
                ("/api/tracks/\(trackID)/restore", .post, nil),
                ("/api/places/\(placeID)", .patch, #"{"name":"mine"}"#), ("/api/places/\(placeID)", .delete, nil),
                ("/api/places/\(placeID)/notes", .post, #"{"body":"x"}"#), ("/api/places/\(placeID)/notes/\(note)", .patch, #"{"body":"x"}"#),
                ("/api/places/\(placeID)/notes/\(note)", .delete, nil), ("/api/places/\(placeID)/notes/\(note)/photos/\(photoID)", .delete, nil),
                ("/api/places/\(placeID)/share", .post, nil), ("/api/shares/\(share)", .delete, nil),
                ("/api/labels/\(label)", .patch, #"{"name":"mine"}"#), ("/api/labels/\(label)", .delete, nil),
                ("/api/recordings/\(recordingID)/fixes", .post, fixesJSON(1...2)), ("/api/recordings/\(recordingID)/pause", .post, nil),
                ("/api/recordings/\(recordingID)/stop", .post, nil), ("/api/recordings/\(recordingID)", .patch, #"{"routeTrackId":null}"#),
                ("/api/devices/\(annasPhone.id)", .delete, nil), ("/api/devices/\(annasPhone.id)/token", .post, nil),
                // A place that exists and is not deleted answers 409 to its owner: to anyone else it does not exist.
                ("/api/places/\(placeID)/restore", .post, nil),
                ("/api/places/\(placeID)/notes/\(note)/photos/\(photoID)/thumbnail", .put, #"{}"#),
            ]
            for (uri, method, body) in changes {
                let response = try await bob.request(uri, method, json: body)
                #expect(response.status == .notFound, "\(method) \(uri) as bob: \(response.status) \(response.text)")
            }
            // Bob's route following cannot use Anna's track either.
            #expect(try await bob.post("/api/recordings", json: #"{"routeTrackId":"\#(trackID)"}"#).status == .notFound)

            // Bob's lists and exports hold nothing of Anna's.
            for uri in [
                "/api/tracks", "/api/tracks?q=Anna", "/api/places", "/api/places?q=Anna", "/api/places.gpx", "/api/labels", "/api/devices",
                "/api/live/devices",
            ] {
                let response = try await bob.get(uri)
                #expect(response.status == .ok, "\(uri)")
                #expect(!response.text.contains("Anna") && !response.text.contains(trackID) && !response.text.contains(placeID)
                    && !response.text.contains("Secret") && !response.text.contains(annasPhone.id.rawValue), "\(uri): \(response.text.prefix(200))")
            }
            let feed = try await bob.get("/api/live?lastEventId=0&maxSeconds=0.2")
            #expect(!feed.text.contains("id: "))

            // Anna's things are all still there, unchanged.
            #expect(try await anna.get("/api/tracks/\(trackID)").jsonObject()["name"] as? String == "Anna's ride")
            #expect(try await anna.get("/api/places/\(placeID)").jsonObject()["name"] as? String == "Anna's home")
            #expect(try await client.get("/share/\(share)").status == .ok)
            let annasFeed = try await anna.get("/api/live?lastEventId=0&maxSeconds=0.2")
            #expect(annasFeed.text.contains("id: "))
            let annasDevices = try await anna.get("/api/devices").jsonObject()["devices"] as? [[String: Any]]
            #expect(annasDevices?.count == 1)
        }
    }
}
