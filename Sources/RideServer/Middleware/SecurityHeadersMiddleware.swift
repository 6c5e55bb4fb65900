import Hummingbird

/// The headers that keep the app's own pages and answers from being used against their user, on every answer
/// (errors too) that has not set its own: a Content-Security-Policy that runs only this server's scripts (the
/// pages have no inline script) and lets no other site frame a page, `nosniff`, a `Referrer-Policy` that tells
/// tile servers the site but never a page's address, and `Cache-Control: no-store` on the private API's answers,
/// so that no shared cache or browser history keeps someone's data. Share, live and photo answers set stricter
/// ones of their own, which are kept.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The policy of the app's pages.
    let contentSecurityPolicy: String

    /// `scriptOrigins`: origins scripts and styles may also come from (Leaflet's public copy, when it is not
    /// installed here).
    init(scriptOrigins: [String] = []) {
        let extra = scriptOrigins.map { " " + $0 }.joined()
        contentSecurityPolicy = [
            "default-src 'self'",
            "script-src 'self'" + extra,
            // Leaflet positions its panes with style attributes.
            "style-src 'self' 'unsafe-inline'" + extra,
            // Map tiles come from the configured tile servers, whichever they are; an image runs nothing.
            "img-src * data: blob:",
            "connect-src 'self'" + extra,
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        let path = request.uri.path
        if response.headers[.contentSecurityPolicy] == nil { response.headers[.contentSecurityPolicy] = contentSecurityPolicy }
        if response.headers[.xContentTypeOptions] == nil { response.headers[.xContentTypeOptions] = "nosniff" }
        if response.headers[.referrerPolicy] == nil { response.headers[.referrerPolicy] = "strict-origin-when-cross-origin" }
        if response.headers[.xFrameOptions] == nil { response.headers[.xFrameOptions] = "DENY" }
        if (path.hasPrefix("/api/") || path == "/metrics"), response.headers[.cacheControl] == nil {
            response.headers[.cacheControl] = "no-store"
        }
        return response
    }
}
