import Foundation

/// What the scanner found next.
enum XMLEvent: Equatable {
    case startElement
    case endElement
    case text
    case endOfDocument
}

/// An attribute of the current start tag. Offsets point into the scanner's buffer and are valid until the
/// next call to `next()`.
struct XMLAttributeToken {
    var namespace: Int32
    var qnameStart: Int
    var qnameLength: Int
    /// Length of the prefix, 0 when the name has none.
    var prefixLength: Int
    var valueStart: Int
    var valueLength: Int
    /// The value holds references or white space that XML normalises, so its bytes are not its value.
    var needsDecoding: Bool

    var localStart: Int { prefixLength == 0 ? qnameStart : qnameStart + prefixLength + 1 }
    var localLength: Int { prefixLength == 0 ? qnameLength : qnameLength - prefixLength - 1 }
}

/// A streaming, namespace-aware XML tokenizer built for the XML that GPX uses, and strict about the rest.
///
/// Why not Foundation's `XMLParser`: it crashes on tiny hostile inputs and is slow (DESIGN 4.1). Why not
/// libexpat: it spends most of a large file's time on work GPX never needs; this scanner reads GPX several
/// times faster and is checked against libexpat in the tests and by the fuzz target (same accept/reject on
/// well-formedness, except where noted below).
///
/// It checks everything XML 1.0 + Namespaces require of a document without a DTD: one root, matching tags,
/// unique attributes, bound prefixes, legal characters and valid UTF-8, only the five predefined entities and
/// legal character references, comments without `--`, `]]>` only closing CDATA, the XML declaration only at
/// the start. Deliberately stricter than libexpat: any DOCTYPE is refused (GPX never needs one, and DTDs carry
/// entity-expansion and external-entity attacks), nesting is limited to `maxDepth`, a single token to
/// `maxTokenBytes`, and non-ASCII characters in *names* only from the letter blocks that every XML edition
/// agrees on (GPX names are ASCII).
///
/// Memory stays bounded: the buffer holds one chunk plus at most one token.
struct XMLScanner {
    static let maxDepth = 1024
    static let maxTokenBytes = 16 << 20
    static let chunkBytes = 1 << 20

    // Namespace ids the GPX layer compares against; interned first, in this order.
    static let noNamespace: Int32 = 0
    static let xmlNamespace: Int32 = 1
    static let xmlnsNamespace: Int32 = 2
    static let wellKnownNamespaces = [
        "", "http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/",
    ]

    private var source: any ByteSource
    private let storage: ScanBuffer
    private(set) var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private(set) var position = 0
    private var end = 0
    private var atEndOfInput = false
    private var tokenStart = 0
    private let classes = XMLScanner.classTable

    // Location bookkeeping for messages: lines and characters already compacted out of the buffer.
    private var bufferOffset = 0
    private var linesBeforeBuffer = 1
    private var columnCarry = 0

    // Document state.
    private var seenRoot = false
    private var rootClosed = false
    private var pendingEnd = false
    let lenient: Bool
    /// Checks the XML declaration's encoding against what the bytes are.
    private let encodingCheck: (String) -> Bool

    // Open elements: raw qualified names in an arena, and the namespace scope each opened.
    private let names = ByteStack()
    private var openElements: [(nameStart: Int, nameLength: Int, bindingCount: Int, defaultNamespace: Int32)] = []

    // Namespaces: interned URIs, and the prefix bindings in scope (prefix bytes in an arena).
    private(set) var namespaceURIs: [String]
    private var namespaceIDs: [[UInt8]: Int32] = [:]
    private var prefixArena: [UInt8] = []
    private var bindings: [(prefixStart: Int, prefixLength: Int, namespace: Int32)] = []
    private var defaultNamespace: Int32 = 0
    /// The last prefix resolved, valid while the bindings are unchanged.
    private var resolvedPrefix: (generation: Int, arenaStart: Int, length: Int, namespace: Int32) = (-1, 0, 0, 0)
    /// Changes whenever a prefix binding is added or removed.
    private var bindingsGeneration = 0
    /// Lenient mode only: prefixes used without a declaration, bound for the rest of the document.
    private var undeclaredPrefixes: [String: Int32] = [:]

    // The current token.
    private(set) var elementNamespace: Int32 = 0
    private(set) var elementQNameStart = 0
    private(set) var elementQNameLength = 0
    private(set) var elementPrefixLength = 0
    /// The current start tag's attributes, `attributeCount` of them (storage reused from tag to tag).
    var attributes: UnsafeMutablePointer<XMLAttributeToken> { attributeStorage.pointer }
    private let attributeStorage = AttributeStorage()
    private(set) var attributeCount = 0
    private(set) var textStart = 0
    private(set) var textLength = 0
    private(set) var textNeedsDecoding = false
    private(set) var textIsCDATA = false
    /// Where the current token began, for messages.
    private(set) var currentTokenStart = 0

    init(source: any ByteSource, lenient: Bool, encodingCheck: @escaping (String) -> Bool) {
        self.source = source
        self.lenient = lenient
        self.encodingCheck = encodingCheck
        storage = ScanBuffer(capacity: XMLScanner.chunkBytes + 4096)
        base = storage.pointer
        capacity = storage.capacity
        namespaceURIs = []
        for uri in XMLScanner.wellKnownNamespaces { _ = intern(Array(uri.utf8)) }
        // `xml` is bound by definition; `xmlns` is reserved and never looked up as an element prefix.
        prefixArena = Array("xml".utf8)
        bindings = [(0, 3, XMLScanner.xmlNamespace)]
        openElements.reserveCapacity(32)
    }

    /// The id for a namespace URI, interning it if new.
    mutating func intern(_ uri: [UInt8]) -> Int32 {
        if let id = namespaceIDs[uri] { return id }
        let id = Int32(namespaceURIs.count)
        namespaceIDs[uri] = id
        namespaceURIs.append(String(decoding: uri, as: UTF8.self))
        return id
    }

    /// The id of a namespace URI if the document has used it (or it was interned up front).
    func namespaceID(_ uri: String) -> Int32? { namespaceIDs[Array(uri.utf8)] }

