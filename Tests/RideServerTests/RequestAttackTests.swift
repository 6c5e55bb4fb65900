import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import RideStore
import Testing

/// What another web site, a rebinding DNS name or a malformed request can do to a server (issue 20, findings 4, 6,
/// 7 and 8): each attack as a request, and what must come of it.
@Suite struct RequestAttackTests {
    static let place = ByteBuffer(string: #"{"name":"Home","latitude":1,"longitude":2}"#)

    static func placeCount(_ client: any TestClientProtocol) async throws -> Int {
        try (await client.get("/api/places").jsonObject()["places"] as? [Any])?.count ?? -1
    }

    /// The default server (no accounts, 127.0.0.1) takes no change from another site's page: a foreign Origin, a
    /// cross-site fetch, or a body another site can post without asking (a form, text/plain). The web app's own
    /// requests, and a client that is no browser (the command line, a script), still pass.
    @Test func theDefaultServerRefusesWritesFromOtherSites() async throws {
        try await TestServer().run { client in
            let json: HTTPFields = [.contentType: "application/json"]
            for origin in ["https://evil.example", "http://localhost:8081", "https://localhost", "null"] {
                var headers = json
                headers[.origin] = origin
                let response = try await client.execute(uri: "/api/places", method: .post, headers: headers, body: Self.place)
                #expect(response.status == .forbidden, "Origin \(origin)")
            }
            var crossSite = json
            crossSite[.secFetchSite] = "cross-site"
            #expect(try await client.execute(uri: "/api/places", method: .post, headers: crossSite, body: Self.place).status == .forbidden)
            for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
                let response = try await client.execute(uri: "/api/places", method: .post, headers: [.contentType: type], body: Self.place)
                #expect(response.status == .unsupportedMediaType, "\(type)")
            }
            #expect(try await client.execute(uri: "/api/places", method: .post, body: Self.place).status == .unsupportedMediaType)
            #expect(try await Self.placeCount(client) == 0)
            // The page's own Origin, a same-origin fetch, and no browser at all.
            var own = json
            own[.origin] = "http://localhost"
            #expect(try await client.execute(uri: "/api/places", method: .post, headers: own, body: Self.place).status == .created)
            var sameOrigin = json
            sameOrigin[.secFetchSite] = "same-origin"
            #expect(try await client.execute(uri: "/api/places", method: .post, headers: sameOrigin, body: Self.place).status == .created)
            #expect(try await client.execute(uri: "/api/places", method: .post, headers: json, body: Self.place).status == .created)
            // A device made from another site would hand it a token.
            var evil = json
            evil[.origin] = "https://evil.example"
            let device = try await client.execute(uri: "/api/devices", method: .post, headers: evil, body: ByteBuffer(string: #"{"name":"x"}"#))
            #expect(device.status == .forbidden)
        }
    }

    /// With accounts on, the Origin must be this server's in scheme, host and port (it was enough to share the host).
    @Test func theOriginMustMatchSchemeHostAndPort() async throws {
        try await TestServer.withAccounts().run { client in
            let anna = try await Session.login(client, "anna")
            for origin in ["http://localhost:8081", "https://localhost", "http://localhost.evil.example"] {
                let response = try await anna.request("/api/places", .post, json: #"{"name":"A","latitude":1,"longitude":2}"#, headers: [.origin: origin])
                #expect(response.status == .forbidden, "Origin \(origin)")
            }
            #expect(try await anna.post("/api/places", json: #"{"name":"A","latitude":1,"longitude":2}"#).status == .created)
        }
    }

    /// Behind a trusted proxy that terminates TLS, the browser's origin is https: believed from the proxy only.
    @Test func theSchemeComesFromATrustedProxyOnly() async throws {
        var server = try await TestServer()
        server.configuration.trustedProxies = ["127.0.0.1"]
        try await server.run(live: true) { client async throws in
            let headers: HTTPFields = [.contentType: "application/json", .origin: "https://localhost", .xForwardedProto: "https"]
            #expect(try await client.execute(uri: "/api/places", method: .post, headers: headers, body: Self.place).status == .created)
        }
        try await TestServer().run(live: true) { client async throws in
            let headers: HTTPFields = [.contentType: "application/json", .origin: "https://localhost", .xForwardedProto: "https"]
            #expect(try await client.execute(uri: "/api/places", method: .post, headers: headers, body: Self.place).status == .forbidden)
        }
    }

    /// DNS rebinding: a page on a name its owner points at 127.0.0.1 reaches the server with that name in `Host`; the
    /// default server answers 421 to any host it does not serve, and serves its loopback names, `--host` and the
    /// host of `--public-url`.
    @Test func aHostTheServerDoesNotServeIsMisdirected() async throws {
        var server = try await TestServer()
        server.configuration.publicURL = "https://rides.example.org"
        try await server.run(live: true) { client in
            let port = try #require(client.port)
            for (host, served) in [
                ("evil.example:\(port)", false), ("127.0.0.1.evil.example", false), ("localhost.evil.example", false),
                ("localhost:\(port)", true), ("127.0.0.1:\(port)", true), ("[::1]:\(port)", true), ("rides.example.org", true),
            ] {
                let connection = try RawConnection(port: port)
                connection.send("GET /api/tracks HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n")
                let answer = await connection.receive(seconds: 10).text
                #expect(answer.hasPrefix(served ? "HTTP/1.1 200" : "HTTP/1.1 421"), "Host \(host): \(answer.prefix(40))")
            }
        }
    }

    /// Every answer of the app (pages, scripts, API, errors) carries the security headers; private API answers are
    /// not to be stored.
    @Test(arguments: ["/", "/index.html", "/login.html", "/js/app.js", "/api/tracks", "/api/no-such-thing", "/health"])
    func everyAnswerCarriesTheSecurityHeaders(path: String) async throws {
        try await TestServer().run { client in
            let response = try await client.get(path)
            let policy = try #require(response.headers[.contentSecurityPolicy], "\(path)")
            #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-eval") && policy.contains("frame-ancestors 'none'"))
            #expect(!(policy.split(separator: ";").first { $0.contains("script-src") } ?? "").contains("unsafe-inline"))
            #expect(response.headers[.xContentTypeOptions] == "nosniff")
            #expect(response.headers[.referrerPolicy] != nil)
            if path.hasPrefix("/api/") { #expect(response.headers[.cacheControl] == "no-store", "\(path)") }
        }
    }

    /// `script-src 'self'` runs no inline script: the pages have none, nor inline event handlers.
    @Test func thePagesHaveNoInlineScript() throws {
        let web = URL(filePath: ServerConfiguration.defaultWebRoot())
        for page in ["index.html", "login.html"] {
            let html = try String(contentsOf: web.appending(path: page), encoding: .utf8)
            let scripts = html.components(separatedBy: "<script").dropFirst()
            #expect(scripts.allSatisfy { $0.prefix(while: { $0 != ">" }).contains("src=") }, "\(page)")
            #expect(html.range(of: #"\son[a-z]+\s*="#, options: .regularExpression) == nil, "\(page)")
        }
    }

    /// A share link's token and a device's token (OsmAnd's `?id=`) never reach the log, at any level.
    @Test func tokensAreLeftOutOfTheLog() async throws {
        let (logger, records) = CapturingLogHandler.logger()
        var server = try await TestServer()
        server.configuration.logLevel = .trace
        let app = try buildApplication(configuration: server.configuration, library: server.library, logger: logger)
        let shareToken = "SHARETOKEN" + String(repeating: "x", count: 30)
        let deviceToken = "DEVICETOKEN" + String(repeating: "y", count: 30)
        try await app.test(.router) { client in
            _ = try await client.get("/share/\(shareToken)")
            _ = try await client.get("/share/\(shareToken)/photos/1")
            _ = try await client.get("/live/\(shareToken).json")
            _ = try await client.execute(uri: "/api/shares/\(shareToken)", method: .delete)
            _ = try await client.post("/ingest/osmand?id=\(deviceToken)&lat=1&lon=2")
            _ = try await client.get("/ingest/osmand?lat=1&lon=2&token=\(deviceToken)")
        }
        let lines = records.messages
        #expect(lines.count >= 6)
        #expect(!lines.contains { $0.contains("SHARETOKEN") || $0.contains("DEVICETOKEN") }, "\(lines.filter { $0.contains("TOKEN") })")
    }

    /// A `Transfer-Encoding` the server cannot read is the client's mistake: 400, not 500.
    @Test func aMalformedTransferEncodingIs400() async throws {
        try await TestServer().run(live: true) { client in
            let port = try #require(client.port)
            for encoding in ["gzip", "chunked, chunked", "bogus", "chunked\u{1}"] {
                let connection = try RawConnection(port: port)
                connection.send(
                    "POST /api/places HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: \(encoding)\r\n\r\n"
                        + "5\r\nhello\r\n0\r\n\r\n")
                let answer = await connection.receive(seconds: 10).text
                // Before: 500 for "gzip" and "bogus", which the decoder refuses only once the body is read.
                #expect(answer.hasPrefix("HTTP/1.1 400"), "\(encoding): \(answer.prefix(60))")
            }
        }
    }
}

/// Files the server makes hold everyone's data: readable by their owner only.
@Suite struct DataFileModeTests {
    @Test func theDatabaseIsCreatedReadableByItsOwnerOnly() async throws {
        let database = try TemporaryStore()
        let library = try await database.open()
        _ = try await library.store.localUser()
        for suffix in ["", "-wal"] {
            let path = database.databasePath + suffix
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
            #expect(mode.intValue & 0o777 == 0o600, "\(path): \(String(mode.intValue, radix: 8))")
        }
    }
}
