import Foundation
import Hummingbird
import NIOHTTP1
import RideKit
import RideStore

/// An error the API answers with: an HTTP status, a code a program can test, a message a person can act on.
///
/// Written as `{"error": {"code": "...", "message": "..."}}`. `ErrorMiddleware` turns every other error
/// into one of these, in one place (`APIError.init(from:)`).
public struct APIError: Error, Sendable, Hashable {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String
    /// Sent as `Retry-After` (a 429 or 503 that knows when to come back: login attempts, the geocoder's queue).
    public var retryAfterSeconds: Int?

    public init(_ status: HTTPResponse.Status, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(.badRequest, code: code, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(.notFound, code: "not_found", message: message) }
}

extension APIError {
    /// The mapping of every error the server meets to a status and a code.
    init(from error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as RecordingError:
            switch error {
            case .invalidFix:
                self = .badRequest("invalid_fix", error.description + "; nothing of this batch was stored")
            case .batchTooLarge:
                self = APIError(.contentTooLarge, code: "batch_too_large", message: error.description)
            case .invalidTransition:
                self = APIError(.conflict, code: "invalid_state", message: error.description)
            }
        case let error as RideStoreError:
            switch error {
            case .notFound(let kind, let id): self = .notFound("no \(kind) with id \(id)")
            case .invalid: self = .badRequest("invalid_value", error.description)
            case .invalidFile(_, let reason): self = APIError(.unprocessableContent, code: "invalid_file", message: Self.located(reason))
            case .conflict: self = APIError(.conflict, code: "conflict", message: error.description)
            case .unsupported:
                // Not a failure to retry: bikeride does not do what was asked (writing TCX, say).
                self = APIError(.notImplemented, code: "not_implemented", message: error.description)
            case .unavailable:
                // PostgreSQL restarting or out of reach: the client's retry (every app retries a 503) will work.
                self = APIError(.serviceUnavailable, code: "store_unavailable", message: "the database cannot be reached now; send again later",
                    retryAfterSeconds: 5)
            case .limitExceeded:
                self = APIError(.contentTooLarge, code: "limit_exceeded", message: error.description)
            case .nothingToImport:
                self = APIError(.unprocessableContent, code: "nothing_to_import", message: error.description)
            case .busy(let reason, let seconds):
                self = APIError(.serviceUnavailable, code: "busy", message: reason, retryAfterSeconds: seconds)
            case .damaged, .database, .io:
                self = APIError(.internalServerError, code: "store_error", message: "the store failed; the request may be retried")
            }
        case let error as DecodingError:
            self = APIError.decoding(error)
        case let error as any HTTPResponseError:
            switch error.status {
            case .notFound: self = .notFound("nothing at this address")
            case .contentTooLarge:
                self = APIError(.contentTooLarge, code: "body_too_large", message: "the request body is larger than this endpoint accepts")
            case .methodNotAllowed:
                self = APIError(.methodNotAllowed, code: "method_not_allowed", message: "this address does not take that method")
            default:
                let reason = (error as? HTTPError)?.body ?? error.status.reasonPhrase
                self = APIError(error.status, code: error.status.code < 500 ? "bad_request" : "server_error", message: reason)
            }
        case let error as HTTPParserError:
            // The request itself is malformed (a Transfer-Encoding or a chunk that cannot be read, found while the
            // body was being read): the client's fault, not the server's.
            self = APIError(.badRequest, code: "bad_request", message: "the request is not valid HTTP/1.1 (\(error))")
        default:
            self = APIError(.internalServerError, code: "internal", message: "the server failed; the request may be retried")
        }
    }

    /// A reader's `12:5: message` (line and column) as `line 12, column 5: message`; other reasons as they are.
    static func located(_ reason: String) -> String {
        let parts = reason.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let line = Int(parts[0]), let column = Int(parts[1]) else { return "cannot read the file: " + reason }
        return "line \(line), column \(column):" + parts[2]
    }

    /// JSON that does not parse, or has the wrong shape: which field, and what was expected.
    static func decoding(_ error: DecodingError) -> APIError {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the body" : String(text.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(let type, let context):
            return .badRequest("wrong_type", "\(path(context.codingPath)) must be \(typeName(type))")
        case .valueNotFound(let type, let context):
            return .badRequest("wrong_type", "\(path(context.codingPath)) must be \(typeName(type)), not null")
        case .keyNotFound(let key, let context):
            return .badRequest("missing_field", "\(path(context.codingPath + [key])) is required")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                // Foundation's parser also refuses numbers out of Double's range (1e400) here.
                let detail = (context.underlyingError as? NSError)?.userInfo[NSDebugDescriptionErrorKey] as? String
                return .badRequest("bad_json", "the body is not valid JSON" + (detail.map { " (\($0))" } ?? ""))
            }
            return .badRequest("invalid_value", "\(path(context.codingPath)): \(context.debugDescription)")
        @unknown default:
            return .badRequest("bad_json", "the body could not be read")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type: return "a number"
        case is Int.Type, is Int64.Type: return "an integer"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        case is [Any].Type: return "an array"
        default: return type == [String: Any].self ? "an object" : "of type \(type)"
        }
    }
}

/// The body of an error answer.
struct APIErrorBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }
    var error: Detail
}
