import Foundation
import Hummingbird
import Logging

/// Turns every error into a JSON answer with the right status (`APIError.init(from:)`), counts every
/// answer for `/metrics`, and logs failures: the one place where errors become HTTP.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            let response = try await next(request, context)
            metrics.countRequest(method: request.method.rawValue, status: response.status.code)
            return response
        } catch {
            let apiError = APIError(from: error)
            let level = Self.logLevel(for: apiError)
            if level >= .warning {
                context.logger.log(
                    level: level, "request failed", metadata: ["error": "\(error)", "path": "\(LogRedaction.redacted(request.uri.path))"])
            } else if apiError.status.code >= 500 {
                context.logger.log(
                    level: level, "request deferred",
                    metadata: ["code": "\(apiError.code)", "retryAfter": "\(apiError.retryAfterSeconds ?? 0)", "path": "\(LogRedaction.redacted(request.uri.path))"])
            } else {
                context.logger.info(
                    "request refused",
                    metadata: ["code": "\(apiError.code)", "status": "\(apiError.status.code)", "path": "\(LogRedaction.redacted(request.uri.path))"])
            }
            metrics.countRequest(method: request.method.rawValue, status: apiError.status.code)
            return Self.response(for: apiError)
        }
    }

    /// How loud a failed request is in the log. A 5xx that tells the client when to come back (`Retry-After`: the
    /// heatmap's first build under way, a gate full) is the server working as designed, not a fault: `notice`, or
    /// `warning` when the database is out of reach. Other 5xx are faults (`error`); 4xx are the client's (`info`).
    static func logLevel(for error: APIError) -> Logger.Level {
        guard error.status.code >= 500 else { return .info }
        guard error.retryAfterSeconds != nil else { return .error }
        return error.code == "store_unavailable" ? .warning : .notice
    }

    static func response(for error: APIError) -> Response {
        let body = APIErrorBody(error: .init(code: error.code, message: error.message))
        let data = (try? JSONEncoder().encode(body)) ?? Data(#"{"error":{"code":"internal","message":""}}"#.utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        if let seconds = error.retryAfterSeconds { headers[.retryAfter] = String(seconds) }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
