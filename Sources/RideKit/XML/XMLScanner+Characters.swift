import Foundation

extension XMLScanner {
    // MARK: References and characters

    /// Checks a reference at `p` (`&name;` or `&#…;`). Returns the offset after it, or nil to read more.
    func scanReference(at start: Int) throws(GPXError) -> Int? {
        var p = start + 1
        while p < end && p - start < 16 && base[p] != UInt8(ascii: ";") { p += 1 }
        if p >= end {
            if atEndOfInput { throw malformed("unfinished reference", at: start) }
            return nil
        }
        guard base[p] == UInt8(ascii: ";") else { throw malformed("'&' must start a reference such as &amp;", at: start) }
        let name = UnsafeBufferPointer(start: base + start + 1, count: p - start - 1)
        if name.first == UInt8(ascii: "#") {
            guard let scalar = XMLScanner.characterReferenceValue(name), XMLScanner.isXMLChar(scalar) else {
                throw malformed("invalid character reference &\(String(decoding: name, as: UTF8.self));", at: start)
            }
            return p + 1
        }
        guard XMLScanner.predefinedEntity(name) != nil else {
            if name.isEmpty { throw malformed("'&' must start a reference such as &amp;", at: start) }
            throw malformed("undefined entity &\(String(decoding: name, as: UTF8.self)); (only the five predefined ones exist without a DTD)", at: start)
        }
        return p + 1
    }

