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
///
/// The scanner is split by concern: this file holds its state, the event loop and the markup it tokenizes;
/// `XMLScanner+Buffer` the input buffer, `+Characters` references and UTF-8, `+Namespaces` prefix bindings,
/// `+Attributes` the attribute checks, `+Values` the current token's values, `+SimpleElements` the fast path
/// for plain elements, `+Parts` reading in parts. Its state is internal so that those extensions can reach it;
/// nothing outside the `XMLScanner` files writes it.
struct XMLScanner {
    static let maxDepth = 1024
    static let maxTokenBytes = 16 << 20
    static let chunkBytes = 1 << 20
    /// Attributes on one element. GPX gives an element at most a handful (`lat`, `lon`; `version`, `creator`,
    /// `xsi:schemaLocation` and the namespace declarations on the root: Garmin's BaseCamp writes about fifteen);
    /// 256 is ten times the most seen in the wild, and bounds the work one start tag can ask for.
    static let maxAttributes = 256
    /// Namespace declarations on one element: real files declare at most about fifteen, all on the root. Each
    /// declaration stays in scope down the whole subtree, so this and `maxDepth` bound the bindings in scope.
    static let maxNamespaceDeclarations = 64

    // Namespace ids the GPX layer compares against; interned first, in this order.
    static let noNamespace: Int32 = 0
    static let xmlNamespace: Int32 = 1
    static let xmlnsNamespace: Int32 = 2
    static let wellKnownNamespaces = [
        "", "http://www.w3.org/XML/1998/namespace", "http://www.w3.org/2000/xmlns/",
    ]

    var source: any ByteSource
    let storage: ScanBuffer
    var base: UnsafeMutablePointer<UInt8>
    var capacity: Int
    var position = 0
    var end = 0
    var atEndOfInput = false
    var tokenStart = 0
    let classes = XMLScanner.classTable

    // Location bookkeeping for messages: lines and characters already compacted out of the buffer.
    var bufferOffset = 0
    var linesBeforeBuffer = 1
    var columnCarry = 0

    // Document state.
    var seenRoot = false
    var rootClosed = false
    var pendingEnd = false
    let lenient: Bool
    /// Checks the XML declaration's encoding against what the bytes are.
    let encodingCheck: (String) -> Bool

    // Open elements: raw qualified names in an arena, and the namespace scope each opened.
    let names = ByteStack()
    var openElements: [(nameStart: Int, nameLength: Int, bindingCount: Int, defaultNamespace: Int32)] = []

    // Namespaces: interned URIs, and the prefix bindings in scope (prefix bytes in an arena).
    var namespaceURIs: [String]
    var namespaceIDs: [[UInt8]: Int32] = [:]
    var prefixArena: [UInt8] = []
    /// `shadowed`: the binding of the same prefix that this one hides, -1 if none.
    var bindings: [(prefixStart: Int, prefixLength: Int, namespace: Int32, shadowed: Int)] = []
    /// The innermost binding of each prefix in scope, for documents that declare many (see `resolve`).
    var innermostBinding: [[UInt8]: Int] = [:]
    var defaultNamespace: Int32 = 0
    /// The last prefix resolved, valid while the bindings are unchanged.
    var resolvedPrefix: (generation: Int, arenaStart: Int, length: Int, namespace: Int32) = (-1, 0, 0, 0)
    /// Changes whenever a prefix binding is added or removed.
    var bindingsGeneration = 0
    /// Lenient mode only: prefixes used without a declaration, bound for the rest of the document.
    var undeclaredPrefixes: [String: Int32] = [:]
    /// Where each prefix used without a declaration was first seen (lenient reading), for its warning.
    var undeclaredPrefixNotes: [(prefix: String, line: Int, column: Int)] = []

    // The current token.
    var elementNamespace: Int32 = 0
    var elementQNameStart = 0
    var elementQNameLength = 0
    var elementPrefixLength = 0
    /// The current start tag's attributes, `attributeCount` of them (storage reused from tag to tag).
    var attributes: UnsafeMutablePointer<XMLAttributeToken> { attributeStorage.pointer }
    let attributeStorage = AttributeStorage()
    var attributeCount = 0
    var textStart = 0
    var textLength = 0
    var textNeedsDecoding = false
    var textIsCDATA = false
    /// Where the current token began, for messages.
    var currentTokenStart = 0
    /// Table for the duplicate-attribute check of tags with many attributes.
    let attributeNames = AttributeNameTable()

