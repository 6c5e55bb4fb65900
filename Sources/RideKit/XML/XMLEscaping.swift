/// Escaping of text and attribute values for the XML the GPX writer produces, straight into UTF-8 bytes.
///
/// Characters that XML 1.0 forbids (C0 controls other than tab, line feed and carriage return, U+FFFE and
/// U+FFFF) cannot come out of a strict read, but strings built in code can carry them; they are replaced by
/// U+FFFD, the replacement character, so that the file stays well-formed and the reader sees that something
/// was there. A carriage return is written as `&#13;` because a parser turns a literal one into a line feed;
/// in attribute values tab and line feed are written as character references too, because attribute-value
/// normalisation would turn them into spaces.
enum XMLEscaping {
    /// Appends `text` escaped for element content.
    static func appendText(_ text: String, to bytes: inout [UInt8]) {
        append(text, attribute: false, to: &bytes)
    }

    /// Appends `text` escaped for an attribute value delimited by double quotes.
    static func appendAttribute(_ text: String, to bytes: inout [UInt8]) {
        append(text, attribute: true, to: &bytes)
    }

    private static func append(_ text: String, attribute: Bool, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        // Fast path: most names, descriptions and URLs need nothing.
        if !utf8.contains(where: { needsWork($0) }) {
            bytes.append(contentsOf: utf8)
            return
        }
        var iterator = utf8.makeIterator()
        var pending: [UInt8] = []  // up to two bytes held back while looking for EF BF BE / EF BF BF
        while let byte = iterator.next() {
            if !pending.isEmpty {
                pending.append(byte)
                if pending.count == 2 {
                    if pending[1] != 0xBF {
                        bytes.append(contentsOf: pending)
                        pending.removeAll(keepingCapacity: true)
                    }
                    continue
                }
                // Three bytes: EF BF xx.
                if pending[2] == 0xBE || pending[2] == 0xBF {
                    bytes.append(contentsOf: replacementCharacter)
                } else {
                    bytes.append(contentsOf: pending)
                }
                pending.removeAll(keepingCapacity: true)
                continue
            }
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""):
                if attribute { bytes.append(contentsOf: "&quot;".utf8) } else { bytes.append(byte) }
            case 0x0D: bytes.append(contentsOf: "&#13;".utf8)
            case 0x0A:
                if attribute { bytes.append(contentsOf: "&#10;".utf8) } else { bytes.append(byte) }
            case 0x09:
                if attribute { bytes.append(contentsOf: "&#9;".utf8) } else { bytes.append(byte) }
            case 0x00..<0x20: bytes.append(contentsOf: replacementCharacter)
            case 0xEF: pending.append(byte)
            default: bytes.append(byte)
            }
        }
        // A String is valid UTF-8, so a held-back EF always has its continuation bytes; this is belt and braces.
        bytes.append(contentsOf: pending)
    }

    /// U+FFFD in UTF-8.
    private static let replacementCharacter: [UInt8] = [0xEF, 0xBF, 0xBD]

    @inline(__always)
    private static func needsWork(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"") || byte == 0xEF
    }

    /// True when `name` can be written as an XML name without a prefix (an NCName, loosely: non-ASCII
    /// characters are let through, ASCII ones must be letters, digits, `_`, `-` or `.`, not starting with a
    /// digit, `-` or `.`). Extension trees from the reader always pass; ones built in code might not, and an
    /// element or attribute with such a name is left out rather than making the file unreadable.
    static func isValidName(_ name: String) -> Bool {
        var first = true
        for byte in name.utf8 {
            if byte >= 0x80 {
                first = false
                continue
            }
            let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
            let isOther =
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
            if first ? !isLetter : !(isLetter || isOther) { return false }
            first = false
        }
        return !first
    }
}
