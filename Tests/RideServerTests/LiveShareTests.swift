import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// Live share links (issue 12 part 4): read-only, no session, expiring, revocable, limited to a ride if asked.
@Suite struct LiveShareTests {
    static func post(_ client: any TestClientProtocol, token: String, lat: Double, at time: Int, user: String = "local") async throws {
        let body = #"{"_type":"location","lat":\#(lat),"lon":6.6,"tst":\#(time),"batt":64,"vel":18}"#
        let response = try await client.execute(
            uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic(user, token)], body: ByteBuffer(string: body))
        #expect(response.status == .ok)
    }

    @Test func aLinkShowsPositionPathAndUpdateTimeUntilRevoked() async throws {
        let server = try await TestServer()
        let (device, token) = try await server.addDevice("Anna <b>bike</b>", user: "local")
        let now = Int(Date().timeIntervalSince1970)
        try await server.run { client in
            try await Self.post(client, token: token, lat: 46.50, at: now - 120)
            let created = try await client.post("/api/devices/\(device.id)/share", json: #"{"hours":2}"#)
            #expect(created.status == .created)
            let object = try created.jsonObject()
            let url = try #require(object["url"] as? String)
            let shareToken = try #require(object["token"] as? String)
            try await Self.post(client, token: token, lat: 46.51, at: now - 60)

            let page = try await client.get(url)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8" && page.headers[.refresh] == "15")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(page.text.contains("Anna &lt;b&gt;bike&lt;/b&gt;") && !page.text.contains("<b>bike"))  // escaped
            #expect(page.text.contains("46.51000, 6.60000") && page.text.contains("battery 64 %") && page.text.contains("<polyline"))
            #expect(page.text.contains("Last update"))
            let json = try await client.get(url + ".json").jsonObject()
            #expect((json["path"] as? [[Double]])?.count == 2)
            #expect((json["lastFix"] as? [String: Any])?["latitude"] as? Double == 46.51)

            #expect(try await client.execute(uri: "/api/shares/\(shareToken)", method: .delete).status == .noContent)
            #expect(try await client.get(url).status == .notFound)
            #expect(try await client.get(url + ".json").status == .notFound)
            // A place's share address does not show a device, nor the other way round.
            #expect(try await client.get("/share/\(shareToken)").status == .notFound)
            #expect(try await client.get("/live/not-a-token").status == .notFound)
        }
    }

    @Test func aLinkExpiresAndOneForARideEndsWithIt() async throws {
        let server = try await TestServer()
        let (device, token) = try await server.addDevice("Phone", user: "local")
        let now = Int(Date().timeIntervalSince1970)
        // An expired link: made directly in the store with a time in the past.
        let expired = try await server.library.store.createLiveShare(
            token: SecretToken.make(), deviceID: device.id, userID: server.library.userID, expiresAt: Date().addingTimeInterval(-1), untilRideEnds: false)
        try await server.run { client in
            #expect(try await client.get("/live/\(expired.token)").status == .notFound)
            // For a ride: needs one in progress.
            #expect(try await client.post("/api/devices/\(device.id)/share", json: #"{"untilRideEnds":true}"#).status == .conflict)
            try await Self.post(client, token: token, lat: 46.50, at: now - 7200)
            let created = try await client.post("/api/devices/\(device.id)/share", json: #"{"untilRideEnds":true,"hours":24}"#)
            #expect(created.status == .created)
            let url = try #require(try created.jsonObject()["url"] as? String)
            #expect(try await client.get(url).status == .ok)
            // An hour later (more than the 30 min gap) a new ride starts: the first one ended, and so did the link.
            try await Self.post(client, token: token, lat: 46.60, at: now - 60)
            #expect(try await client.get(url).status == .notFound)
            for body in [#"{"hours":0}"#, #"{"hours":1000}"#, #"{"hours":"x"}"#] {
                #expect(try await client.post("/api/devices/\(device.id)/share", json: body).status == .badRequest)
            }
        }
    }

    @Test func anotherUserCannotShareYourDevice() async throws {
        let server = try await TestServer.withAccounts()
        let (device, _) = try await server.addDevice("Anna's phone", user: "anna")
        try await server.run { client in
            let bob = try await Session.login(client, "bob")
            #expect(try await bob.post("/api/devices/\(device.id)/share", json: "{}").status == .notFound)
            let anna = try await Session.login(client, "anna")
            let created = try await anna.post("/api/devices/\(device.id)/share", json: "{}")
            #expect(created.status == .created)
            let token = try #require(try created.jsonObject()["token"] as? String)
            // Bob cannot revoke it; anyone with the link sees it without a session.
            #expect(try await bob.delete("/api/shares/\(token)").status == .notFound)
            #expect(try await client.get("/live/\(token)").status == .ok)
        }
    }
}