    /// Steps of work done so far, counted wherever work could grow faster than the input: bytes passed over by
    /// each scanning pass (a token read again after a refill counts again), probes of the attribute table,
    /// bindings compared when resolving a prefix. The tests compare it between inputs with N and 2N of a
    /// construct to check that reading is linear; it costs an addition per token.
    var workSteps = 0

    /// Bytes read at a time when no token is left over (tests read in small chunks to cross many boundaries).
    let chunkSize: Int

    init(
        source: any ByteSource, lenient: Bool, chunkSize: Int = XMLScanner.chunkBytes,
        encodingCheck: @escaping (String) -> Bool
    ) {
        self.source = source
        self.chunkSize = chunkSize
        self.lenient = lenient
        self.encodingCheck = encodingCheck
        storage = ScanBuffer(capacity: chunkSize + 4096)
        base = storage.pointer
        capacity = storage.capacity
        namespaceURIs = []
        for uri in XMLScanner.wellKnownNamespaces { _ = intern(Array(uri.utf8)) }
        // `xml` is bound by definition; `xmlns` is reserved and never looked up as an element prefix.
        prefixArena = Array("xml".utf8)
        bindings = [(0, 3, XMLScanner.xmlNamespace, -1)]
        innermostBinding = [prefixArena: 0]
        openElements.reserveCapacity(32)
    }

    /// How many elements are open, counting the current start tag.
    var depth: Int { openElements.count }

    /// For a scanner that reads one part of a document: the depth its part starts and must end at. At the end
    /// of its input at that depth it reports `.endOfDocument` instead of an unclosed element.
    var partDepth: Int?

    /// Where a simple element found by `peekSimpleElement()` ends.
    var simpleElementEnd = -1

    /// The start tag name `peekSimpleElement()` read when the element was not simple after all (`<extensions>`):
    /// where it starts (from the start of the input, which stays valid when the buffer moves), its length and
    /// its prefix's, so that `scanStartTag()` does not read it again.
    var peekedTagName = (inputStart: -1, length: 0, prefixLength: 0)

    // MARK: Character classes

    static let nameStartClass: UInt8 = 1
    static let nameClass: UInt8 = 2
    static let textSpecialClass: UInt8 = 4
    static let attributeSpecialClass: UInt8 = 8
    static let whitespaceClass: UInt8 = 16
    /// Name characters other than ':' (ASCII letters, digits, '-', '.', '_'): the name loops' one test a byte.
    static let plainNameClass: UInt8 = 32

    /// Byte classes for the hot loops; a raw pointer so that the loops pay no bounds or lazy-init checks.
    nonisolated(unsafe) static let classTable: UnsafeMutablePointer<UInt8> = makeClassTable()

    static func makeClassTable() -> UnsafeMutablePointer<UInt8> {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        for byte in 0..<256 {
            var value: UInt8 = 0
            let isLetter = (65...90).contains(byte) || (97...122).contains(byte)
            if isLetter || byte == 95 || byte == 58 { value |= nameStartClass | nameClass }
            if (48...57).contains(byte) || byte == 45 || byte == 46 { value |= nameClass }
            if value & nameClass != 0 && byte != 58 { value |= plainNameClass }
            if byte < 0x20 || byte >= 0x80 || byte == 60 || byte == 38 || byte == 93 {
                value |= textSpecialClass
            }
            if byte < 0x20 || byte >= 0x80 || byte == 60 || byte == 38 { value |= attributeSpecialClass }
            if byte == 32 || byte == 9 || byte == 10 || byte == 13 { value |= whitespaceClass }
            table[byte] = value
        }
        return table
    }

