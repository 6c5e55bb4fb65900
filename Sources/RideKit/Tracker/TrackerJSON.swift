import Foundation

/// Reading the JSON of phone apps: one pass of `JSONParser` (which refuses nesting deeper than `maximumDepth`
/// and numbers beyond a Double, in time linear in the input), then typed lookups that say which field was wrong.
enum TrackerJSON {
    /// The most bytes a JSON post may have: Overland's 1,000-point batches are about 600 KB.
    static let maximumBytes = 8 << 20
    /// The most nesting accepted: no app nests deeper than 6; deeper is an attack or a mistake.
    static let maximumDepth = 32
    /// The longest string kept from a payload (names, ids); a longer one is cut.
    static let maximumStringLength = 256

    static func decode(_ data: Data) throws(TrackerPayloadError) -> JSONValue {
        guard data.count <= maximumBytes else { throw .malformed("the body has more than \(maximumBytes) bytes") }
        do throws(JSONParser.Failure) {
            return try JSONParser.parse(data, maximumDepth: maximumDepth)
        } catch {
            throw .malformed("not JSON: \(error)")
        }
    }

    /// A number, nil when absent or null; a string or anything else is a wrong type.
    static func number(_ object: [String: JSONValue], _ key: String, path: String) throws(TrackerPayloadError) -> Double? {
        switch object[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        default: throw .wrongType(field: path + key, expected: "a number")
        }
    }

    /// A number where a wrong type only loses the value (optional extras such as battery), not the fix.
    static func lenientNumber(_ object: [String: JSONValue], _ key: String) -> Double? {
        if case .number(let value)? = object[key] { return value }
        return nil
    }

    static func string(_ object: [String: JSONValue], _ key: String) -> String? {
        guard case .string(let text)? = object[key] else { return nil }
        return String(text.prefix(maximumStringLength))
    }

    static func object(_ value: JSONValue?) -> [String: JSONValue]? {
        guard case .object(let members)? = value else { return nil }
        return members
    }
}
