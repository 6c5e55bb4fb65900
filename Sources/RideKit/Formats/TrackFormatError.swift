import Foundation

/// Why a JSON track file (`.gpx436`) or a GeoJSON file was refused.
///
/// `path` names the place in the JSON, as in `segments[0].coords[12].latitude` or
/// `features[3].geometry.coordinates[0][7]`; the empty path is the whole document.
public enum TrackFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The bytes are not JSON (numbers beyond a Double's range, such as `1e400`, land here too: the JSON
    /// parser refuses them).
    case invalidJSON(format: String, reason: String)
    /// A key the format requires is absent.
    case missingKey(format: String, path: String)
    /// A value has the wrong JSON type (or is null where a value is required).
    case wrongType(format: String, path: String, expected: String)
    /// A position that is not finite, or whose latitude is outside −90…90 or longitude outside −180…180.
    case invalidCoordinate(format: String, path: String, latitude: Double, longitude: Double)
    /// A value of the right type that the format cannot accept (a time out of range, a malformed timestamp…).
    case invalidValue(format: String, path: String, reason: String)
    /// The document holds nothing bikeride can import, or a structure it does not support.
    case unsupported(format: String, reason: String)

    public var description: String {
        switch self {
        case .invalidJSON(let format, let reason):
            return "\(format): not valid JSON (\(reason))"
        case .missingKey(let format, let path):
            return "\(format): missing required key '\(path)'"
        case .wrongType(let format, let path, let expected):
            return "\(format): \(Self.place(path)) must be \(expected)"
        case .invalidCoordinate(let format, let path, let latitude, let longitude):
            return "\(format): \(Self.place(path)) has latitude \(latitude), longitude \(longitude); "
                + "latitude must be within -90...90 and longitude within -180...180"
        case .invalidValue(let format, let path, let reason):
            return "\(format): \(Self.place(path)) \(reason)"
        case .unsupported(let format, let reason):
            return "\(format): \(reason)"
        }
    }

    private static func place(_ path: String) -> String {
        path.isEmpty ? "the document" : "'\(path)'"
    }
}

extension TrackFormatError {
    /// The path of a Codable error, in the JSON's own terms: `segments[0].coords[3].time`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }

    /// Maps a `JSONDecoder` error to a message a user can act on.
    static func decoding(_ error: any Error, format: String) -> TrackFormatError {
        guard let error = error as? DecodingError else {
            return .invalidJSON(format: format, reason: "\(error)")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .missingKey(format: format, path: path(context.codingPath + [key]))
        case .typeMismatch(let type, let context):
            return .wrongType(format: format, path: path(context.codingPath), expected: describe(type))
        case .valueNotFound(let type, let context):
            return .wrongType(format: format, path: path(context.codingPath), expected: describe(type) + ", not null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return .invalidJSON(
                    format: format,
                    reason: "malformed, truncated, nested too deeply, or a number too large for a Double such as 1e400")
            }
            return .invalidValue(format: format, path: path(context.codingPath), reason: context.debugDescription)
        @unknown default:
            return .invalidJSON(format: format, reason: "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Float.Type, is Int.Type: return "a number"
        case is Date.Type: return "a number (seconds since 2001-01-01T00:00:00Z)"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "an object"
        }
    }
}