    /// The first byte from `start` on that is not a space, line feed or tab. Indentation is a line end, then a
    /// run of spaces: eight bytes are looked at together, and the spaces at their start skipped at once.
    @inline(__always) func afterIndentation(_ start: Int) -> Int {
        var p = start
        while true {
            while p + 8 <= end {
                let notSpaces = UInt64(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)) ^ 0x2020_2020_2020_2020
                // A space is a zero byte here: the zero bits below the first set one cover the leading spaces.
                p += notSpaces.trailingZeroBitCount >> 3
                if notSpaces != 0 { break }
            }
            guard p < end, case let byte = base[p], byte == 32 || byte == 10 || byte == 9 else { return p }
            p += 1
        }
    }

    @inline(__always) func isWhitespace(_ byte: UInt8) -> Bool {
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

    func malformed(_ text: String, at offset: Int) -> GPXError {
        error(.notWellFormed(text), at: offset)
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
            case .event(let event):
                workSteps += position - tokenStart
                return event
            case .skipped:
                workSteps += position - tokenStart
                continue
            case .needMore:
                // The token is read again from its start once there is more: `refill` at least doubles what it
                // has, so that the passes over a long token add up to a small multiple of its length.
                workSteps += end - tokenStart
                if try refill() {
                    position = tokenStart
                    continue
                }
                let inMarkup = tokenStart < end && base[tokenStart] == UInt8(ascii: "<")
                throw error(.truncated((inMarkup ? "it stops inside a tag or comment; " : "") + truncationMessage()), at: tokenStart)
            }
        }
    }

    enum Step {
        case event(XMLEvent)
        case skipped
        case needMore
    }

    func truncationMessage() -> String {
        if let open = openElements.last {
            let name = String(decoding: UnsafeBufferPointer(start: names.pointer + open.nameStart, count: open.nameLength), as: UTF8.self)
            return "<\(name)> is never closed"
        }
        return "a tag or comment is not finished"
    }

    mutating func finishDocument() throws(GPXError) -> XMLEvent {
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

    mutating func scanText(skippingWhitespace: Bool) throws(GPXError) -> Step {
        var p = position
        if skippingWhitespace {
            p = afterIndentation(p)
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

    // MARK: Markup

    mutating func scanMarkup() throws(GPXError) -> Step {
        guard position + 1 < end else { return .needMore }
        switch base[position + 1] {
        case UInt8(ascii: "/"): return try scanEndTag()
        case UInt8(ascii: "?"): return try scanProcessingInstruction()
        case UInt8(ascii: "!"): return try scanDeclaration()
        default: return try scanStartTag()
        }
    }

    /// Scans a qualified name at `p`. Returns (end offset, prefix length) or nil to read more.
    func scanName(at start: Int, what: String) throws(GPXError) -> (end: Int, prefixLength: Int)? {
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
            if classes[Int(byte)] & XMLScanner.plainNameClass != 0 {
                p += 1
            } else if byte == UInt8(ascii: ":") {
                guard colon < 0 else { throw malformed("a name has more than one ':'", at: p) }
                colon = p
                p += 1
            } else if byte >= 0x80 {
                guard let length = try scanUTF8(at: p, inName: true) else { return nil }
                p += length
            } else {
                break
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

    mutating func scanStartTag() throws(GPXError) -> Step {
        if rootClosed { throw malformed("a second root element (junk after the document element)", at: position) }
        let nameStart = position + 1
        let nameEnd: Int, prefixLength: Int
        if peekedTagName.inputStart == bufferOffset + nameStart {
            (nameEnd, prefixLength) = (nameStart + peekedTagName.length, peekedTagName.prefixLength)
        } else {
            guard let name = try scanName(at: nameStart, what: "a tag") else { return .needMore }
            (nameEnd, prefixLength) = name
        }
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
            guard attributeCount < XMLScanner.maxAttributes else {
                throw error(.tooManyAttributes(limit: XMLScanner.maxAttributes), at: attributeStart)
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

    mutating func scanEndTag() throws(GPXError) -> Step {
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
    mutating func scanProcessingInstruction() throws(GPXError) -> Step {
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
    func checkDeclaration(from start: Int, to stop: Int) throws(GPXError) {
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
    mutating func scanDeclaration() throws(GPXError) -> Step {
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
}
