import Foundation

/// Reading the JSON of phone apps: one decode (`JSONDecoder`, which refuses nesting deeper than 512 levels
/// and numbers beyond a Double, in time linear in the input), then typed lookups that say which field was
/// wrong.
enum TrackerJSON {
    /// The most bytes a JSON post may have: Overland's 1,000-point batches are about 600 KB.
    static let maximumBytes = 8 << 20
    /// The most nesting accepted: no app nests deeper than 6; deeper is an attack or a mistake.
    static let maximumDepth = 32
    /// The longest string kept from a payload (names, ids); a longer one is cut.
    static let maximumStringLength = 256

    static func decode(_ data: Data) throws(TrackerPayloadError) -> JSONValue {
        guard data.count <= maximumBytes else { throw .malformed("the body has more than \(maximumBytes) bytes") }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .malformed("not JSON")
        }
        guard depth(of: value, limit: maximumDepth) <= maximumDepth else { throw .malformed("nested deeper than \(maximumDepth) levels") }
        return value
    }

    /// The nesting depth, not looking further than `limit`.
    static func depth(of value: JSONValue, limit: Int) -> Int {
        var deepest = 0
        var stack: [(JSONValue, Int)] = [(value, 1)]
        while let (item, level) = stack.popLast() {
            deepest = max(deepest, level)
            if level > limit { return level }
            switch item {
            case .array(let items): stack.append(contentsOf: items.map { ($0, level + 1) })
            case .object(let members): stack.append(contentsOf: members.values.map { ($0, level + 1) })
            default: break
            }
        }
        return deepest
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
