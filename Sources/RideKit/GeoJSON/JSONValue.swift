import Foundation

/// Any JSON value, decoded with `JSONDecoder` (which refuses over-deep nesting and numbers beyond a Double).
enum JSONValue: Decodable, Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        // Scalars first, numbers before strings: a GeoJSON file is mostly numbers, and every failed attempt
        // costs an error value.
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() {
                self = .null
                return
            }
            if let number = try? container.decode(Double.self) {
                self = .number(number)
                return
            }
            if let text = try? container.decode(String.self) {
                self = .string(text)
                return
            }
            if let bool = try? container.decode(Bool.self) {
                self = .bool(bool)
                return
            }
        }
        if var container = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            if let count = container.count { items.reserveCapacity(count) }
            while !container.isAtEnd { items.append(try container.decode(JSONValue.self)) }
            self = .array(items)
            return
        }
        if let container = try? decoder.container(keyedBy: Key.self) {
            var members: [String: JSONValue] = [:]
            for key in container.allKeys { members[key.stringValue] = try container.decode(JSONValue.self, forKey: key) }
            self = .object(members)
            return
        }
        // Only a number a Double cannot hold (1e400) is none of the above.
        throw DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "is a number beyond a Double's range"))
    }

    private var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    func object(at path: String) throws(TrackFormatError) -> [String: JSONValue] {
        guard case .object(let members) = self else {
            throw .wrongType(format: GeoJSONReader.formatName, path: path, expected: "an object, not \(typeName)")
        }
        return members
    }

    func array(at path: String) throws(TrackFormatError) -> [JSONValue] {
        guard case .array(let items) = self else {
            throw .wrongType(format: GeoJSONReader.formatName, path: path, expected: "an array, not \(typeName)")
        }
        return items
    }

    func number(at path: String) throws(TrackFormatError) -> Double {
        guard case .number(let value) = self, value.isFinite else {
            throw .wrongType(format: GeoJSONReader.formatName, path: path, expected: "a number, not \(typeName)")
        }
        return value
    }
}

extension Dictionary where Key == String, Value == JSONValue {
    /// A required string member.
    func string(_ key: String, at path: String) throws(TrackFormatError) -> String {
        let memberPath = path.isEmpty ? key : "\(path).\(key)"
        switch self[key] {
        case nil: throw .missingKey(format: GeoJSONReader.formatName, path: memberPath)
        case .string(let text)?: return text
        default: throw .wrongType(format: GeoJSONReader.formatName, path: memberPath, expected: "a string")
        }
    }

    /// A required array member.
    func array(_ key: String, at path: String) throws(TrackFormatError) -> [JSONValue] {
        let memberPath = path.isEmpty ? key : "\(path).\(key)"
        guard let value = self[key] else { throw .missingKey(format: GeoJSONReader.formatName, path: memberPath) }
        return try value.array(at: memberPath)
    }
}
