import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// Login, logout, sessions, CSRF and rate limits (issue 12 part 1).
@Suite struct AccountsAPITests {
    @Test func accountsAreOffOnLoopbackAndOnElsewhere() {
        var configuration = ServerConfiguration()
        #expect(!configuration.requiresAccounts)
        configuration.host = "0.0.0.0"
        #expect(configuration.requiresAccounts)
        configuration.host = "::1"
        #expect(!configuration.requiresAccounts)
        configuration.accounts = true
        #expect(configuration.requiresAccounts)
    }

    @Test func withoutASessionEveryAPIAnswers401AndPagesGoToLogin() async throws {
        try await TestServer.withAccounts().run { client in
            for uri in ["/api/tracks", "/api/places", "/api/labels", "/api/devices", "/api/live/devices", "/api/config", "/api/recordings/ABCDEFGH", "/metrics"] {
                let response = try await client.get(uri)
                #expect(response.status == .unauthorized, "\(uri)")
                #expect(try response.errorCode() == "unauthorized", "\(uri)")
            }
            #expect(try await client.post("/api/recordings", json: "{}").status == .unauthorized)
            let page = try await client.get("/")
            #expect(page.status == .found && page.headers[.location] == "/login.html")
            // What a login needs stays reachable.
            #expect(try await client.get("/login.html").status == .ok)
            #expect(try await client.get("/health").status == .ok)
            #expect(try await client.get("/js/api.js").status == .ok)
            let session = try await client.get("/api/session")
            #expect(try session.status == .ok && (try session.jsonObject()["user"]) is NSNull)
        }
    }

    @Test func loginGivesASecureCookieAndLogoutEndsIt() async throws {
        try await TestServer.withAccounts().run { client in
            let response = try await client.execute(
                uri: "/api/login", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"name":"anna","password":"secret of anna"}"#))
            #expect(response.status == .ok)
            let cookie = try #require(response.headers[.setCookie])
            #expect(cookie.contains("bikeride_session=") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))  // plain HTTP here; with TLS or X-Forwarded-Proto: https it is Secure
            let anna = try await Session.login(client, "anna")
            #expect(try await anna.get("/api/tracks").status == .ok)
            let me = try await anna.get("/api/session").jsonObject()
            #expect((me["user"] as? [String: Any])?["name"] as? String == "anna" && me["accounts"] as? Bool == true)
            #expect(try await anna.post("/api/logout").status == .noContent)
            #expect(try await anna.get("/api/tracks").status == .unauthorized)
        }
    }

