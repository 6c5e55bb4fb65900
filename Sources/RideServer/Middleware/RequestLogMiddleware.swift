import Hummingbird
import Logging

/// Logs each request at `level` (debug by default) with its method, status and path, secrets left out: the token
/// of a share or live link (`/share/…`, `/live/…`, `/ride/…`, `/api/shares/…`) and the values of `token`, `id` and
/// other query parameters that carry a device's credential (OsmAnd and Traccar send it as `?id=`).
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let level: Logger.Level

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        context.logger.log(
            level: level, "request",
            metadata: ["method": "\(request.method.rawValue)", "path": "\(LogRedaction.redacted(request.uri.path, query: request.uri.query))",
                       "status": "\(response.status.code)"])
        return response
    }
}

/// Paths and queries as they may be logged: without the secrets they carry (`RequestLogMiddleware`,
/// `ErrorMiddleware`).
enum LogRedaction {
    /// Query parameters whose value is a credential.
    static let secretParameters: Set<String> = ["token", "id", "deviceid", "key", "secret", "password", "access_token"]
    /// Paths whose next segment is a link's token.
    static let tokenPrefixes = ["/share/", "/live/", "/ride/", "/api/shares/"]

    /// `/share/abc…/photo?token=x` → `/share/…/photo?token=…`.
    static func redacted(_ path: String, query: String? = nil) -> String {
        var shown = path
        for prefix in tokenPrefixes where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            let end = rest.firstIndex(where: { $0 == "/" || $0 == "." }) ?? rest.endIndex
            shown = prefix + "…" + String(rest[end...])
        }
        guard let query, !query.isEmpty else { return shown.logSafe(limit: 300) }
        let parameters = query.split(separator: "&", omittingEmptySubsequences: false).map { part -> String in
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard pair.count == 2, secretParameters.contains(pair[0].lowercased()) else { return String(part) }
            return String(pair[0]) + "=…"
        }
        return (shown + "?" + parameters.joined(separator: "&")).logSafe(limit: 300)
    }
}
