import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import TestSupport

/// Family on one server (issue 23): `POST|GET /api/family`, `DELETE /api/family/{name}`, and OwnTracks friends in the
/// answer to a real OwnTracks post, with two users.
@Suite struct FamilyAPITests {
    static let away = (latitude: 46.52, longitude: 6.63)

    /// An OwnTracks location post (the app's HTTP mode: Basic auth with the user's name and the device's token).
    static func ownTracksPost(_ client: any TestClientProtocol, user: String, token: String, latitude: Double, longitude: Double, tst: Int) async throws
        -> TestResponse
    {
        let body = #"{"_type":"location","lat":\#(latitude),"lon":\#(longitude),"tst":\#(tst),"acc":9,"batt":80,"tid":"\#(user.prefix(2))"}"#
        return try await client.execute(
            uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic(user, token), .contentType: "application/json"],
            body: ByteBuffer(string: body))
    }

    /// The rules of OwnTracks' message schema (owntracks/json-schema `schemas/message.json`) that a friends answer
    /// meets: `_type` one of its types; a location's `lat` and `lon` numbers and `tst` an integer; a card's `name` a
    /// string and `face` a base64 PNG (required: its test `card-without-face` must fail); `tid` a string; `acc` an
    /// integer. Nil when the message meets them.
    static func violation(_ message: [String: Any]) -> String? {
        guard let type = message["_type"] as? String else { return "no _type" }
        if let tid = message["tid"], !(tid is String) { return "tid not a string" }
        switch type {
        case "location":
            for key in ["lat", "lon"] {
                guard !(message[key] is String), let value = message[key] as? NSNumber, value.doubleValue.isFinite else { return "\(key) not a number" }
            }
            guard let tst = message["tst"] as? NSNumber, !(message["tst"] is String), tst.doubleValue == tst.doubleValue.rounded() else { return "tst not an integer" }
            if let acc = message["acc"] { guard let value = acc as? NSNumber, value.doubleValue == value.doubleValue.rounded() else { return "acc not an integer" } }
            return nil
        case "card":
            guard message["name"] is String else { return "card without a name" }
            guard let face = message["face"] as? String, let png = Data(base64Encoded: face), png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
                return "card without a base64 PNG face"
            }
            return nil
        default:
            return "not a friends message: \(type)"
        }
    }

    @Test func aMemberSeesTheSharersPositionInTheFamilyListAndAsAnOwnTracksFriendUntilRevoked() async throws {
        let server = try await TestServer.withAccounts(users: ["anna", "bob"])
        let (_, annasToken) = try await server.addDevice("Anna's phone", user: "anna")
        let (_, bobsToken) = try await server.addDevice("Bob's phone", user: "bob")
        try await server.run { client in
            let anna = try await Session.login(client, "anna"), bob = try await Session.login(client, "bob")
            let now = Int(Date().timeIntervalSince1970)
            // No one shares yet: OwnTracks gets the empty array.
            #expect(try await Self.ownTracksPost(client, user: "bob", token: bobsToken, latitude: 47, longitude: 8, tst: now - 100).text == "[]")

            let shared = try await anna.post("/api/family", json: #"{"user":"bob","hours":2}"#)
            #expect(shared.status == .created, "\(shared.text)")
            let expires = try #require(try shared.jsonObject()["expiresAt"] as? String)
            let expiresAt = try GPXTime(parsing: expires).date.timeIntervalSince1970
            #expect(abs(expiresAt - (Date().timeIntervalSince1970 + 7_200)) < 60)
            // Anna's own post: Bob does not share with her.
            let annasAnswer = try await Self.ownTracksPost(client, user: "anna", token: annasToken, latitude: Self.away.latitude, longitude: Self.away.longitude, tst: now - 60)
            #expect(annasAnswer.status == .ok && annasAnswer.text == "[]")

            // Bob's post is answered with Anna as a friend: a card and her latest location, tied by the tracker id.
            let answer = try await Self.ownTracksPost(client, user: "bob", token: bobsToken, latitude: 47, longitude: 8, tst: now - 50)
            #expect(answer.status == .ok && answer.headers[.contentType] == "application/json")
            let messages = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [[String: Any]])
            for message in messages { #expect(Self.violation(message) == nil, "\(message)") }
            #expect(messages.map { $0["_type"] as? String } == ["card", "location"])
            #expect(messages[0]["name"] as? String == "anna" && messages[0]["tid"] as? String == "AN" && messages[1]["tid"] as? String == "AN")
            #expect(messages[1]["lat"] as? Double == Self.away.latitude && messages[1]["lon"] as? Double == Self.away.longitude)
            #expect(messages[1]["tst"] as? Int == now - 60 && messages[1]["acc"] as? Int == 9)
            let face = try PNGDecoder.decode(try #require(Data(base64Encoded: messages[0]["face"] as! String)))
            #expect(face.width == 40 && face.height == 40)

            // The Live tab's list: Bob sees Anna's position; Anna sees whom she shares with.
            let bobsFamily = try await bob.get("/api/family").jsonObject()
            #expect(bobsFamily["available"] as? Bool == true && (bobsFamily["sharing"] as? [Any])?.isEmpty == true)
            let member = try #require((bobsFamily["sharedWithMe"] as? [[String: Any]])?.first)
            let position = try #require(member["position"] as? [String: Any])
            #expect(member["user"] as? String == "anna" && member["hidden"] as? Bool == false)
            #expect(position["latitude"] as? Double == Self.away.latitude && position["time"] as? String == GPXTime(secondsSince1970: Int64(now - 60)).rfc3339)
            let annasFamily = try await anna.get("/api/family").jsonObject()
            #expect((annasFamily["sharing"] as? [[String: Any]])?.map { $0["user"] as? String } == ["bob"])
            #expect((annasFamily["sharedWithMe"] as? [Any])?.isEmpty == true)

            // Anna's position inside her zone: neither the list nor OwnTracks shows it.
            let zone = try await anna.post("/api/privacy-zones", json: #"{"latitude":\#(Self.away.latitude),"longitude":\#(Self.away.longitude + 0.002),"radiusMeters":300}"#)
            #expect(zone.status == .created)
            #expect(try await Self.ownTracksPost(client, user: "bob", token: bobsToken, latitude: 47, longitude: 8, tst: now - 40).text == "[]")
            let hidden = try #require((try await bob.get("/api/family").jsonObject()["sharedWithMe"] as? [[String: Any]])?.first)
            #expect(hidden["hidden"] as? Bool == true && (hidden["position"] == nil || hidden["position"] is NSNull))
            #expect(!(try await bob.get("/api/family").text.contains(String(Self.away.latitude))))

            // Out of the zone again, then revoked: gone at once from both.
            _ = try await Self.ownTracksPost(client, user: "anna", token: annasToken, latitude: 46.6, longitude: 6.7, tst: now - 30)
            #expect(try await Self.ownTracksPost(client, user: "bob", token: bobsToken, latitude: 47, longitude: 8, tst: now - 20).text.contains("46.6"))
            #expect(try await anna.delete("/api/family/bob").status == .noContent)
            #expect(try await Self.ownTracksPost(client, user: "bob", token: bobsToken, latitude: 47, longitude: 8, tst: now - 10).text == "[]")
            #expect((try await bob.get("/api/family").jsonObject()["sharedWithMe"] as? [Any])?.isEmpty == true)
            #expect(try await anna.delete("/api/family/bob").status == .notFound)
        }
    }

    /// Both family surfaces (the Live tab's list and the OwnTracks answer) against the zone layouts of the shared
    /// surfaces' test (the start inside, an overlapping zone, a zone the ride passes through) and the hidden start:
    /// at every step of a ride east from home, what Bob gets is no position, or one outside every circle (geodesic
    /// distance of the test's own), and once past them Anna's latest position is shown.
    @Test func familySurfacesNeverShowAPositionInsideTheSharersZones() async throws {
        let server = try await TestServer.withAccounts(users: ["anna", "bob"])
        let (_, annasToken) = try await server.addDevice("Anna's phone", user: "anna")
        let (_, bobsToken) = try await server.addDevice("Bob's phone", user: "bob")
        try await server.run { client in
            let anna = try await Session.login(client, "anna"), bob = try await Session.login(client, "bob")
            #expect(try await anna.post("/api/family", json: #"{"user":"bob","hours":1}"#).status == .created)
            for zone in SharedSurfacesPrivacyTests.zones() {
                let added = try await anna.post("/api/privacy-zones", json: #"{"latitude":\#(zone.latitude),"longitude":\#(zone.longitude),"radiusMeters":\#(zone.radius)}"#)
                #expect(added.status == .created)
            }
            #expect(try await anna.patch("/api/privacy-zones", json: #"{"hideEndsMeters":\#(SharedSurfacesPrivacyTests.hiddenEnds)}"#).status == .ok)
            let home = SharedSurfacesPrivacyTests.home
            let start = Coordinate(latitude: home.latitude, longitude: home.longitude)
            let circles = SharedSurfacesPrivacyTests.zones().map { ($0.latitude, $0.longitude, $0.radius) }
                + [(start.latitude, start.longitude, SharedSurfacesPrivacyTests.hiddenEnds)]
            let now = Int(Date().timeIntervalSince1970) - 1_000
            var shownCount = 0
            for step in 0...40 {
                let here = start.destination(distanceMeters: Double(step) * 100, bearingDegrees: 90)
                _ = try await Self.ownTracksPost(client, user: "anna", token: annasToken, latitude: here.latitude, longitude: here.longitude, tst: now + step * 20)
                // Bob's phone: (a real OwnTracks iPhone message from the fixtures).
                let answer = try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic("bob", bobsToken), .contentType: "application/json"],
                    body: ByteBuffer(bytes: try Fixtures.bytes("clients/owntracks/json-schema__location-5s.json")))
                let messages = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [[String: Any]])
                let friendLocations = messages.filter { $0["_type"] as? String == "location" }.map { ($0["lat"] as! Double, $0["lon"] as! Double) }
                let member = try #require((try await bob.get("/api/family").jsonObject()["sharedWithMe"] as? [[String: Any]])?.first)
                let listed = (member["position"] as? [String: Any]).map { [($0["latitude"] as! Double, $0["longitude"] as! Double)] } ?? []
                let inside = circles.contains { TestGeodesic.meters($0.0, $0.1, here.latitude, here.longitude) < $0.2 }
                for (lat, lon) in friendLocations + listed {
                    for (cLat, cLon, radius) in circles {
                        #expect(TestGeodesic.meters(cLat, cLon, lat, lon) >= radius, "step \(step): \(lat), \(lon) inside a circle")
                    }
                }
                if inside { #expect(friendLocations.isEmpty && listed.isEmpty && member["hidden"] as? Bool == true, "step \(step)") }
                // Past every circle and its moved edge (a quarter of the radius): shown, in both.
                let clear = circles.allSatisfy { TestGeodesic.meters($0.0, $0.1, here.latitude, here.longitude) > $0.2 * 1.25 + 1 }
                if clear {
                    #expect(listed.count == 1 && friendLocations.count == 1, "step \(step): not shown")
                    shownCount += 1
                }
            }
            #expect(shownCount > 20)
        }
    }

    @Test func badSharesAreClear4xxAndStoreNothing() async throws {
        let server = try await TestServer.withAccounts(users: ["anna", "bob"])
        try await server.run { client in
            let anna = try await Session.login(client, "anna")
            for body in [
                #"{"user":"bob","hours":0}"#, #"{"user":"bob","hours":8761}"#, #"{"user":"bob","hours":-1}"#, #"{"user":"bob","hours":"2"}"#,
                #"{"user":"bob","hours":1e999}"#, #"{"hours":2}"#, #"{"user":7}"#, #"{"user":null}"#, "[]", "not json",
            ] {
                let answer = try await anna.post("/api/family", json: body)
                #expect(answer.status == .badRequest, "\(body): \(answer.status) \(answer.text)")
            }
            let yourself = try await anna.post("/api/family", json: #"{"user":"anna","hours":null}"#)
            #expect(yourself.status == .badRequest && yourself.text.contains("yourself"))
            let unknown = try await anna.post("/api/family", json: #"{"user":"nobody"}"#)
            #expect(unknown.status == .notFound && unknown.text.contains("no user of that name"))
            #expect((try await anna.get("/api/family").jsonObject()["sharing"] as? [Any])?.isEmpty == true)
            // Guessing names is slowed as guessing passwords is: 5 unknown names, then a wait (Retry-After).
            for name in ["n1", "n2", "n3", "n4"] { #expect(try await anna.post("/api/family", json: #"{"user":"\#(name)"}"#).status == .notFound) }
            let limited = try await anna.post("/api/family", json: #"{"user":"n5"}"#)
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] != nil)
            // Without a session: 401.
            let anonymous = try await client.execute(
                uri: "/api/family", method: .post, headers: [.contentType: "application/json", .origin: Session.origin], body: ByteBuffer(string: #"{"user":"bob"}"#))
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test func aSingleUserServerSaysFamilyNeedsAccounts() async throws {
        let server = try await TestServer()
        _ = try await server.library.store.createUser(name: "bob", passwordHash: nil)
        try await server.run { client in
            let answer = try await client.post("/api/family", json: #"{"user":"bob","hours":2}"#)
            #expect(answer.status == .conflict && answer.text.contains("family_needs_accounts") && answer.text.contains("accounts"))
            let listed = try await client.get("/api/family").jsonObject()
            #expect(listed["available"] as? Bool == false)
            #expect(try await server.library.store.familyCircle(userID: server.library.userID, now: Date()).sharing.isEmpty)
        }
    }

    /// The OwnTracks answer carries a sharer as a friend only where family exists (accounts on): a single-user
    /// server answers `[]` without reading the family circle, even if the database holds a share from a time it ran
    /// with accounts.
    @Test func ownTracksFriendsNeedAccounts() async throws {
        for accounts in [true, false] {
            var server = try await TestServer()
            server.configuration.accounts = accounts
            server.configuration.passwordHasher = .forTesting
            let local = try await server.library.store.localUser()
            let bob = try await server.library.store.createUser(name: "bob", passwordHash: nil)
            let (_, localToken) = try await server.addDevice("Phone", user: local.name)
            let (_, bobToken) = try await server.addDevice("Bob's phone", user: "bob")
            _ = try await server.library.store.shareFamily(with: local.name, userID: bob.id, expiresAt: nil, now: Date())
            let now = Int(Date().timeIntervalSince1970)
            try await server.run { client in
                func post(_ user: String, _ token: String, latitude: Double) async throws -> TestResponse {
                    try await client.execute(
                        uri: "/ingest/owntracks", method: .post,
                        headers: [.authorization: IngestAPITests.basic(user, token), .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"_type":"location","lat":\#(latitude),"lon":8.54,"tst":\#(now),"acc":5}"#))
                }
                #expect(try await post("bob", bobToken, latitude: 47.37).status == .ok)
                let answer = try await post(local.name, localToken, latitude: 47.38)
                #expect(answer.status == .ok)
                if accounts {
                    #expect(answer.text.contains("bob") && answer.text.contains("47.37"), "\(answer.text)")
                } else {
                    #expect(answer.text == "[]")
                }
            }
        }
    }
}

/// A family share revoked or expired answers at once on every instance: every answer is read from the database.
@Suite struct FamilyAcrossInstancesTests {
    @Test(arguments: StoreKind.allCases) func revocationAndExpiryHoldAtOnceOnEveryInstance(_ kind: StoreKind) async throws {
        try await RecordingAcrossInstancesTests.withTwoInstances(kind) { first, second in
            for name in ["anna", "bob"] {
                _ = try await first.store.createUser(name: name, passwordHash: try PasswordHasher.forTesting.hash(TestServer.password(of: name)))
            }
            var serverA = TestServer(library: first), serverB = TestServer(library: second)
            for index in [0, 1] {
                var configuration = index == 0 ? serverA.configuration : serverB.configuration
                configuration.accounts = true
                configuration.passwordHasher = .forTesting
                if index == 0 { serverA.configuration = configuration } else { serverB.configuration = configuration }
            }
            let anna = try #require(try await first.store.user(named: "anna"))
            let phone = try await first.store.createDevice(NewDevice(name: "Phone", tokenHash: "annas-phone-hash", protocolName: "owntracks"), userID: anna.id)
            _ = try await first.store.ingest([TrackerFix(time: Date().addingTimeInterval(-60), latitude: 46.5, longitude: 6.6)], deviceID: phone.id, userID: anna.id, gapSeconds: 1_800)

            let made = try await serverA.run { client in try await Session.login(client, "anna").post("/api/family", json: #"{"user":"bob","hours":null}"#).status }
            #expect(made == .created)
            func bobsMembers() async throws -> [[String: Any]] {
                let text = try await serverB.run { client in try await Session.login(client, "bob").get("/api/family").text }
                return (try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["sharedWithMe"] as? [[String: Any]] ?? []
            }
            #expect(try await bobsMembers().map { $0["user"] as? String } == ["anna"])
            // Revoked on B, where it was not made: gone on B at once.
            let revoked = try await serverB.run { client in try await Session.login(client, "anna").delete("/api/family/bob").status }
            #expect(revoked == .noContent)
            #expect(try await bobsMembers().isEmpty)
            // Expiry: a share ending in a second is shown, and not after it, with nothing done in between.
            _ = try await first.store.shareFamily(with: "bob", userID: anna.id, expiresAt: Date().addingTimeInterval(1.5), now: Date())
            #expect(try await bobsMembers().count == 1)
            try await Task.sleep(for: .milliseconds(1_600))
            #expect(try await bobsMembers().isEmpty)
        }
    }
}