    @Test func secureCookieBehindATLSProxy() async throws {
        try await TestServer.withAccounts().run { client in
            let response = try await client.execute(
                uri: "/api/login", method: .post, headers: [.contentType: "application/json", HTTPField.Name("X-Forwarded-Proto")!: "https"],
                body: ByteBuffer(string: #"{"name":"anna","password":"secret of anna"}"#))
            #expect(response.headers[.setCookie]?.contains("Secure") == true)
        }
    }

    @Test func wrongPasswordAndUnknownNameAnswerAlike() async throws {
        try await TestServer.withAccounts().run { client in
            for body in [#"{"name":"anna","password":"wrong password"}"#, #"{"name":"nobody","password":"secret of anna"}"#, #"{"name":"","password":""}"#] {
                let response = try await client.post("/api/login", json: body)
                #expect(try response.status == .unauthorized && (try response.errorCode()) == "invalid_login")
                #expect(response.headers[.setCookie] == nil)
            }
            #expect(try await client.post("/api/login", json: #"{"name":1}"#).status == .badRequest)
        }
    }

    @Test func repeatedFailuresAreRateLimitedPerName() async throws {
        try await TestServer.withAccounts().run { client in
            for _ in 0..<5 {
                #expect(try await client.post("/api/login", json: #"{"name":"anna","password":"guess guess"}"#).status == .unauthorized)
            }
            let limited = try await client.post("/api/login", json: #"{"name":"anna","password":"secret of anna"}"#)
            #expect(try limited.status == .tooManyRequests && (try limited.errorCode()) == "too_many_attempts")
            #expect(Int(limited.headers[.retryAfter] ?? "") ?? 0 > 0)
            // Another name is not locked out by anna's failures.
            #expect(try await client.post("/api/login", json: #"{"name":"bob","password":"secret of bob"}"#).status == .ok)
        }
    }

    @Test func rateLimiterCountsPerAddressToo() async {
        let limiter = LoginRateLimiter(limits: .init(failuresPerName: 100, failuresPerAddress: 3, windowSeconds: 60))
        let now = Date()
        for index in 0..<3 { #expect(await limiter.reserve(name: "user\(index)", address: "10.0.0.1", now: now) == nil) }
        #expect(await limiter.reserve(name: "someone", address: "10.0.0.1", now: now) != nil)
        #expect(await limiter.reserve(name: "someone", address: "10.0.0.2", now: now) == nil)
        #expect(await limiter.reserve(name: "someone", address: "10.0.0.1", now: now.addingTimeInterval(61)) == nil)
    }

    @Test func stateChangesFromAnotherSiteAreRefused() async throws {
        try await TestServer.withAccounts().run { client in
            let anna = try await Session.login(client, "anna")
            let body = ByteBuffer(string: #"{"name":"Home","latitude":1,"longitude":2}"#)
            // Another origin: refused, nothing made.
            let crossSite = try await client.execute(
                uri: "/api/places", method: .post,
                headers: [.cookie: anna.cookie, .origin: "https://evil.example", .contentType: "application/json"], body: body)
            #expect(try crossSite.status == .forbidden && (try crossSite.errorCode()) == "cross_site_request")
            // No Origin and no Sec-Fetch-Site: not a browser's same-origin request, refused.
            let bare = try await client.execute(
                uri: "/api/places", method: .post, headers: [.cookie: anna.cookie, .contentType: "application/json"], body: body)
            #expect(bare.status == .forbidden)
            let answer115 = try await anna.get("/api/places")
            #expect(try (answer115.jsonObject()["places"] as? [Any])?.isEmpty == true)
            // Sec-Fetch-Site: same-origin without Origin, and the page's own Origin, pass.
            let sameOrigin = try await client.execute(
                uri: "/api/places", method: .post,
                headers: [.cookie: anna.cookie, HTTPField.Name("Sec-Fetch-Site")!: "same-origin", .contentType: "application/json"], body: body)
            #expect(sameOrigin.status == .created)
            #expect(try await anna.post("/api/places", json: #"{"name":"Work","latitude":1,"longitude":2}"#).status == .created)
            // Login from another site's page is refused too (login CSRF).
            let foreignLogin = try await client.execute(
                uri: "/api/login", method: .post, headers: [.origin: "https://evil.example", .contentType: "application/json"],
                body: ByteBuffer(string: #"{"name":"bob","password":"secret of bob"}"#))
            #expect(foreignLogin.status == .forbidden)
            // Reading needs no Origin.
            #expect(try await client.execute(uri: "/api/places", method: .get, headers: [.cookie: anna.cookie]).status == .ok)
        }
    }

    @Test func aForgedOrExpiredCookieIsNoSession() async throws {
        try await TestServer.withAccounts().run { client in
            for cookie in ["bikeride_session=" + SecretToken.make(), "bikeride_session=../../x", "bikeride_session=", "other=1"] {
                let answer130 = try await client.execute(uri: "/api/tracks", method: .get, headers: [.cookie: cookie])
                #expect(answer130.status == .unauthorized)
            }
        }
    }

    /// The embedded default: no login at all, the existing API as before.
    @Test func loopbackDefaultNeedsNoLogin() async throws {
        try await TestServer().run { client in
            #expect(try await client.get("/api/tracks").status == .ok)
            #expect(try await client.post("/api/places", json: #"{"name":"Home","latitude":1,"longitude":2}"#).status == .created)
            let session = try await client.get("/api/session").jsonObject()
            #expect((session["user"] as? [String: Any])?["name"] as? String == "local" && session["accounts"] as? Bool == false)
        }
    }
}
