import Foundation

extension GPXParser {
    // MARK: Helpers

    mutating func kind(_ namespace: Int32) -> NamespaceKind {
        let index = Int(namespace)
        while namespaceKinds.count <= index {
            namespaceKinds.append(NamespaceKind(uri: scanner.namespaceURIs[namespaceKinds.count]))
        }
        return namespaceKinds[index]
    }

    /// The current element's name, if it is a GPX element.
    mutating func gpxName() -> GPXName {
        kind(scanner.elementNamespace) == .gpx ? GPXName.lookup(scanner.elementLocalName) : .unknown
    }

    func failure(_ reason: GPXError.Reason) -> GPXError {
        scanner.error(reason, at: scanner.currentTokenStart)
    }

    /// Consumes the rest of the current element, checking it.
    mutating func skipElement() throws(GPXError) {
        try dropPeek()
        var depth = 1
        while depth > 0 {
            switch try scanner.next(skippingWhitespace: true) {
            case .startElement: depth += 1
            case .endElement: depth -= 1
            case .text: continue
            case .endOfDocument: return
            }
        }
    }

    /// An element GPX does not allow here: refused, or skipped in lenient mode.
    mutating func unexpected(parent: StaticString) throws(GPXError) {
        guard lenient else { throw failure(.unexpectedElement(name: scanner.elementQName, parent: "\(parent)")) }
        report.skippedElements += 1
        warn(.elementSkipped, at: scanner.currentTokenStart, detail: "<\(scanner.elementQName.prefix(80))> is not part of GPX (in <\(parent)>)")
        try skipElement()
    }

    /// Reads an element with text content into `text` (decoded), consuming its end tag.
    mutating func readText(of element: StaticString) throws(GPXError) {
        text.removeAll(keepingCapacity: true)
        if peeked {
            peeked = false
            scanner.acceptSimpleElement()
            text.append(contentsOf: scanner.rawText)
            return
        }
        try readRestOfText(of: element)
    }

    /// Gives up a peeked element: the scanner reads its start tag again the general way, for code that walks
    /// the element's events (trees, skipping).
    mutating func dropPeek() throws(GPXError) {
        guard peeked else { return }
        peeked = false
        _ = try scanner.next(skippingWhitespace: true)
    }

    mutating func readRestOfText(of element: StaticString) throws(GPXError) {
        while true {
            switch try scanner.next() {
            case .text: scanner.appendText(to: &text)
            case .endElement: return
            case .startElement: try unexpected(parent: element)
            case .endOfDocument: return
            }
        }
    }

