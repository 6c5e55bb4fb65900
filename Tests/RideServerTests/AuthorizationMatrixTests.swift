import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import RideStore
import Testing

/// Every route of the router × every kind of credential (issue 20, "How it is checked"): what needs a session
/// answers 401 to everything else — a device's token (as Bearer, Basic or `?token=`/`?id=`), a live or place share
/// link's token — and what needs a device token takes no session and no share token; a link page with a token never
/// made is 404. The routes come from the router itself, each with its rule in `rule(method:path:)`: a route added
/// without one fails the test until it gets one. (Another user's session on this user's ids: `IsolationTests`.)
@Suite struct AuthorizationMatrixTests {
    enum Rule: Sendable {
        /// The user's data: a session cookie (accounts on).
        case session
        /// A phone app's post: its device token.
        case device
        /// Anyone: login, health, share and live link pages (their own token in the path), the web app's files.
        case open
    }

    /// The rule of each route, by `METHOD path` as the router prints it.
    static func rule(method: HTTPRequest.Method, path: String) -> Rule? {
        if path.hasPrefix("/ingest/") { return .device }
        if ["/api/login", "/api/logout", "/api/session", "/health"].contains(path) { return .open }
        if path.hasPrefix("/share/") || path.hasPrefix("/live/") || path.hasPrefix("/ride/") || path.hasPrefix("/vendor/") { return .open }
        if path.hasPrefix("/api/") || path == "/metrics" || path.hasPrefix("/tiles/") { return .session }
        return nil
    }

    /// A concrete address for a route's pattern: every parameter an id that could exist.
    static func concrete(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { part -> String in
            if part.hasPrefix("{") || part.hasPrefix(":") { return "ABCDEFGH" }
            if part == "*" || part == "**" { return "x" }
            return String(part)
        }.joined(separator: "/")
    }

    @Test func everyRouteRefusesEveryCredentialItDoesNotTake() async throws {
        var server = try await TestServer.withAccounts()
        let tilesPath = try makeMBTiles()
        server.configuration.tilesPath = tilesPath
        let router = buildRouter(configuration: server.configuration, library: server.library, tiles: try MBTilesReader(path: tilesPath))
        let routes = router.routes.map { (method: $0.method, path: "\($0.path)") }
        #expect(routes.count > 40)
        let unruled = routes.filter { Self.rule(method: $0.method, path: $0.path) == nil }.map { "\($0.method) \($0.path)" }
        #expect(unruled.isEmpty, "routes without an authorization rule: \(unruled)")

        let (_, deviceToken) = try await server.addDevice("Anna's phone", user: "anna")
        try await server.run { client in
            let anna = try await Session.login(client, "anna")
            let place = try await anna.post("/api/places", json: #"{"name":"Home","latitude":1,"longitude":2}"#).jsonObject()
            let placeID = try #require(place["id"] as? String)
            let placeShare = try await anna.post("/api/places/\(placeID)/share").jsonObject()
            let placeToken = try #require((placeShare["token"] as? String) ?? (placeShare["url"] as? String)?.split(separator: "/").last.map(String.init))
            let devices = try await anna.get("/api/devices").jsonObject()
            let deviceID = try #require(((devices["devices"] as? [[String: Any]])?.first)?["id"] as? String)
            let liveShare = try await anna.post("/api/devices/\(deviceID)/share").jsonObject()
            let liveToken = try #require((liveShare["token"] as? String) ?? (liveShare["url"] as? String)?.split(separator: "/").last.map(String.init))

            // (name, extra headers, extra query) of each credential that is not a session.
            let credentials: [(String, HTTPFields, String)] = [
                ("no credential", [:], ""),
                ("device token as Bearer", [.authorization: "Bearer \(deviceToken)"], ""),
                ("device token as Basic", [.authorization: IngestAPITests.basic("anna", deviceToken)], ""),
                ("device token as ?token=", [:], "token=\(deviceToken)"),
                ("device token as ?id=", [:], "id=\(deviceToken)"),
                ("place share token", [.authorization: "Bearer \(placeToken)"], "token=\(placeToken)"),
                ("live share token", [.authorization: "Bearer \(liveToken)"], "token=\(liveToken)"),
            ]
            var checked = 0
            for route in routes {
                let rule = try #require(Self.rule(method: route.method, path: route.path))
                let path = Self.concrete(route.path)
                if rule == .open {
                    // A link's page with a token that was never made: nothing, as for one revoked.
                    if path.hasPrefix("/share/") || path.hasPrefix("/live/") || path.hasPrefix("/ride/") {
                        #expect(try await client.execute(uri: path, method: route.method).status == .notFound, "\(path)")
                    }
                    continue
                }
                for (name, headers, query) in credentials {
                    if rule == .device, name.hasPrefix("device token") { continue }
                    let uri = query.isEmpty ? path : path + (path.contains("?") ? "&" : "?") + query
                    var fields = headers
                    fields[.origin] = Session.origin
                    if route.method != .get && route.method != .head { fields[.contentType] = "application/json" }
                    let answer = try await client.execute(uri: uri, method: route.method, headers: fields, body: ByteBuffer(string: "{}"))
                    #expect(answer.status == .unauthorized, "\(route.method) \(route.path) with \(name): \(answer.status)")
                    checked += 1
                }
                if rule == .device {
                    // A session is not a device's token.
                    let answer = try await anna.request(path, route.method, json: "{}")
                    #expect(answer.status == .unauthorized, "\(route.method) \(route.path) with a session: \(answer.status)")
                    checked += 1
                }
            }
            #expect(checked > 300, "\(checked) checks")
        }
    }
}
