import Foundation

/// `application/x-www-form-urlencoded` text (a query string or a form body) as name → value, the way
/// OsmAnd, Traccar Client and GPSLogger send their fixes. Bounded: at most `maximumCount` pairs and
/// `maximumBytes` bytes; `+` is a space; a pair whose percent escapes are not UTF-8 is dropped; the first
/// of repeated names wins.
public struct FormParameters: Sendable, Hashable {
    public private(set) var values: [String: String] = [:]

    public static let maximumCount = 200
    public static let maximumBytes = 64 << 10

    public init(_ text: Substring) throws(TrackerPayloadError) {
        guard text.utf8.count <= Self.maximumBytes else { throw .malformed("the parameters have more than \(Self.maximumBytes) bytes") }
        var count = 0
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            count += 1
            guard count <= Self.maximumCount else { throw .malformed("more than \(Self.maximumCount) parameters") }
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), !name.isEmpty else { continue }
            let value = parts.count > 1 ? Self.decode(parts[1]) : ""
            if let value, values[name] == nil { values[name] = value }
        }
    }

    public init(_ text: String) throws(TrackerPayloadError) { try self.init(text[...]) }

    public init(values: [String: String]) { self.values = values }

    public subscript(_ name: String) -> String? { values[name] }

    static func decode(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// A finite decimal number (no `nan`, `inf`, hex), or nil when absent or empty; anything else is a wrong type.
    func number(_ name: String) throws(TrackerPayloadError) -> Double? {
        guard let text = values[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        guard text.utf8.count <= 64, text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x2D || $0 == 0x2B || $0 == 0x65 || $0 == 0x45 }),
              let value = Double(text), value.isFinite
        else { throw .wrongType(field: name, expected: "a decimal number") }
        return value
    }

    /// Like `number`, but a bad value is only dropped (optional extras).
    func lenientNumber(_ name: String) -> Double? { (try? number(name)) ?? nil }
}