    static func characterReferenceValue(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard name.count >= 2 else { return nil }
        var value: UInt32 = 0
        if name[1] == UInt8(ascii: "x") {
            guard name.count >= 3 else { return nil }
            for byte in name[2...] {
                let digit: UInt32
                switch byte {
                case 48...57: digit = UInt32(byte - 48)
                case 65...70: digit = UInt32(byte - 55)
                case 97...102: digit = UInt32(byte - 87)
                default: return nil
                }
                value = value * 16 + digit
                if value > 0x10FFFF { return nil }
            }
        } else {
            for byte in name[1...] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + UInt32(byte - 48)
                if value > 0x10FFFF { return nil }
            }
        }
        return value
    }

    static func predefinedEntity(_ name: UnsafeBufferPointer<UInt8>) -> UInt8? {
        switch name.count {
        case 2 where name[1] == UInt8(ascii: "t"):
            if name[0] == UInt8(ascii: "l") { return UInt8(ascii: "<") }
            if name[0] == UInt8(ascii: "g") { return UInt8(ascii: ">") }
        case 3 where name[0] == UInt8(ascii: "a") && name[1] == UInt8(ascii: "m") && name[2] == UInt8(ascii: "p"):
            return UInt8(ascii: "&")
        case 4:
            if name.elementsEqual("apos".utf8) { return UInt8(ascii: "'") }
            if name.elementsEqual("quot".utf8) { return UInt8(ascii: "\"") }
        default: break
        }
        return nil
    }

    /// Whether a code point may appear in an XML 1.0 document.
    static func isXMLChar(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// The length of the character at `p` once checked to be one XML allows, or nil to read more.
    @inline(__always) func characterLength(at p: Int) throws(GPXError) -> Int? {
        let byte = base[p]
        if byte >= 0x80 { return try scanUTF8(at: p, inName: false) }
        if byte < 0x20 && byte != 9 && byte != 10 && byte != 13 {
            throw malformed("character U+\(hex(UInt32(byte))) is not allowed in XML", at: p)
        }
        return 1
    }

    /// Validates one UTF-8 sequence at `p` (first byte ≥ 0x80). Returns its length, or nil to read more.
    func scanUTF8(at p: Int, inName: Bool) throws(GPXError) -> Int? {
        guard let (scalar, length) = try decodeUTF8(at: p) else { return nil }
        guard XMLScanner.isXMLChar(scalar) else {
            throw malformed("character U+\(hex(scalar)) is not allowed in XML", at: p)
        }
        if inName && !XMLScanner.isNonASCIINameChar(scalar) {
            throw malformed("character U+\(hex(scalar)) is not allowed in a name", at: p)
        }
        return length
    }

    func decodeUTF8(at p: Int) throws(GPXError) -> (UInt32, Int)? {
        let lead = base[p]
        let length: Int
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF:
            length = 2
            scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3
            scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4:
            length = 4
            scalar = UInt32(lead & 0x07)
        default:
            throw malformed("invalid UTF-8 (byte 0x\(String(lead, radix: 16, uppercase: true)))", at: p)
        }
        if p + length > end {
            // Check the bytes we have, so that a bad sequence at the very end is reported as bad, not as truncated.
            for index in 1..<(end - p) where base[p + index] & 0xC0 != 0x80 {
                throw malformed("invalid UTF-8 (byte 0x\(String(base[p + index], radix: 16, uppercase: true)))", at: p)
            }
            if atEndOfInput { throw malformed("invalid UTF-8 at the end of the file", at: p) }
            return nil
        }
        for index in 1..<length {
            let byte = base[p + index]
            guard byte & 0xC0 == 0x80 else { throw malformed("invalid UTF-8 (byte 0x\(String(byte, radix: 16, uppercase: true)))", at: p) }
            scalar = scalar << 6 | UInt32(byte & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : (length == 3 ? 0x800 : 0x10000)
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else {
            throw malformed("invalid UTF-8 (overlong or out-of-range sequence)", at: p)
        }
        return (scalar, length)
    }

    /// Non-ASCII name characters accepted: letters in blocks that XML 1.0 4th and 5th editions both allow.
    static func isNonASCIINameChar(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0xFF, 0x100...0x131, 0x134...0x13E, 0x141...0x148, 0x14A...0x17E,
            0x391...0x3A1, 0x3A3...0x3CE, 0x410...0x44F, 0x3041...0x3094, 0x30A1...0x30FA, 0x4E00...0x9FA5,
            0xAC00...0xD7A3:
            return true
        default: return false
        }
    }

    /// Replaces references and normalises line ends (and, in attributes, white space) as XML 1.0 says.
    static func decode(_ raw: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], isAttribute: Bool, isCDATA: Bool) {
        var index = 0
        let count = raw.count
        while index < count {
            let byte = raw[index]
            if byte == 13 {
                // CR LF and lone CR both become LF (a space in attributes).
                out.append(isAttribute ? 32 : 10)
                index += 1
                if index < count && raw[index] == 10 { index += 1 }
            } else if isAttribute && (byte == 9 || byte == 10) {
                out.append(32)
                index += 1
            } else if byte == UInt8(ascii: "&") && !isCDATA {
                var stop = index + 1
                while raw[stop] != UInt8(ascii: ";") { stop += 1 }
                let name = UnsafeBufferPointer(rebasing: raw[(index + 1)..<stop])
                if name.first == UInt8(ascii: "#"), let scalar = characterReferenceValue(name), let unicode = Unicode.Scalar(scalar) {
                    out.append(contentsOf: String(Character(unicode)).utf8)
                } else if let replacement = predefinedEntity(name) {
                    out.append(replacement)
                }
                index = stop + 1
            } else {
                out.append(byte)
                index += 1
            }
        }
    }
}

/// Compares bytes with a static string of the same length.
@inline(__always) func sameBytes(_ bytes: UnsafePointer<UInt8>, _ text: StaticString) -> Bool {
    sameBytes(bytes, text.utf8Start, text.utf8CodeUnitCount)
}

/// Compares short byte runs without a call: names are a few bytes long.
@inline(__always) func sameBytes(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 0
    while index + 8 <= count {
        if UnsafeRawPointer(lhs + index).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(rhs + index).loadUnaligned(as: UInt64.self) {
            return false
        }
        index += 8
    }
    while index < count {
        if lhs[index] != rhs[index] { return false }
        index += 1
    }
    return true
}

func hex(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
