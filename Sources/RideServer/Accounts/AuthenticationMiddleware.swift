import Foundation
import Hummingbird
import RideStore

/// Says whose request it is, and refuses requests that need someone and have no one.
///
/// - **Accounts off** (the embedded default on 127.0.0.1): every request acts for the local user; no login.
/// - **Accounts on** (`serve` on another address, or `--accounts`): a request carries the session cookie
///   (`bikeride_session`, a random token whose SHA-256 the store keeps), or it may only reach the public
///   addresses: login and logout, `/health`, the ingestion endpoints (which check their device token
///   themselves), share links, the login page and the web app's static files (scripts, styles, icons: no
///   data). Without a session, an API answers 401 JSON and a page redirects to `/login.html`.
///
/// **CSRF.** A state-changing request (not GET, HEAD or OPTIONS) authenticated by the cookie must come from
/// this origin: its `Origin` header, which browsers send with every cross-site and same-site POST, PUT,
/// PATCH and DELETE (fetch included), must be this server's origin — the same scheme (the client's, through a
/// trusted proxy), host and port as the request, or `--public-url`'s; without `Origin`, `Sec-Fetch-Site` must be
/// `same-origin`; with neither (not a modern browser) it is refused. With the cookie's `SameSite=Lax`
/// (not sent on cross-site subrequests at all) this needs no token in the pages and no change to the web
/// app's requests; it is OWASP's "verifying origin with standard headers" defence plus SameSite.
///
/// With accounts off there is no cookie, and being on 127.0.0.1 is the only credential: any web page the user
/// opens could post to the server. The same rule applies to every change, except that a request with neither
/// header is let through: it was not sent by a browser (the command line, a phone app, a script), and a browser
/// always sends `Origin` or `Sec-Fetch-Site` with a change.
struct AuthenticationMiddleware<Context: UserRequestContext>: RouterMiddleware {
    let sessions: SessionAuthority
    /// The user every request acts for when accounts are off.
    let localUserID: UserID
    let accountsRequired: Bool
    /// `--public-url`'s origin (`https://rides.example.org`), which may send changes too.
    var publicOrigin: String? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        guard accountsRequired else {
            if !Self.isSafe(request.method) {
                try Self.checkOrigin(request, scheme: context.clientScheme, publicOrigin: publicOrigin, browserOnly: true)
            }
            context.userID = localUserID
            return try await next(request, context)
        }
        let path = request.uri.path
        if let user = try await sessions.user(of: request) {
            if !Self.isSafe(request.method) { try Self.checkOrigin(request, scheme: context.clientScheme, publicOrigin: publicOrigin) }
            context.userID = user
            return try await next(request, context)
        }
        if Self.isPublic(path) {
            // Login CSRF: another site must not log a browser in to an account of its choosing.
            if (path == "/api/login" || path == "/api/logout"), request.headers[.origin] != nil {
                try Self.checkOrigin(request, scheme: context.clientScheme, publicOrigin: publicOrigin)
            }
            return try await next(request, context)
        }
        if path.hasPrefix("/api/") || path == "/metrics" || path.hasPrefix("/tiles/") { throw APIError.unauthorized }
        if Self.isStaticFile(path) { return try await next(request, context) }
        // A page: the login page, which comes back here afterwards.
        let back = path == "/" || path == "/index.html" ? "" : "?next=" + (path.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        return Response.redirect(to: "/login.html" + back, type: .found)
    }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool { method == .get || method == .head || method == .options }

    /// Addresses anyone may reach: what a login needs, health, ingestion (device tokens), share links.
    static func isPublic(_ path: String) -> Bool {
        path == "/api/login" || path == "/api/logout" || path == "/api/session" || path == "/health" || path == "/login.html"
            || path.hasPrefix("/ingest/") || path.hasPrefix("/share/") || path.hasPrefix("/live/") || path.hasPrefix("/ride/")
    }

    /// The web app's code and styles, which hold no one's data.
    static func isStaticFile(_ path: String) -> Bool {
        path.hasPrefix("/js/") || path.hasPrefix("/css/") || path.hasPrefix("/icons/") || path.hasPrefix("/vendor/")
            || path == "/manifest.webmanifest" || path == "/sw.js" || path == "/favicon.ico"
    }

    /// Refuses a state change that another site could have made (see the type's notes). `browserOnly`: a request
    /// with neither `Origin` nor `Sec-Fetch-Site` passes (accounts off: no browser sent it).
    static func checkOrigin(_ request: Request, scheme: String, publicOrigin: String?, browserOnly: Bool = false) throws {
        if let origin = request.headers[.origin] {
            guard let origin = ServerConfiguration.origin(of: origin) else { throw forbidden }
            let own = request.head.authority.flatMap { ServerConfiguration.origin(of: "\(scheme)://\($0)") }
            guard origin == own || origin == publicOrigin else { throw forbidden }
            return
        }
        if let site = request.headers[.secFetchSite] {
            guard site == "same-origin" else { throw forbidden }
            return
        }
        guard browserOnly else { throw forbidden }
    }

    static var forbidden: APIError {
        APIError(.forbidden, code: "cross_site_request", message: "this request did not come from this site's pages (Origin check)")
    }
}

/// Sessions: made at login, found by their cookie, ended at logout. The cookie carries a 256-bit random token;
/// the store keeps only its SHA-256, so a copy of the database logs no one in.
struct SessionAuthority: Sendable {
    static let cookieName = "bikeride_session"
    /// 30 days: a phone stays logged in for a season of rides; logout ends it at once.
    static let lifetimeSeconds: Double = 30 * 24 * 3600

    let store: any RideStore
    /// Secure cookies (sent over HTTPS only) when the server speaks TLS; also when a proxy says the browser did.
    let usesTLS: Bool

    func user(of request: Request) async throws -> UserID? {
        guard let token = request.cookies[Self.cookieName]?.value, SecretToken.isPlausible(token) else { return nil }
        return try await store.sessionUser(tokenHash: SecretToken.hash(token), now: Date())?.id
    }

    /// A new session's cookie.
    func start(for userID: UserID, request: Request) async throws -> Cookie {
        let token = SecretToken.make()
        try await store.createSession(tokenHash: SecretToken.hash(token), userID: userID, expiresAt: Date().addingTimeInterval(Self.lifetimeSeconds))
        return cookie(token, maxAge: Int(Self.lifetimeSeconds), request: request)
    }

    /// Ends the request's session; the cookie that clears it in the browser.
    func end(_ request: Request) async throws -> Cookie {
        if let token = request.cookies[Self.cookieName]?.value, SecretToken.isPlausible(token) {
            try await store.deleteSession(tokenHash: SecretToken.hash(token))
        }
        return cookie("", maxAge: 0, request: request)
    }

    private func cookie(_ value: String, maxAge: Int, request: Request) -> Cookie {
        let secure = usesTLS || request.headers[.xForwardedProto]?.lowercased() == "https"
        return Cookie(name: Self.cookieName, value: value, maxAge: maxAge, path: "/", secure: secure, httpOnly: true, sameSite: .lax)
    }
}
