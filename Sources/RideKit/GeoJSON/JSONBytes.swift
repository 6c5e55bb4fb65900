/// A JSON text built directly as UTF-8 bytes, for writers that control number formatting and key order.
struct JSONBytes {
    var bytes: [UInt8] = []

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `,"key":` — every member the writers add after the first one they write by hand.
    mutating func key(_ key: String) {
        bytes.append(UInt8(ascii: ","))
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func stringMember(_ key: String, _ value: String?) {
        guard let value else { return }
        self.key(key)
        string(value)
    }

    /// A finite number, or `null`.
    mutating func number(_ value: Double?) {
        if let value, DecimalFormatting.append(value, to: &bytes) { return }
        raw("null")
    }

    /// A time as an RFC 3339 string, or `null`.
    mutating func time(_ time: GPXTime?) {
        guard let time else { return raw("null") }
        bytes.append(UInt8(ascii: "\""))
        time.appendRFC3339(to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\t`… or `\u00XX`.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0x00..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                raw("\\u00")
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