    mutating func readString(of element: StaticString) throws(GPXError) -> String? {
        try readText(of: element)
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    /// Reads a simple element's value and hands its bytes to `body`: straight from the scanner's buffer when the
    /// element is one plain text run (nearly always), else from `text`.
    mutating func withValueBytes<T>(of element: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(GPXError) -> T {
        if peeked {
            peeked = false
            scanner.acceptSimpleElement()
            return body(scanner.rawText)
        }
        switch try scanner.next() {
        case .endElement:
            return body(UnsafeBufferPointer(start: nil, count: 0))
        case .text where !scanner.textNeedsDecoding && scanner.consumeEndTagAfterText():
            return body(scanner.rawText)
        case .text:
            text.removeAll(keepingCapacity: true)
            scanner.appendText(to: &text)
            try readRestOfText(of: element)
        case .startElement:
            text.removeAll(keepingCapacity: true)
            try unexpected(parent: element)
            try readRestOfText(of: element)
        case .endOfDocument:
            text.removeAll(keepingCapacity: true)
        }
        return text.withUnsafeBufferPointer(body)
    }

    /// A number element; empty gives nil. Invalid numbers are refused (dropped in lenient mode).
    mutating func readNumber(of element: StaticString, range: ClosedRange<Double>? = nil) throws(GPXError) -> Double? {
        let start = scanner.currentTokenStart
        let parsed = try withValueBytes(of: element) { bytes -> ParsedValue<Double> in
            if bytes.allSatisfy(DecimalParser.isSpace) { return .empty }
            if let value = DecimalParser.parse(bytes), range?.contains(value) ?? true { return .value(value) }
            return .invalid(String(decoding: bytes.prefix(80), as: UTF8.self))
        }
        switch parsed {
        case .empty: return nil
        case .value(let value): return value
        case .invalid(let written):
            let expected = range.map { "a number in \(Int($0.lowerBound))…\(Int($0.upperBound))" } ?? "a number"
            return try invalidValue(element: element, value: written, expected: expected, at: start)
        }
    }

    mutating func readInteger(of element: StaticString) throws(GPXError) -> Int? {
        let start = scanner.currentTokenStart
        try readText(of: element)
        if text.allSatisfy(DecimalParser.isSpace) { return nil }
        if let value = text.withUnsafeBufferPointer({ DecimalParser.parseInteger($0) }) { return value }
        return try invalidValue(element: element, expected: "a whole number", at: start)
    }

    mutating func readTime(of element: StaticString) throws(GPXError) -> GPXTime? {
        let start = scanner.currentTokenStart
        let parsed = try withValueBytes(of: element) { bytes -> ParsedValue<GPXTime> in
            var first = 0
            var last = bytes.count
            while first < last && DecimalParser.isSpace(bytes[first]) { first += 1 }
            while last > first && DecimalParser.isSpace(bytes[last - 1]) { last -= 1 }
            if first == last { return .empty }
            switch GPXTime.parse(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[first..<last])) {
            case .success(let time): return .value(time)
            case .failure: return .invalid(String(decoding: bytes.prefix(80), as: UTF8.self))
            }
        }
        switch parsed {
        case .empty: return nil
        case .value(let time): return time
        case .invalid(let written):
            return try invalidValue(element: element, value: written, expected: "an RFC 3339 time such as 2024-05-01T08:00:00Z", at: start)
        }
    }

    mutating func invalidValue<T>(element: StaticString, expected: String, at start: Int) throws(GPXError) -> T? {
        try invalidValue(element: element, value: String(decoding: text.prefix(80), as: UTF8.self), expected: expected, at: start)
    }

    mutating func invalidValue<T>(element: StaticString, value: String, expected: String, at start: Int) throws(GPXError) -> T? {
        guard lenient else {
            let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
            throw scanner.error(.invalidValue(element: "\(element)", value: value, expected: expected), at: start)
        }
        report.droppedValues += 1
        let shown = value.trimmingCharacters(in: .whitespacesAndNewlines)
        warn(.valueDropped, at: start, detail: "<\(element)> '\(shown)' is not \(expected)")
        return nil
    }

    /// Counts what lenient reading left out, and keeps the first ones with their place in the file (finding
    /// the line is a pass over the buffer: capped, so that a million bad points still read in linear time).
    mutating func warn(_ kind: GPXReadWarning.Kind, at offset: Int, detail: String) {
        report.counts[kind, default: 0] += 1
        guard report.warnings.count < GPXReadReport.maximumLocatedWarnings else { return }
        let (line, column) = scanner.location(of: offset)
        report.warnings.append(GPXReadWarning(kind: kind, detail: detail, line: line, column: column))
    }

    /// A whole element kept as a tree (for extensions), built without recursion so depth cannot hurt.
    mutating func readTree() throws(GPXError) -> XMLElementNode {
        try dropPeek()
        var stack: [XMLElementNode] = [currentElementNode()]
        // Text events in a row (text split by comments or CDATA sections) gather in `text` and become one text
        // child when an element starts or ends: joining each to the child before would copy all of it each time.
        var textPending = false
        text.removeAll(keepingCapacity: true)
        while true {
            let event = try scanner.next()
            if event == .text {
                scanner.appendText(to: &text)
                textPending = true
                continue
            }
            if textPending {
                stack[stack.count - 1].children.append(.text(String(decoding: text, as: UTF8.self)))
                text.removeAll(keepingCapacity: true)
                textPending = false
            }
            switch event {
            case .startElement:
                stack.append(currentElementNode())
            case .text:
                continue
            case .endElement, .endOfDocument:
                var finished = stack.removeLast()
                // Indentation between child elements is layout, not content.
                if finished.children.contains(where: { if case .element = $0 { return true } else { return false } }) {
                    finished.children.removeAll { child in
                        if case .text(let string) = child { return string.allSatisfy(\.isWhitespace) }
                        return false
                    }
                }
                if stack.isEmpty { return finished }
                stack[stack.count - 1].children.append(.element(finished))
            }
        }
    }

    mutating func currentElementNode() -> XMLElementNode {
        var node = XMLElementNode(
            namespace: scanner.namespaceURIs[Int(scanner.elementNamespace)],
            localName: String(decoding: scanner.elementLocalName, as: UTF8.self),
            prefix: scanner.elementPrefix)
        for index in 0..<scanner.attributeCount {
            let attribute = scanner.attributes[index]
            if attribute.namespace == XMLScanner.xmlnsNamespace { continue }
            node.attributes.append(
                XMLAttribute(
                    namespace: scanner.namespaceURIs[Int(attribute.namespace)],
                    localName: String(decoding: scanner.localName(of: attribute), as: UTF8.self),
                    prefix: scanner.prefix(of: attribute), value: scanner.attributeValue(attribute)))
        }
        return node
    }

    /// An element outside `<extensions>` that is not GPX: kept as an extension of its parent, or skipped.
    mutating func keepForeign(in extensions: inout [XMLElementNode]) throws(GPXError) {
        if keepsExtensions {
            extensions.append(try readTree())
        } else {
            try skipElement()
        }
    }

    /// The value of an unprefixed attribute of the current element.
    func attribute(_ name: StaticString) -> XMLAttributeToken? {
        for index in 0..<scanner.attributeCount {
            let attribute = scanner.attributes[index]
            guard attribute.namespace == XMLScanner.noNamespace, attribute.localLength == name.utf8CodeUnitCount else { continue }
            if sameBytes(scanner.base + attribute.localStart, name) { return attribute }
        }
        return nil
    }

    func attributeString(_ name: StaticString) -> String? {
        attribute(name).map { scanner.attributeValue($0) }
    }
}
