import Foundation

/// JSON (RFC 8259) read from its bytes into `JSONValue` in one pass, in time linear in the input.
///
/// Phone apps post JSON all day (an Overland batch is 1,000 features, ~600 KB) and GeoJSON files are
/// mostly numbers: decoding `JSONValue` through `JSONDecoder` cost more than storing the points (perf, device
/// posts), because every value is tried as each type in turn. This reads each byte once, numbers through
/// `DecimalParser` (correctly rounded, as the GPX reader's), and is as strict as `JSONDecoder`: the grammar
/// of the RFC, UTF-8 only (a leading byte-order mark is skipped), no control characters in strings, no lone
/// surrogates, no number beyond a Double, nothing after the value but white space. Like `JSONDecoder`, it
/// forgives one trailing comma (`[1,]`, `{"a":1,}`), which hand-edited files have. A name given twice keeps
/// its last value. Nesting is bounded (`maximumDepth`), so a hostile `[[[[…` is refused, not a stack overflow.
enum JSONParser {
    /// What is wrong, and where (a byte offset).
    struct Failure: Error, Equatable, CustomStringConvertible {
        var reason: String
        var offset: Int

        var description: String { "\(reason) at byte \(offset)" }
    }

    static func parse(_ data: Data, maximumDepth: Int = 512) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure> = data.withUnsafeBytes { raw in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self), maximumDepth: maximumDepth)
            do throws(Failure) {
                return .success(try reader.document())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        let maximumDepth: Int
        var index = 0
        var depth = 0
        /// Reused for every string with escapes or non-ASCII bytes.
        var scratch: [UInt8] = []

        init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
            self.bytes = bytes
            self.maximumDepth = maximumDepth
        }

        mutating func document() throws(Failure) -> JSONValue {
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            let value = try self.value()
            skipSpace()
            guard index == bytes.count else { throw fail("unexpected text after the value") }
            return value
        }

        func fail(_ reason: String) -> Failure { Failure(reason: reason, offset: index) }

        mutating func skipSpace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value() throws(Failure) -> JSONValue {
            skipSpace()
            guard index < bytes.count else { throw fail("the text ends where a value should be") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try object()
            case UInt8(ascii: "["): return try array()
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("not a JSON value")
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard bytes.count - index >= count else { throw fail("not a JSON value") }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { throw fail("not a JSON value") }
            index += count
        }

        mutating func enter() throws(Failure) {
            depth += 1
            guard depth <= maximumDepth else { throw fail("nested deeper than \(maximumDepth) levels") }
        }

        mutating func object() throws(Failure) -> JSONValue {
            try enter()
            index += 1  // {
            var members: [String: JSONValue] = [:]
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a member name in quotes") }
                let name = try string()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after a member name") }
                index += 1
                members[name] = try value()
                skipSpace()
                guard index < bytes.count else { throw fail("the text ends inside an object") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        depth -= 1
                        return .object(members)
                    }
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    depth -= 1
                    return .object(members)
                } else {
                    throw fail("expected ',' or '}' in an object")
                }
            }
        }

        mutating func array() throws(Failure) -> JSONValue {
            try enter()
            index += 1  // [
            var items: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(items)
            }
            while true {
                items.append(try value())
                skipSpace()
                guard index < bytes.count else { throw fail("the text ends inside an array") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipSpace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        depth -= 1
                        return .array(items)
                    }
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    depth -= 1
                    return .array(items)
                } else {
                    throw fail("expected ',' or ']' in an array")
                }
            }
        }

        /// `-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`, then its value, correctly rounded.
        mutating func number() throws(Failure) -> Double {
            let start = index
            func digits(_ reader: inout Reader) -> Int {
                let first = reader.index
                while reader.index < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.index]) {
                    reader.index += 1
                }
                return reader.index - first
            }
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count else { throw fail("a number without digits") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits(&self) == 0 {
                throw fail("a number without digits")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw fail("a number with no digit after its '.'") }
            }
            if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard digits(&self) > 0 else { throw fail("a number with no digit in its exponent") }
            }
            guard let value = DecimalParser.parse(UnsafeBufferPointer(rebasing: bytes[start..<index])) else {
                index = start
                throw fail("a number beyond a Double's range")
            }
            return value
        }

        mutating func string() throws(Failure) -> String {
            index += 1  // "
            let start = index
            // The common case: plain ASCII, no escape.
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte >= 0x80 || byte < 0x20 { break }
                index += 1
            }
            scratch.removeAll(keepingCapacity: true)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let text = String(validating: scratch, as: UTF8.self) else {
                        index = start
                        throw fail("a string that is not UTF-8")
                    }
                    return text
                case UInt8(ascii: "\\"):
                    index += 1
                    try escape()
                case 0..<0x20:
                    throw fail("a control character inside a string")
                default:
                    scratch.append(byte)
                    index += 1
                }
            }
            throw fail("the text ends inside a string")
        }

        mutating func escape() throws(Failure) {
            guard index < bytes.count else { throw fail("the text ends inside a string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw fail("a lone surrogate in a \\u escape")
                    }
                    index += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone surrogate in a \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw fail("a lone surrogate in a \\u escape")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw fail("an invalid \\u escape") }
                scratch.append(contentsOf: UTF8.encode(unicode)!)
            default:
                index -= 1
                throw fail("an unknown escape in a string")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard bytes.count - index >= 4 else { throw fail("a \\u escape needs four hex digits") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw fail("a \\u escape needs four hex digits")
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}