    /// How many elements are open, counting the current start tag.
    var depth: Int { openElements.count }

    // MARK: Reading in parts (see `SpeculativeReading`)

    /// For a scanner that reads one part of a document: the depth its part starts and must end at. At the end
    /// of its input at that depth it reports `.endOfDocument` instead of an unclosed element.
    private var partDepth: Int?

    /// Offset of the current position from the start of the input.
    var inputOffset: Int { bufferOffset + position }

    /// A scanner for a part of the same document, read from `source`, that starts in this scanner's present
    /// context: the same open elements, namespace bindings and namespace ids. Shares no storage with this one.
    func partScanner(reading source: any ByteSource) -> XMLScanner {
        var part = XMLScanner(source: source, lenient: lenient, encodingCheck: encodingCheck)
        part.namespaceURIs = namespaceURIs
        part.namespaceIDs = namespaceIDs
        part.prefixArena = prefixArena
        part.bindings = bindings
        part.defaultNamespace = defaultNamespace
        part.undeclaredPrefixes = undeclaredPrefixes
        part.names.append(names.pointer, count: names.count)
        part.openElements = openElements
        part.seenRoot = true
        part.partDepth = openElements.count
        return part
    }

    /// Whether this scanner is between tokens in the same context as `other`: the same open elements by name,
    /// the same namespace bindings and default namespace. Namespace ids compare as URIs because both scanners
    /// intern from the same start (see `partScanner(reading:)`).
    func hasSameContext(as other: XMLScanner) -> Bool {
        guard !pendingEnd, !other.pendingEnd, openElements.count == other.openElements.count,
            names.count == other.names.count, memcmp(names.pointer, other.names.pointer, names.count) == 0,
            defaultNamespace == other.defaultNamespace, bindings.count == other.bindings.count
        else { return false }
        for (mine, theirs) in zip(openElements, other.openElements) {
            guard mine.nameLength == theirs.nameLength, mine.bindingCount == theirs.bindingCount,
                mine.defaultNamespace == theirs.defaultNamespace
            else { return false }
        }
        for (mine, theirs) in zip(bindings, other.bindings) {
            guard mine.namespace == theirs.namespace, mine.prefixLength == theirs.prefixLength,
                namespaceURIs[Int(mine.namespace)] == other.namespaceURIs[Int(theirs.namespace)],
                prefixArena[mine.prefixStart..<(mine.prefixStart + mine.prefixLength)]
                    == other.prefixArena[theirs.prefixStart..<(theirs.prefixStart + theirs.prefixLength)]
            else { return false }
        }
        return true
    }

    /// Lines and columns from the start of this scanner's input to the end of what it has read: how many line
    /// feeds, and how many characters follow the last one (or all of them, if there was none).
    var extentOfInput: (newlines: Int, tailColumns: Int) {
        let newlines = linesBeforeBuffer - 1 + XMLScanner.countNewlines(base, count: end)
        var index = end
        var tail = 0
        while index > 0 && base[index - 1] != 10 {
            index -= 1
            if base[index] & 0xC0 != 0x80 { tail += 1 }
        }
        return (newlines, index == 0 ? columnCarry + tail : tail)
    }

    /// Passes over the input up to `offset` without tokenizing it (another scanner read that part, which spans
    /// `extent` lines and columns from the current position), keeping lines and columns right for later
    /// messages. The scanner must be between tokens. A source that can seek is not read at all.
    mutating func skip(to offset: Int, extent: (newlines: Int, tailColumns: Int)) throws(GPXError) {
        precondition(!pendingEnd && offset >= inputOffset)
        if offset > bufferOffset + end, source.seek(to: offset) {
            countLines(before: position)
            if extent.newlines > 0 {
                linesBeforeBuffer += extent.newlines
                columnCarry = extent.tailColumns
            } else {
                columnCarry += extent.tailColumns
            }
            bufferOffset = offset
            atEndOfInput = false
            end = 0
            position = 0
            tokenStart = 0
            currentTokenStart = 0
            return
        }
        while bufferOffset + end < offset {
            position = end
            tokenStart = end
            guard try refill() else {
                throw error(.truncated(truncationMessage()), at: end)
            }
        }
        position = offset - bufferOffset
        tokenStart = position
        currentTokenStart = position
    }

    // MARK: Character classes

    private static let nameStartClass: UInt8 = 1
    private static let nameClass: UInt8 = 2
    private static let textSpecialClass: UInt8 = 4
    private static let attributeSpecialClass: UInt8 = 8
    private static let whitespaceClass: UInt8 = 16

    /// Byte classes for the hot loops; a raw pointer so that the loops pay no bounds or lazy-init checks.
    nonisolated(unsafe) private static let classTable: UnsafeMutablePointer<UInt8> = makeClassTable()

    private static func makeClassTable() -> UnsafeMutablePointer<UInt8> {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in 0..<256 {
            var value: UInt8 = 0
            let isLetter = (65...90).contains(byte) || (97...122).contains(byte)
            if isLetter || byte == 95 || byte == 58 { value |= nameStartClass | nameClass }
            if (48...57).contains(byte) || byte == 45 || byte == 46 { value |= nameClass }
            if byte < 0x20 || byte >= 0x80 || byte == 60 || byte == 38 || byte == 93 {
                value |= textSpecialClass
            }
            if byte < 0x20 || byte >= 0x80 || byte == 60 || byte == 38 { value |= attributeSpecialClass }
            if byte == 32 || byte == 9 || byte == 10 || byte == 13 { value |= whitespaceClass }
            table[byte] = value
        }
        return table
    }

    @inline(__always) private func isWhitespace(_ byte: UInt8) -> Bool {
        classes[Int(byte)] & XMLScanner.whitespaceClass != 0
    }

    // MARK: Locations and errors

    /// Line and column (1-based, in characters) of a buffer offset.
    func location(of offset: Int) -> (line: Int, column: Int) {
        var line = linesBeforeBuffer
        var column = columnCarry
        let limit = min(max(offset, 0), end)
        for index in 0..<limit {
            let byte = base[index]
            if byte == 10 {
                line += 1
                column = 0
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column + 1)
    }

    func error(_ reason: GPXError.Reason, at offset: Int) -> GPXError {
        let (line, column) = location(of: offset)
        return GPXError(reason, line: line, column: column)
    }

    private func malformed(_ text: String, at offset: Int) -> GPXError {
        error(.notWellFormed(text), at: offset)
    }

    // MARK: Buffer

    /// Counts the lines and columns of the buffer's first `count` bytes, which are about to leave it, so that
    /// locations stay right.
    private mutating func countLines(before count: Int) {
        let newlines = XMLScanner.countNewlines(base, count: count)
        var lastNewline = count - 1
        while lastNewline >= 0 && base[lastNewline] != 10 { lastNewline -= 1 }
        if newlines > 0 {
            linesBeforeBuffer += newlines
            columnCarry = 0
        }
        for index in (lastNewline + 1)..<count where base[index] & 0xC0 != 0x80 { columnCarry += 1 }
    }

    /// Moves the current token to the front of the buffer and reads more. Returns false when there is no more.
    private mutating func refill() throws(GPXError) -> Bool {
        if atEndOfInput { return false }
        if tokenStart > 0 {
            countLines(before: tokenStart)
            let kept = end - tokenStart
            if kept > 0 { memmove(base, base + tokenStart, kept) }
            bufferOffset += tokenStart
            position -= tokenStart
            currentTokenStart -= tokenStart
            end = kept
            tokenStart = 0
        }
        if capacity - end < 4096 {
            let newCapacity = capacity * 2
            guard newCapacity - 4096 <= XMLScanner.maxTokenBytes + XMLScanner.chunkBytes else {
                throw error(.tokenTooLong(limitBytes: XMLScanner.maxTokenBytes), at: 0)
            }
            storage.grow(to: newCapacity)
            base = storage.pointer
            capacity = newCapacity
        }
        let room = min(capacity - end, XMLScanner.chunkBytes)
        let count: Int
        do {
            count = try source.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: room))
        } catch let failure as GPXError {
            throw failure.line == 0 ? error(failure.reason, at: end) : failure
        } catch {
            throw GPXError(.io("cannot read: \(error)"), line: 0, column: 0)
        }
        if count == 0 {
            atEndOfInput = true
        } else {
            end += count
        }
        return true
    }

    /// Counts LF bytes sixteen at a time: this runs over every byte of every file.
    static func countNewlines(_ start: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let newline = SIMD16<UInt8>(repeating: 10)
        let one = SIMD16<UInt8>(repeating: 1)
        var total = 0
        var index = 0
        while index + 16 <= count {
            // Byte-wise counters overflow after 255 rounds: fold them into `total` before that.
            var counters = SIMD16<UInt8>()
            var rounds = 0
            while rounds < 255 && index + 16 <= count {
                let bytes = UnsafeRawPointer(start + index).loadUnaligned(as: SIMD16<UInt8>.self)
                counters &+= one.replacing(with: 0, where: bytes .!= newline)
                index += 16
                rounds += 1
            }
            total += Int(SIMD16<UInt16>(truncatingIfNeeded: counters).wrappedSum())
        }
        while index < count {
            if start[index] == 10 { total += 1 }
            index += 1
        }
        return total
    }

    // MARK: Events

    /// The next element boundary or text run. Comments and processing instructions are checked and skipped.
    ///
    /// With `skippingWhitespace`, text that is only white space is passed over: the indentation between
    /// elements, which is most of the text events of a file.
    mutating func next(skippingWhitespace: Bool = false) throws(GPXError) -> XMLEvent {
        if pendingEnd {
            pendingEnd = false
            closeElement()
            return .endElement
        }
        while true {
            tokenStart = position
            currentTokenStart = position
            if position >= end {
                if try refill() { continue }
                return try finishDocument()
            }
            let step: Step
            if base[position] == UInt8(ascii: "<") {
                step = try scanMarkup()
            } else {
                step = try scanText(skippingWhitespace: skippingWhitespace)
            }
            switch step {
            case .event(let event): return event
            case .skipped: continue
            case .needMore:
                if try refill() {
                    position = tokenStart
                    continue
                }
                let inMarkup = tokenStart < end && base[tokenStart] == UInt8(ascii: "<")
                throw error(.truncated((inMarkup ? "it stops inside a tag or comment; " : "") + truncationMessage()), at: tokenStart)
            }
        }
    }

    private enum Step {
        case event(XMLEvent)
        case skipped
        case needMore
    }

    private func truncationMessage() -> String {
        if let open = openElements.last {
            let name = String(decoding: UnsafeBufferPointer(start: names.pointer + open.nameStart, count: open.nameLength), as: UTF8.self)
            return "<\(name)> is never closed"
        }
        return "a tag or comment is not finished"
    }

    private mutating func finishDocument() throws(GPXError) -> XMLEvent {
        if let partDepth, openElements.count == partDepth { return .endOfDocument }
        if !openElements.isEmpty {
            throw error(.truncated(truncationMessage()), at: end)
        }
        if !seenRoot {
            if bufferOffset == 0 && end == 0 { throw error(.empty, at: 0) }
            throw malformed("no root element", at: end)
        }
        return .endOfDocument
    }

    // MARK: Text

    private mutating func scanText(skippingWhitespace: Bool) throws(GPXError) -> Step {
        var p = position
        if skippingWhitespace {
            // Indentation: a line end, then runs of spaces, skipped eight at a time.
            while true {
                while p + 8 <= end && UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 { p += 8 }
                guard p < end, case let byte = base[p], byte == 32 || byte == 10 || byte == 9 else { break }
                p += 1
            }
            if p < end && base[p] == UInt8(ascii: "<") {
                position = p
                return .skipped
            }
            p = position
        }
        var needsDecoding = false
        var onlyWhitespace = true
        while p < end {
            let byte = base[p]
            let kind = classes[Int(byte)]
            if kind & XMLScanner.textSpecialClass == 0 {
                if kind & XMLScanner.whitespaceClass == 0 { onlyWhitespace = false }
                p += 1
                continue
            }
            if byte == UInt8(ascii: "<") { break }
            switch byte {
            case UInt8(ascii: "&"):
                guard let after = try scanReference(at: p) else { return .needMore }
                needsDecoding = true
                onlyWhitespace = false
                p = after
            case UInt8(ascii: "]"):
                if p + 2 >= end && !atEndOfInput { return .needMore }
                if p + 2 < end && base[p + 1] == UInt8(ascii: "]") && base[p + 2] == UInt8(ascii: ">") {
                    throw malformed("']]>' is not allowed in text", at: p)
                }
                onlyWhitespace = false
                p += 1
            case 9, 10:
                p += 1
            case 13:
                needsDecoding = true
                p += 1
            case 0x80...:
                guard let length = try scanUTF8(at: p, inName: false) else { return .needMore }
                onlyWhitespace = false
                p += length
            default:
                throw malformed("character U+\(hex(UInt32(byte))) is not allowed in XML", at: p)
            }
        }
        if p >= end && !atEndOfInput { return .needMore }
        position = p
        if openElements.isEmpty {
            guard onlyWhitespace else {
                throw malformed(seenRoot ? "text after the root element" : "text before the root element", at: tokenStart)
            }
            return .skipped
        }
        textStart = tokenStart
        textLength = p - tokenStart
        textNeedsDecoding = needsDecoding
        textIsCDATA = false
        return .event(.text)
    }

    /// Checks a reference at `p` (`&name;` or `&#…;`). Returns the offset after it, or nil to read more.
    private func scanReference(at start: Int) throws(GPXError) -> Int? {
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
    @inline(__always) private func characterLength(at p: Int) throws(GPXError) -> Int? {
        let byte = base[p]
        if byte >= 0x80 { return try scanUTF8(at: p, inName: false) }
        if byte < 0x20 && byte != 9 && byte != 10 && byte != 13 {
            throw malformed("character U+\(hex(UInt32(byte))) is not allowed in XML", at: p)
        }
        return 1
    }

    /// Validates one UTF-8 sequence at `p` (first byte ≥ 0x80). Returns its length, or nil to read more.
    private func scanUTF8(at p: Int, inName: Bool) throws(GPXError) -> Int? {
        guard let (scalar, length) = try decodeUTF8(at: p) else { return nil }
        guard XMLScanner.isXMLChar(scalar) else {
            throw malformed("character U+\(hex(scalar)) is not allowed in XML", at: p)
        }
        if inName && !XMLScanner.isNonASCIINameChar(scalar) {
            throw malformed("character U+\(hex(scalar)) is not allowed in a name", at: p)
        }
        return length
    }

    private func decodeUTF8(at p: Int) throws(GPXError) -> (UInt32, Int)? {
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

    // MARK: Markup

    private mutating func scanMarkup() throws(GPXError) -> Step {
        guard position + 1 < end else { return .needMore }
        switch base[position + 1] {
        case UInt8(ascii: "/"): return try scanEndTag()
        case UInt8(ascii: "?"): return try scanProcessingInstruction()
        case UInt8(ascii: "!"): return try scanDeclaration()
        default: return try scanStartTag()
        }
    }

    /// Scans a qualified name at `p`. Returns (end offset, prefix length) or nil to read more.
    private func scanName(at start: Int, what: String) throws(GPXError) -> (end: Int, prefixLength: Int)? {
        var p = start
        guard p < end else { return nil }
        let first = base[p]
        if first < 0x80 {
            guard classes[Int(first)] & XMLScanner.nameStartClass != 0 else {
                throw malformed("\(what) does not start with a name", at: start)
            }
        }
        var colon = -1
        while p < end {
            let byte = base[p]
            if byte < 0x80 {
                guard classes[Int(byte)] & XMLScanner.nameClass != 0 else { break }
                if byte == UInt8(ascii: ":") {
                    guard colon < 0 else { throw malformed("a name has more than one ':'", at: p) }
                    colon = p
                }
                p += 1
            } else {
                guard let length = try scanUTF8(at: p, inName: true) else { return nil }
                p += length
            }
        }
        if p >= end { return atEndOfInput ? (p, colon < 0 ? 0 : colon - start) : nil }
        if colon >= 0 {
            guard colon > start, colon < p - 1 else { throw malformed("a name has an empty prefix or local part", at: start) }
            let afterColon = base[colon + 1]
            if afterColon < 0x80 && classes[Int(afterColon)] & XMLScanner.nameStartClass == 0 {
                throw malformed("the local part of a name does not start with a letter", at: colon + 1)
            }
        }
        return (p, colon < 0 ? 0 : colon - start)
    }

    private mutating func scanStartTag() throws(GPXError) -> Step {
        if rootClosed { throw malformed("a second root element (junk after the document element)", at: position) }
        let nameStart = position + 1
        guard let (nameEnd, prefixLength) = try scanName(at: nameStart, what: "a tag") else { return .needMore }
        var p = nameEnd
        attributeCount = 0
        var selfClosing = false
        while true {
            guard p < end else { return .needMore }
            var byte = base[p]
            var sawSpace = false
            while isWhitespace(byte) {
                sawSpace = true
                p += 1
                guard p < end else { return .needMore }
                byte = base[p]
            }
            if byte == UInt8(ascii: ">") {
                p += 1
                break
            }
            if byte == UInt8(ascii: "/") {
                guard p + 1 < end else { return .needMore }
                guard base[p + 1] == UInt8(ascii: ">") else { throw malformed("'/' in a tag must be followed by '>'", at: p) }
                p += 2
                selfClosing = true
                break
            }
            guard sawSpace else { throw malformed("attributes must be separated by white space", at: p) }
            // An attribute.
            let attributeStart = p
            guard let (attributeNameEnd, attributePrefix) = try scanName(at: p, what: "an attribute") else { return .needMore }
            p = attributeNameEnd
            while p < end && isWhitespace(base[p]) { p += 1 }
            guard p < end else { return .needMore }
            guard base[p] == UInt8(ascii: "=") else { throw malformed("an attribute needs '=' and a quoted value", at: p) }
            p += 1
            while p < end && isWhitespace(base[p]) { p += 1 }
            guard p < end else { return .needMore }
            let quote = base[p]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw malformed("an attribute value must be in quotes", at: p)
            }
            p += 1
            let valueStart = p
            var needsDecoding = false
            while true {
                guard p < end else { return .needMore }
                let valueByte = base[p]
                if valueByte == quote { break }
                if classes[Int(valueByte)] & XMLScanner.attributeSpecialClass == 0 {
                    p += 1
                    continue
                }
                switch valueByte {
                case UInt8(ascii: "<"): throw malformed("'<' is not allowed in an attribute value", at: p)
                case UInt8(ascii: "&"):
                    guard let after = try scanReference(at: p) else { return .needMore }
                    needsDecoding = true
                    p = after
                case 9, 10, 13:
                    needsDecoding = true
                    p += 1
                case 0x80...:
                    guard let length = try scanUTF8(at: p, inName: false) else { return .needMore }
                    p += length
                default:
                    throw malformed("character U+\(hex(UInt32(valueByte))) is not allowed in XML", at: p)
                }
            }
            let token = XMLAttributeToken(
                namespace: 0, qnameStart: attributeStart, qnameLength: attributeNameEnd - attributeStart,
                prefixLength: attributePrefix, valueStart: valueStart, valueLength: p - valueStart,
                needsDecoding: needsDecoding)
            attributeStorage.set(token, at: attributeCount)
            attributeCount += 1
            p += 1
        }
        // The whole tag is in the buffer: namespaces and bookkeeping cannot need more input from here on.
        position = p
        try openElement(nameStart: nameStart, nameLength: nameEnd - nameStart, prefixLength: prefixLength)
        seenRoot = true
        if selfClosing { pendingEnd = true }
        return .event(.startElement)
    }

    private mutating func openElement(nameStart: Int, nameLength: Int, prefixLength: Int) throws(GPXError) {
        guard openElements.count < XMLScanner.maxDepth else {
            throw error(.tooDeep(limit: XMLScanner.maxDepth), at: tokenStart)
        }
        let bindingCount = bindings.count
        let savedDefault = defaultNamespace
        // Namespace declarations first: they apply to this element's own name and attributes.
        for index in 0..<attributeCount {
            let attribute = attributes[index]
            if attribute.prefixLength == 0 {
                if attribute.qnameLength == 5 && bytesEqual(attribute.qnameStart, "xmlns") {
                    let uri = attributeValueBytes(attribute)
                    let id = intern(uri)
                    if id == XMLScanner.xmlNamespace || id == XMLScanner.xmlnsNamespace {
                        throw malformed("the xml and xmlns namespaces cannot be the default namespace", at: attribute.qnameStart)
                    }
                    defaultNamespace = id
                    attributes[index].namespace = XMLScanner.xmlnsNamespace
                }
            } else if attribute.prefixLength == 5 && bytesEqual(attribute.qnameStart, "xmlns") {
                let uri = attributeValueBytes(attribute)
                let prefixStart = attribute.localStart
                let prefixLength = attribute.localLength
                let isXMLPrefix = prefixLength == 3 && bytesEqual(prefixStart, "xml")
                if prefixLength == 5 && bytesEqual(prefixStart, "xmlns") {
                    throw malformed("the prefix xmlns cannot be declared", at: attribute.qnameStart)
                }
                guard !uri.isEmpty else { throw malformed("a prefix cannot be bound to an empty namespace", at: attribute.qnameStart) }
                let id = intern(uri)
                if isXMLPrefix != (id == XMLScanner.xmlNamespace) || id == XMLScanner.xmlnsNamespace {
                    throw malformed("the xml prefix and namespace belong only to each other", at: attribute.qnameStart)
                }
                let arenaStart = prefixArena.count
                prefixArena.append(contentsOf: UnsafeBufferPointer(start: base + prefixStart, count: prefixLength))
                bindings.append((arenaStart, prefixLength, id))
                bindingsGeneration += 1
                attributes[index].namespace = XMLScanner.xmlnsNamespace
            }
        }
        elementQNameStart = nameStart
        elementQNameLength = nameLength
        elementPrefixLength = prefixLength
        if prefixLength == 0 {
            elementNamespace = defaultNamespace
        } else {
            elementNamespace = try resolve(prefixStart: nameStart, prefixLength: prefixLength)
        }
        // Attribute namespaces, and no attribute twice (by raw name or by expanded name).
        for index in 0..<attributeCount {
            var attribute = attributes[index]
            if attribute.namespace == XMLScanner.xmlnsNamespace {
                // Declarations stay marked; the GPX layer ignores them.
            } else if attribute.prefixLength > 0 {
                attribute.namespace = try resolve(prefixStart: attribute.qnameStart, prefixLength: attribute.prefixLength)
                attributes[index] = attribute
            }
            for other in 0..<index {
                let earlier = attributes[other]
                let sameRaw =
                    earlier.qnameLength == attribute.qnameLength
                    && sameBytes(base + earlier.qnameStart, base + attribute.qnameStart, attribute.qnameLength)
                let sameExpanded =
                    earlier.namespace == attribute.namespace && attribute.namespace != XMLScanner.xmlnsNamespace
                    && earlier.localLength == attribute.localLength
                    && sameBytes(base + earlier.localStart, base + attribute.localStart, attribute.localLength)
                if sameRaw || sameExpanded {
                    throw malformed("duplicate attribute", at: attribute.qnameStart)
                }
            }
        }
        let arenaStart = names.count
        names.append(base + nameStart, count: nameLength)
        openElements.append((arenaStart, nameLength, bindingCount, savedDefault))
    }

    private mutating func resolve(prefixStart: Int, prefixLength: Int) throws(GPXError) -> Int32 {
        // Most prefixed elements repeat the previous prefix (gpxtpx:hr, gpxtpx:cad …).
        if resolvedPrefix.generation == bindingsGeneration && resolvedPrefix.length == prefixLength
            && prefixArena.withUnsafeBufferPointer({ memcmp(base + prefixStart, $0.baseAddress! + resolvedPrefix.arenaStart, prefixLength) }) == 0
        {
            return resolvedPrefix.namespace
        }
        var index = bindings.count - 1
        while index >= 0 {
            let binding = bindings[index]
            if binding.prefixLength == prefixLength
                && prefixArena.withUnsafeBufferPointer({ memcmp($0.baseAddress! + binding.prefixStart, base + prefixStart, prefixLength) })
                    == 0
            {
                resolvedPrefix = (bindingsGeneration, binding.prefixStart, prefixLength, binding.namespace)
                return binding.namespace
            }
            index -= 1
        }
        let prefix = String(decoding: UnsafeBufferPointer(start: base + prefixStart, count: prefixLength), as: UTF8.self)
        if let id = undeclaredPrefixes[prefix] { return id }
        if prefixLength == 5 && bytesEqual(prefixStart, "xmlns") {
            throw malformed("xmlns is a reserved prefix", at: prefixStart)
        }
        guard lenient else {
            throw malformed("the prefix '\(prefix)' is not declared (no xmlns:\(prefix)=\"…\")", at: prefixStart)
        }
        // Lenient: files in the wild use the usual Garmin prefixes without declaring them.
        let uri: String
        switch prefix {
        case "gpxtpx": uri = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
        case "gpxpx": uri = "http://www.garmin.com/xmlschemas/PowerExtension/v1"
        case "gpxx": uri = "http://www.garmin.com/xmlschemas/GpxExtensions/v3"
        default: uri = "urn:bikeride:undeclared-prefix:\(prefix)"
        }
        let id = intern(Array(uri.utf8))
        undeclaredPrefixes[prefix] = id
        return id
    }

    private func bytesEqual(_ offset: Int, _ text: StaticString) -> Bool {
        sameBytes(base + offset, text)
    }

    private mutating func closeElement() {
        let open = openElements.removeLast()
        names.count = open.nameStart
        if bindings.count > open.bindingCount {
            let firstRemoved = bindings[open.bindingCount]
            prefixArena.removeSubrange(firstRemoved.prefixStart...)
            bindings.removeSubrange(open.bindingCount...)
            bindingsGeneration += 1
        }
        defaultNamespace = open.defaultNamespace
        if openElements.isEmpty { rootClosed = true }
    }

    /// After a text event: if the end tag of the open element follows in full, consumes it and returns true.
    /// The text's bytes then stay where they are until the next call to `next()`, so the caller can read them in
    /// place. Returns false (consuming nothing) in every other case, and `next()` goes on as usual.
    mutating func consumeEndTagAfterText() -> Bool {
        guard !pendingEnd, let open = openElements.last else { return false }
        let nameStart = position + 2
        let close = nameStart + open.nameLength
        guard close < end, base[position] == UInt8(ascii: "<"), base[position + 1] == UInt8(ascii: "/"),
            base[close] == UInt8(ascii: ">"), sameBytes(names.pointer + open.nameStart, base + nameStart, open.nameLength)
        else { return false }
        position = close + 1
        closeElement()
        return true
    }

    /// Where a simple element found by `peekSimpleElement()` ends.
    private var simpleElementEnd = -1

    /// Looks for the commonest thing in a GPX file, an element with no attributes and plain text
    /// (`<ele>53.6</ele>`, `<gpxtpx:hr>96</gpxtpx:hr>`), after any indentation. When found it sets the element's
    /// name and namespace, `rawText` and `currentTokenStart`, and returns true; the caller then takes it with
    /// `acceptSimpleElement()` or leaves it for `next()`. Anything less plain (attributes, references, CR,
    /// non-ASCII, comments, a child, the end of the buffer) returns false and `next()` reads it the general way,
    /// so this path never has to be right about anything but the plain case.
    mutating func peekSimpleElement() -> Bool {
        guard !pendingEnd, !openElements.isEmpty, openElements.count < XMLScanner.maxDepth else { return false }
        var p = position
        while true {
            while p + 8 <= end && UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self) == 0x2020_2020_2020_2020 { p += 8 }
            guard p < end, case let byte = base[p], byte == 32 || byte == 10 || byte == 9 else { break }
            p += 1
        }
        position = p
        guard p + 1 < end, base[p] == UInt8(ascii: "<"), classes[Int(base[p + 1])] & XMLScanner.nameStartClass != 0 else { return false }
        let nameStart = p + 1
        var colon = -1
        p = nameStart
        while p < end, case let byte = base[p], byte < 0x80, classes[Int(byte)] & XMLScanner.nameClass != 0 {
            if byte == UInt8(ascii: ":") {
                guard colon < 0 else { return false }
                colon = p
            }
            p += 1
        }
        guard p < end, base[p] == UInt8(ascii: ">") else { return false }
        let nameLength = p - nameStart
        if colon >= 0 {
            guard colon > nameStart, colon < p - 1, classes[Int(base[colon + 1])] & XMLScanner.nameStartClass != 0 else { return false }
        }
        p += 1
        let valueStart = p
        while p < end, classes[Int(base[p])] & XMLScanner.textSpecialClass == 0 { p += 1 }
        let closeEnd = p + 2 + nameLength
        guard closeEnd < end, base[p] == UInt8(ascii: "<"), base[p + 1] == UInt8(ascii: "/"), base[closeEnd] == UInt8(ascii: ">"),
            sameBytes(base + p + 2, base + nameStart, nameLength)
        else { return false }
        let prefixLength = colon < 0 ? 0 : colon - nameStart
        if prefixLength == 0 {
            elementNamespace = defaultNamespace
        } else {
            guard let namespace = try? resolve(prefixStart: nameStart, prefixLength: prefixLength) else { return false }
            elementNamespace = namespace
        }
        elementQNameStart = nameStart
        elementQNameLength = nameLength
        elementPrefixLength = prefixLength
        attributeCount = 0
        textStart = valueStart
        textLength = p - valueStart
        textNeedsDecoding = false
        textIsCDATA = false
        currentTokenStart = nameStart - 1
        simpleElementEnd = closeEnd + 1
        return true
    }

    /// Takes the element `peekSimpleElement()` found: the scanner moves past its end tag.
    mutating func acceptSimpleElement() {
        position = simpleElementEnd
    }

    /// The current text run's raw bytes (valid until the next call to `next()`).
    var rawText: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base + textStart, count: textLength) }

    private mutating func scanEndTag() throws(GPXError) -> Step {
        let nameStart = position + 2
        // Fast path: the name of the open element, then '>' or white space.
        if let open = openElements.last, nameStart + open.nameLength < end,
            sameBytes(names.pointer + open.nameStart, base + nameStart, open.nameLength)
        {
            let after = base[nameStart + open.nameLength]
            if after < 0x80 && classes[Int(after)] & XMLScanner.nameClass == 0 {
                var p = nameStart + open.nameLength
                while p < end && isWhitespace(base[p]) { p += 1 }
                guard p < end else { return .needMore }
                guard base[p] == UInt8(ascii: ">") else { throw malformed("an end tag must close with '>'", at: p) }
                position = p + 1
                closeElement()
                return .event(.endElement)
            }
        }
        guard let (nameEnd, _) = try scanName(at: nameStart, what: "an end tag") else { return .needMore }
        var p = nameEnd
        while p < end && isWhitespace(base[p]) { p += 1 }
        guard p < end else { return .needMore }
        guard base[p] == UInt8(ascii: ">") else { throw malformed("an end tag must close with '>'", at: p) }
        guard let open = openElements.last else {
            throw malformed("end tag without a start tag", at: position)
        }
        let length = nameEnd - nameStart
        let matches = length == open.nameLength && sameBytes(names.pointer + open.nameStart, base + nameStart, length)
        guard matches else {
            let expected = String(decoding: UnsafeBufferPointer(start: names.pointer + open.nameStart, count: open.nameLength), as: UTF8.self)
            let found = String(decoding: UnsafeBufferPointer(start: base + nameStart, count: length), as: UTF8.self)
            throw malformed("mismatched tag: </\(found)> closes <\(expected)>", at: position)
        }
        position = p + 1
        closeElement()
        return .event(.endElement)
    }

    /// Processing instructions, and the XML declaration when at the very start.
    private mutating func scanProcessingInstruction() throws(GPXError) -> Step {
        let targetStart = position + 2
        guard let (targetEnd, prefixLength) = try scanName(at: targetStart, what: "a processing instruction") else {
            return .needMore
        }
        guard prefixLength == 0 else { throw malformed("a processing instruction target cannot contain ':'", at: targetStart) }
        let targetLength = targetEnd - targetStart
        let isXML =
            targetLength == 3 && (base[targetStart] | 0x20) == UInt8(ascii: "x") && (base[targetStart + 1] | 0x20) == UInt8(ascii: "m")
            && (base[targetStart + 2] | 0x20) == UInt8(ascii: "l")
        var p = targetEnd
        // Find `?>`, checking the characters on the way.
        let dataStart = p
        while true {
            guard p < end else { return .needMore }
            let byte = base[p]
            if byte == UInt8(ascii: "?") {
                guard p + 1 < end else { return .needMore }
                if base[p + 1] == UInt8(ascii: ">") { break }
                p += 1
            } else {
                guard let length = try characterLength(at: p) else { return .needMore }
                p += length
            }
        }
        if dataStart < p && !isWhitespace(base[dataStart]) {
            throw malformed("a processing instruction's target must be followed by white space", at: dataStart)
        }
        if isXML {
            let isDeclaration =
                bufferOffset + position == 0 && base[targetStart] == UInt8(ascii: "x") && base[targetStart + 1] == UInt8(ascii: "m")
                && base[targetStart + 2] == UInt8(ascii: "l")
            guard isDeclaration else {
                throw malformed("an XML declaration is allowed only at the very start of the file", at: position)
            }
            try checkDeclaration(from: dataStart, to: p)
        }
        position = p + 2
        return .skipped
    }

    /// `version` (required), `encoding`, `standalone`, in that order.
    private func checkDeclaration(from start: Int, to stop: Int) throws(GPXError) {
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: stop - start), as: UTF8.self)
        var rest = Substring(text)
        var seen: [String] = []
        func skipSpace() -> Bool {
            let before = rest.count
            rest = rest.drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            return rest.count != before
        }
        while true {
            let hadSpace = skipSpace()
            if rest.isEmpty { break }
            guard hadSpace else { throw malformed("the XML declaration needs white space between its parts", at: start) }
            let name = String(rest.prefix(while: { $0.isLetter }))
            rest = rest.dropFirst(name.count)
            _ = skipSpace()
            guard rest.first == "=" else { throw malformed("the XML declaration is not of the form name=\"value\"", at: start) }
            rest = rest.dropFirst()
            _ = skipSpace()
            guard let quote = rest.first, quote == "\"" || quote == "'", let close = rest.dropFirst().firstIndex(of: quote) else {
                throw malformed("the XML declaration is not of the form name=\"value\"", at: start)
            }
            let value = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(after: close)...]
            let order = ["version", "encoding", "standalone"]
            guard let rank = order.firstIndex(of: name), seen.allSatisfy({ order.firstIndex(of: $0)! < rank }) else {
                throw malformed("unexpected '\(name)' in the XML declaration", at: start)
            }
            seen.append(name)
            switch name {
            case "version":
                // Letters, digits, '_', '.' and '-', as libexpat accepts (the fuzzer found that it refuses ':'):
                // the version of XML is not GPX's business.
                guard !value.isEmpty, value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "_.-".unicodeScalars.contains($0)) }) else {
                    throw malformed("unsupported XML version '\(value)'", at: start)
                }
            case "encoding":
                guard let first = value.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
                    value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)) })
                else { throw malformed("invalid encoding name '\(value)'", at: start) }
                guard encodingCheck(value) else {
                    throw error(.unsupportedEncoding("the XML declaration says encoding '\(value)', which does not match the file's bytes"), at: start)
                }
            default:
                guard value == "yes" || value == "no" else { throw malformed("standalone must be yes or no", at: start) }
            }
        }
        guard seen.first == "version" else { throw malformed("the XML declaration has no version", at: start) }
    }

    /// `<!--`, `<![CDATA[` and `<!DOCTYPE`.
    private mutating func scanDeclaration() throws(GPXError) -> Step {
        guard position + 9 <= end || atEndOfInput else { return .needMore }
        let available = end - position
        func has(_ text: StaticString) -> Bool {
            text.utf8CodeUnitCount <= available && memcmp(base + position, text.utf8Start, text.utf8CodeUnitCount) == 0
        }
        if has("<!--") {
            var p = position + 4
            while true {
                guard p + 2 < end else {
                    if atEndOfInput { throw error(.truncated("a comment is not closed"), at: position) }
                    return .needMore
                }
                let byte = base[p]
                if byte == UInt8(ascii: "-") && base[p + 1] == UInt8(ascii: "-") {
                    guard base[p + 2] == UInt8(ascii: ">") else { throw malformed("'--' is not allowed inside a comment", at: p) }
                    break
                }
                guard let length = try characterLength(at: p) else { return .needMore }
                p += length
            }
            position = p + 3
            return .skipped
        }
        if has("<![CDATA[") {
            guard !openElements.isEmpty else { throw malformed("CDATA outside the root element", at: position) }
            let start = position + 9
            var p = start
            var needsDecoding = false
            while true {
                guard p + 2 < end else {
                    if atEndOfInput { throw error(.truncated("a CDATA section is not closed"), at: position) }
                    return .needMore
                }
                let byte = base[p]
                if byte == UInt8(ascii: "]") && base[p + 1] == UInt8(ascii: "]") && base[p + 2] == UInt8(ascii: ">") { break }
                if byte >= 0x80 {
                    guard let length = try scanUTF8(at: p, inName: false) else { return .needMore }
                    p += length
                } else if byte < 0x20 && byte != 9 && byte != 10 {
                    if byte == 13 {
                        needsDecoding = true
                        p += 1
                    } else {
                        throw malformed("character U+\(hex(UInt32(byte))) is not allowed in XML", at: p)
                    }
                } else {
                    p += 1
                }
            }
            position = p + 3
            textStart = start
            textLength = p - start
            textNeedsDecoding = needsDecoding
            textIsCDATA = true
            return .event(.text)
        }
        if has("<!DOCTYPE") || has("<!doctype") {
            throw error(.doctypeNotAllowed, at: position)
        }
        if available < 9 && !atEndOfInput { return .needMore }
        throw malformed("unknown markup declaration after '<!'", at: position)
    }

    // MARK: Values

    /// The bytes of an attribute value as XML defines it (references replaced, white space normalised).
    func attributeValueBytes(_ attribute: XMLAttributeToken) -> [UInt8] {
        let raw = UnsafeBufferPointer(start: base + attribute.valueStart, count: attribute.valueLength)
        guard attribute.needsDecoding else { return Array(raw) }
        var out: [UInt8] = []
        XMLScanner.decode(raw, into: &out, isAttribute: true, isCDATA: false)
        return out
    }

    /// An attribute value as a String.
    func attributeValue(_ attribute: XMLAttributeToken) -> String {
        if !attribute.needsDecoding {
            return String(decoding: UnsafeBufferPointer(start: base + attribute.valueStart, count: attribute.valueLength), as: UTF8.self)
        }
        return String(decoding: attributeValueBytes(attribute), as: UTF8.self)
    }

    /// Appends the current text run's value to `out`.
    func appendText(to out: inout [UInt8]) {
        let raw = UnsafeBufferPointer(start: base + textStart, count: textLength)
        if textNeedsDecoding {
            XMLScanner.decode(raw, into: &out, isAttribute: false, isCDATA: textIsCDATA)
        } else {
            out.append(contentsOf: raw)
        }
    }

    /// The bytes of the current element's local name.
    var elementLocalName: UnsafeBufferPointer<UInt8> {
        let offset = elementPrefixLength == 0 ? 0 : elementPrefixLength + 1
        return UnsafeBufferPointer(start: base + elementQNameStart + offset, count: elementQNameLength - offset)
    }

    var elementQName: String {
        String(decoding: UnsafeBufferPointer(start: base + elementQNameStart, count: elementQNameLength), as: UTF8.self)
    }

    var elementPrefix: String? {
        elementPrefixLength == 0
            ? nil : String(decoding: UnsafeBufferPointer(start: base + elementQNameStart, count: elementPrefixLength), as: UTF8.self)
    }

    func localName(of attribute: XMLAttributeToken) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + attribute.localStart, count: attribute.localLength)
    }

    func prefix(of attribute: XMLAttributeToken) -> String? {
        attribute.prefixLength == 0
            ? nil : String(decoding: UnsafeBufferPointer(start: base + attribute.qnameStart, count: attribute.prefixLength), as: UTF8.self)
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

/// The raw names of the open elements, one after another.
final class ByteStack {
    private(set) var pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    private var capacity = 4096
    var count = 0

    func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        if count + length > capacity {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + length))
            bigger.update(from: pointer, count: count)
            pointer.deallocate()
            pointer = bigger
            capacity = max(capacity * 2, count + length)
        }
        (pointer + count).update(from: bytes, count: length)
        count += length
    }

    deinit { pointer.deallocate() }
}

/// Attribute tokens of the current tag, reused from tag to tag.
final class AttributeStorage {
    private(set) var pointer = UnsafeMutablePointer<XMLAttributeToken>.allocate(capacity: 32)
    private var capacity = 32

    func set(_ token: XMLAttributeToken, at index: Int) {
        if index >= capacity {
            let bigger = UnsafeMutablePointer<XMLAttributeToken>.allocate(capacity: capacity * 2)
            bigger.moveInitialize(from: pointer, count: capacity)
            pointer.deallocate()
            pointer = bigger
            capacity *= 2
        }
        (pointer + index).initialize(to: token)
    }

    deinit { pointer.deallocate() }
}

/// The scanner's buffer, owned by a class so that it is freed with the scanner.
final class ScanBuffer {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int

    init(capacity: Int) {
        pointer = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    func grow(to newCapacity: Int) {
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: pointer, count: capacity)
        pointer.deallocate()
        pointer = bigger
        capacity = newCapacity
    }

    deinit { pointer.deallocate() }
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
