import Foundation

/// A simple element's value as read: nothing, a value, or text that is not a value of its type.
enum ParsedValue<Value> {
    case empty
    case value(Value)
    case invalid(String)
}

/// Turns the scanner's events into GPX values, handing them to a `GPXContentHandler`.
///
/// Reads GPX 1.0 and 1.1 alike (real files mix them: `speed` in 1.1 points, elements out of schema order),
/// keeps every field and every extension, and refuses what cannot be a GPX value: a position out of range
/// or not a finite number, an impossible time. In lenient mode such points are dropped and counted instead,
/// and unknown elements skipped.
struct GPXParser<Handler: GPXContentHandler> {
    var scanner: XMLScanner
    var handler: Handler
    let lenient: Bool
    private(set) var report = GPXReadReport()
    private let keepsExtensions: Bool
    private var namespaceKinds: [NamespaceKind] = []
    /// Scratch for element text, reused.
    private var text: [UInt8] = []
    /// The current element was found by `XMLScanner.peekSimpleElement()` and not yet consumed: its value is
    /// `scanner.rawText`, and the value readers take it from there.
    private var peeked = false
    /// Set by the reader when the file may be read in parts on other threads; used at the first track segment.
    var speculationSetup: SpeculationSetup?
    private(set) var speculation: SpeculativeReading?
    /// Where the next part read ahead starts (`Int.max`: none).
    private var nextPartOffset = Int.max

    init(scanner: XMLScanner, handler: Handler, lenient: Bool) {
        self.scanner = scanner
        self.handler = handler
        self.lenient = lenient
        keepsExtensions = handler.keepsUnknownExtensions
        text.reserveCapacity(256)
    }

    // MARK: Helpers

    private mutating func kind(_ namespace: Int32) -> NamespaceKind {
        let index = Int(namespace)
        while namespaceKinds.count <= index {
            namespaceKinds.append(NamespaceKind(uri: scanner.namespaceURIs[namespaceKinds.count]))
        }
        return namespaceKinds[index]
    }

    /// The current element's name, if it is a GPX element.
    private mutating func gpxName() -> GPXName {
        kind(scanner.elementNamespace) == .gpx ? GPXName.lookup(scanner.elementLocalName) : .unknown
    }

    private func failure(_ reason: GPXError.Reason) -> GPXError {
        scanner.error(reason, at: scanner.currentTokenStart)
    }

    /// Consumes the rest of the current element, checking it.
    private mutating func skipElement() throws(GPXError) {
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
    private mutating func unexpected(parent: StaticString) throws(GPXError) {
        guard lenient else { throw failure(.unexpectedElement(name: scanner.elementQName, parent: "\(parent)")) }
        report.skippedElements += 1
        try skipElement()
    }

    /// Reads an element with text content into `text` (decoded), consuming its end tag.
    private mutating func readText(of element: StaticString) throws(GPXError) {
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
    private mutating func dropPeek() throws(GPXError) {
        guard peeked else { return }
        peeked = false
        _ = try scanner.next(skippingWhitespace: true)
    }

    private mutating func readRestOfText(of element: StaticString) throws(GPXError) {
        while true {
            switch try scanner.next() {
            case .text: scanner.appendText(to: &text)
            case .endElement: return
            case .startElement: try unexpected(parent: element)
            case .endOfDocument: return
            }
        }
    }

    private mutating func readString(of element: StaticString) throws(GPXError) -> String? {
        try readText(of: element)
        return text.isEmpty ? nil : String(decoding: text, as: UTF8.self)
    }

    /// Reads a simple element's value and hands its bytes to `body`: straight from the scanner's buffer when the
    /// element is one plain text run (nearly always), else from `text`.
    private mutating func withValueBytes<T>(of element: StaticString, _ body: (UnsafeBufferPointer<UInt8>) -> T) throws(GPXError) -> T {
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
    private mutating func readNumber(of element: StaticString, range: ClosedRange<Double>? = nil) throws(GPXError) -> Double? {
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

    private mutating func readInteger(of element: StaticString) throws(GPXError) -> Int? {
        let start = scanner.currentTokenStart
        try readText(of: element)
        if text.allSatisfy(DecimalParser.isSpace) { return nil }
        if let value = text.withUnsafeBufferPointer({ DecimalParser.parseInteger($0) }) { return value }
        return try invalidValue(element: element, expected: "a whole number", at: start)
    }

    private mutating func readTime(of element: StaticString) throws(GPXError) -> GPXTime? {
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

    private mutating func invalidValue<T>(element: StaticString, expected: String, at start: Int) throws(GPXError) -> T? {
        try invalidValue(element: element, value: String(decoding: text.prefix(80), as: UTF8.self), expected: expected, at: start)
    }

    private mutating func invalidValue<T>(element: StaticString, value: String, expected: String, at start: Int) throws(GPXError) -> T? {
        guard lenient else {
            let value = value.trimmingCharacters(in: .whitespacesAndNewlines)
            throw scanner.error(.invalidValue(element: "\(element)", value: value, expected: expected), at: start)
        }
        report.droppedValues += 1
        return nil
    }

    /// A whole element kept as a tree (for extensions), built without recursion so depth cannot hurt.
    private mutating func readTree() throws(GPXError) -> XMLElementNode {
        try dropPeek()
        var stack: [XMLElementNode] = [currentElementNode()]
        while true {
            switch try scanner.next() {
            case .startElement:
                stack.append(currentElementNode())
            case .text:
                text.removeAll(keepingCapacity: true)
                scanner.appendText(to: &text)
                let string = String(decoding: text, as: UTF8.self)
                if case .text(let previous)? = stack[stack.count - 1].children.last {
                    stack[stack.count - 1].children[stack[stack.count - 1].children.count - 1] = .text(previous + string)
                } else {
                    stack[stack.count - 1].children.append(.text(string))
                }
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

    private mutating func currentElementNode() -> XMLElementNode {
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
    private mutating func keepForeign(in extensions: inout [XMLElementNode]) throws(GPXError) {
        if keepsExtensions {
            extensions.append(try readTree())
        } else {
            try skipElement()
        }
    }

    /// The value of an unprefixed attribute of the current element.
    private func attribute(_ name: StaticString) -> XMLAttributeToken? {
        for index in 0..<scanner.attributeCount {
            let attribute = scanner.attributes[index]
            guard attribute.namespace == XMLScanner.noNamespace, attribute.localLength == name.utf8CodeUnitCount else { continue }
            if sameBytes(scanner.base + attribute.localStart, name) { return attribute }
        }
        return nil
    }

    private func attributeString(_ name: StaticString) -> String? {
        attribute(name).map { scanner.attributeValue($0) }
    }

    // MARK: Document

    mutating func parse() throws(GPXError) {
        var event = try scanner.next()
        while event == .text { event = try scanner.next() }
        guard event == .startElement else { throw failure(.empty) }
        let rootKind = kind(scanner.elementNamespace)
        guard GPXName.lookup(scanner.elementLocalName) == .gpx, rootKind == .gpx || lenient else {
            throw failure(.notGPX(root: scanner.elementQName))
        }
        var version = attributeString("version") ?? "1.1"
        if version != "1.0" && version != "1.1" {
            guard lenient else { throw failure(.unsupportedVersion(version)) }
            version = "1.1"
            report.droppedValues += 1
        }
        handler.beginDocument(version: version, creator: attributeString("creator"))

        var metadata = GPXMetadata()
        var extensions: [XMLElementNode] = []
        var pendingURLName: String?
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                if let pendingURLName, metadata.links.isEmpty { metadata.links.append(GPXLink(href: "", text: pendingURLName)) }
                handler.endDocument(metadata: metadata, extensions: extensions)
                // The epilog: only comments, processing instructions and white space may follow.
                while try scanner.next() != .endOfDocument {}
                return
            case .startElement:
                switch gpxName() {
                case .metadata: try parseMetadata(into: &metadata)
                case .wpt:
                    if let point = try parsePoint(element: "wpt") { handler.waypoint(point) }
                case .rte: try parseRoute()
                case .trk: try parseTrack()
                case .extensions: try parseExtensions(into: &extensions)
                // GPX 1.0 keeps the metadata on the root.
                case .name: metadata.name = try readString(of: "name")
                case .desc: metadata.description = try readString(of: "desc")
                case .author:
                    let name = try readString(of: "author")
                    metadata.author = GPXPerson(name: name, email: metadata.author?.email, link: metadata.author?.link)
                case .email:
                    let email = try readString(of: "email")
                    metadata.author = GPXPerson(name: metadata.author?.name, email: email, link: metadata.author?.link)
                case .url:
                    if let href = try readString(of: "url") { metadata.links.append(GPXLink(href: href, text: pendingURLName)) }
                    pendingURLName = nil
                case .urlname:
                    let name = try readString(of: "urlname")
                    if let last = metadata.links.indices.last, metadata.links[last].text == nil {
                        metadata.links[last].text = name
                    } else {
                        pendingURLName = name
                    }
                case .time: metadata.time = try readTime(of: "time")
                case .keywords: metadata.keywords = try readString(of: "keywords")
                case .bounds: metadata.bounds = try readBounds()
                case .unknown where kind(scanner.elementNamespace) != .gpx: try keepForeign(in: &extensions)
                default: try unexpected(parent: "gpx")
                }
            }
        }
    }

    private mutating func parseMetadata(into metadata: inout GPXMetadata) throws(GPXError) {
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return
            case .startElement:
                switch gpxName() {
                case .name: metadata.name = try readString(of: "name")
                case .desc: metadata.description = try readString(of: "desc")
                case .author: metadata.author = try parsePerson()
                case .copyright: metadata.copyright = try parseCopyright()
                case .link: if let link = try parseLink() { metadata.links.append(link) }
                case .time: metadata.time = try readTime(of: "time")
                case .keywords: metadata.keywords = try readString(of: "keywords")
                case .bounds: metadata.bounds = try readBounds()
                case .extensions: try parseExtensions(into: &metadata.extensions)
                case .unknown where kind(scanner.elementNamespace) != .gpx: try keepForeign(in: &metadata.extensions)
                default: try unexpected(parent: "metadata")
                }
            }
        }
    }

    private mutating func parsePerson() throws(GPXError) -> GPXPerson {
        var person = GPXPerson()
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return person
            case .startElement:
                switch gpxName() {
                case .name: person.name = try readString(of: "name")
                case .email:
                    let id = attributeString("id")
                    let domain = attributeString("domain")
                    try skipElement()
                    if let id, let domain { person.email = domain.isEmpty ? id : "\(id)@\(domain)" }
                case .link: person.link = try parseLink()
                default: try unexpected(parent: "author")
                }
            }
        }
    }

    private mutating func parseCopyright() throws(GPXError) -> GPXCopyright {
        var copyright = GPXCopyright(author: attributeString("author") ?? "")
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return copyright
            case .startElement:
                switch gpxName() {
                case .year:
                    let start = scanner.currentTokenStart
                    try readText(of: "year")
                    let trimmed = text.filter { !DecimalParser.isSpace($0) }
                    // xsd:gYear: four or more digits, optionally with a zone, which the year keeps no room for.
                    let digits = trimmed.prefix { $0 >= 48 && $0 <= 57 }
                    if let year = Int(String(decoding: digits, as: UTF8.self)), digits.count >= 4 {
                        copyright.year = year
                    } else if !trimmed.isEmpty {
                        copyright.year = try invalidValue(element: "year", expected: "a year such as 2024", at: start)
                    }
                case .license: copyright.license = try readString(of: "license")
                default: try unexpected(parent: "copyright")
                }
            }
        }
    }

    /// GPX 1.1 `link`: `href` attribute, `text` and `type` children.
    private mutating func parseLink() throws(GPXError) -> GPXLink? {
        let href = attributeString("href")
        let start = scanner.currentTokenStart
        var link = GPXLink(href: href ?? "")
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                guard href != nil else {
                    guard lenient else { throw scanner.error(.missingAttribute(element: "link", attribute: "href"), at: start) }
                    report.droppedValues += 1
                    return nil
                }
                return link
            case .startElement:
                switch gpxName() {
                case .text: link.text = try readString(of: "text")
                case .type: link.type = try readString(of: "type")
                default: try unexpected(parent: "link")
                }
            }
        }
    }

    /// Bounds are informational: ones with missing, misnamed or impossible attributes are left out.
    private mutating func readBounds() throws(GPXError) -> GPXBounds? {
        func value(_ name: StaticString, _ range: ClosedRange<Double>) -> Double? {
            guard let attribute = attribute(name) else { return nil }
            let bytes = scanner.attributeValueBytes(attribute)
            guard let number = bytes.withUnsafeBufferPointer({ DecimalParser.parse($0) }), range.contains(number) else { return nil }
            return number
        }
        let bounds = value("minlat", -90...90).flatMap { minLatitude in
            value("minlon", -180...180).flatMap { minLongitude in
                value("maxlat", -90...90).flatMap { maxLatitude in
                    value("maxlon", -180...180).map { maxLongitude in
                        GPXBounds(
                            minLatitude: minLatitude, minLongitude: minLongitude, maxLatitude: maxLatitude, maxLongitude: maxLongitude)
                    }
                }
            }
        }
        try skipElement()
        return bounds
    }

    // MARK: Tracks and routes

    private mutating func parseTrack() throws(GPXError) {
        handler.beginTrack()
        var track = Track()
        var pendingURLName: String?
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                if let number = takeNumber(from: &track.extensions) { track.number = track.number ?? number }
                handler.endTrack(track)
                return
            case .startElement:
                switch gpxName() {
                case .trkseg: try parseSegment()
                case .name: track.name = try readString(of: "name")
                case .cmt: track.comment = try readString(of: "cmt")
                case .desc: track.description = try readString(of: "desc")
                case .src: track.source = try readString(of: "src")
                case .link: if let link = try parseLink() { track.links.append(link) }
                case .url: try readURL(into: &track.links, pendingName: &pendingURLName)
                case .urlname: try readURLName(into: &track.links, pendingName: &pendingURLName)
                case .number: track.number = try readInteger(of: "number")
                case .type: track.type = try readString(of: "type")
                case .extensions: try parseExtensions(into: &track.extensions)
                case .unknown where kind(scanner.elementNamespace) != .gpx: try keepForeign(in: &track.extensions)
                default: try unexpected(parent: "trk")
                }
            }
        }
    }

    private mutating func parseSegment() throws(GPXError) {
        handler.beginSegment()
        if speculationSetup != nil { startSpeculation() }
        var extensions: [XMLElementNode] = []
        var pointsInSegment = 0
        while true {
            if scanner.inputOffset >= nextPartOffset { try takeParts(pointsInSegment: &pointsInSegment) }
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                handler.endSegment(extensions: extensions)
                return
            case .startElement:
                switch gpxName() {
                case .trkpt where isLegacyPauseMarker():
                    // Old OpenTracks exports mark pause (lat 100) and resume (lat 200) with impossible points:
                    // they end the segment instead of being refused.
                    try skipElement()
                    if pointsInSegment > 0 {
                        handler.endSegment(extensions: [])
                        handler.beginSegment()
                        pointsInSegment = 0
                    }
                case .trkpt:
                    if let point = try parsePoint(element: "trkpt") {
                        handler.trackPoint(point)
                        pointsInSegment += 1
                    }
                case .extensions: try parseExtensions(into: &extensions)
                case .unknown where kind(scanner.elementNamespace) != .gpx: try keepForeign(in: &extensions)
                default: try unexpected(parent: "trkseg")
                }
            }
        }
    }

    // MARK: Reading in parts

    /// At the first track segment: starts reading the rest of the file in parts, in this segment's context.
    private mutating func startSpeculation() {
        guard let setup = speculationSetup, handler is any SpeculatedPartConsumer, scanner.depth > 0 else { return }
        speculationSetup = nil
        // `<trkseg/>` has no inside to read in parts.
        let context = scanner.partScanner(reading: MemorySource([]))
        guard context.hasSameContext(as: scanner) else { return }
        let qname = Array(scanner.elementQName.utf8)
        let prefix = scanner.elementPrefixLength == 0 ? [] : Array(qname[...scanner.elementPrefixLength])
        speculation = SpeculativeReading(setup: setup, context: context, trackPointName: prefix + Array("trkpt".utf8), start: scanner.inputOffset)
        nextPartOffset = speculation?.nextBoundary ?? .max
    }

    /// Stops the threads reading ahead, if any. Returns how many parts were taken from them and how many read
    /// sequentially.
    @discardableResult
    mutating func finishSpeculation() -> (taken: Int, sequential: Int) {
        guard let speculation else { return (0, 0) }
        speculation.stop()
        self.speculation = nil
        nextPartOffset = .max
        return (speculation.partsTaken, speculation.partsReadSequentially)
    }

    /// The sequential reader has come to or passed the start of a part read ahead: takes it if it stands exactly
    /// there, between two children of a segment, in the context the part was read in (see `SpeculativeReading`).
    private mutating func takeParts(pointsInSegment: inout Int) throws(GPXError) {
        guard let speculation else {
            nextPartOffset = .max
            return
        }
        while scanner.inputOffset >= nextPartOffset {
            let standsAtPart =
                scanner.inputOffset == nextPartOffset && pointsInSegment > 0 && scanner.hasSameContext(as: speculation.template)
            if let part = speculation.advance(taking: standsAtPart), var consumer = handler as? any SpeculatedPartConsumer {
                consumer.absorb(part)
                handler = consumer as! Handler
                try scanner.skip(to: part.end, extent: part.extent)
                pointsInSegment = part.pointsInLastSegment
            }
            nextPartOffset = speculation.nextBoundary
        }
    }

    /// Reads a part on a worker: track points and segment breaks only, from a scanner made by
    /// `XMLScanner.partScanner(reading:)` in `context`. Returns the points since the last segment break (1 when
    /// there was none: the sequential reader only hands over after a point). Throws for anything else, and when
    /// the part does not end in `context`; the sequential reader then reads the part itself.
    mutating func parsePart(in context: XMLScanner) throws(GPXError) -> Int {
        var pointsInSegment = 1
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endOfDocument:
                guard scanner.hasSameContext(as: context) else { throw failure(.notWellFormed("a part ends elsewhere")) }
                return pointsInSegment
            case .endElement:
                // `</trkseg>`: within a part only a new `<trkseg>` may follow.
                handler.endSegment(extensions: [])
                var event = try scanner.next(skippingWhitespace: true)
                while event == .text { event = try scanner.next(skippingWhitespace: true) }
                guard event == .startElement, gpxName() == .trkseg else { throw failure(.notWellFormed("not a segment break")) }
                handler.beginSegment()
                pointsInSegment = 0
            case .startElement:
                guard gpxName() == .trkpt else { throw failure(.notWellFormed("not a track point")) }
                if isLegacyPauseMarker() {
                    try skipElement()
                    if pointsInSegment > 0 {
                        handler.endSegment(extensions: [])
                        handler.beginSegment()
                        pointsInSegment = 0
                    }
                } else if let point = try parsePoint(element: "trkpt") {
                    handler.trackPoint(point)
                    pointsInSegment += 1
                }
            }
        }
    }

    private mutating func parseRoute() throws(GPXError) {
        var route = Route()
        var pendingURLName: String?
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                if let number = takeNumber(from: &route.extensions) { route.number = route.number ?? number }
                handler.route(route)
                return
            case .startElement:
                switch gpxName() {
                case .rtept: if let point = try parsePoint(element: "rtept") { route.points.append(point) }
                case .name: route.name = try readString(of: "name")
                case .cmt: route.comment = try readString(of: "cmt")
                case .desc: route.description = try readString(of: "desc")
                case .src: route.source = try readString(of: "src")
                case .link: if let link = try parseLink() { route.links.append(link) }
                case .url: try readURL(into: &route.links, pendingName: &pendingURLName)
                case .urlname: try readURLName(into: &route.links, pendingName: &pendingURLName)
                case .number: route.number = try readInteger(of: "number")
                case .type: route.type = try readString(of: "type")
                case .extensions: try parseExtensions(into: &route.extensions)
                case .unknown where kind(scanner.elementNamespace) != .gpx: try keepForeign(in: &route.extensions)
                default: try unexpected(parent: "rte")
                }
            }
        }
    }

    /// GPX 1.0 `url`: a link whose text may come from a following `urlname`.
    private mutating func readURL(into links: inout [GPXLink], pendingName: inout String?) throws(GPXError) {
        if let href = try readString(of: "url") {
            links.append(GPXLink(href: href, text: pendingName))
            pendingName = nil
        }
    }

    private mutating func readURLName(into links: inout [GPXLink], pendingName: inout String?) throws(GPXError) {
        let name = try readString(of: "urlname")
        if let last = links.indices.last, links[last].text == nil {
            links[last].text = name
        } else {
            pendingName = name
        }
    }

    // MARK: Points

    private func isLegacyPauseMarker() -> Bool {
        guard let token = attribute("lat"), !token.needsDecoding, token.valueLength > 0 else { return false }
        // A number whose first character is '-' or a digit from 3 to 9 cannot be 100 or 200 however it goes on
        // (`1e2`, `+100`, `0100` and ` 100` can): most latitudes need no second parse.
        let first = scanner.base[token.valueStart]
        if first == UInt8(ascii: "-") || (UInt8(ascii: "3")...UInt8(ascii: "9")).contains(first) { return false }
        let value = DecimalParser.parse(UnsafeBufferPointer(start: scanner.base + token.valueStart, count: token.valueLength))
        return value == 100 || value == 200
    }

    /// The `lat` or `lon` attribute of the current point, or NaN with the first problem noted in `problem`.
    @inline(__always)
    private func coordinate(
        _ name: StaticString, of element: StaticString, range: ClosedRange<Double>, problem: inout GPXError.Reason?
    ) -> Double {
        guard let token = attribute(name) else {
            problem = problem ?? .missingAttribute(element: "\(element)", attribute: "\(name)")
            return .nan
        }
        let value: Double?
        if token.needsDecoding {
            value = scanner.attributeValueBytes(token).withUnsafeBufferPointer { DecimalParser.parse($0) }
        } else {
            value = DecimalParser.parse(UnsafeBufferPointer(start: scanner.base + token.valueStart, count: token.valueLength))
        }
        if let value, range.contains(value) { return value }
        problem = problem ?? .invalidCoordinate(attribute: "\(name)", value: String(scanner.attributeValue(token).prefix(80)))
        return .nan
    }

    /// A `wpt`, `rtept` or `trkpt`. Nil when lenient reading dropped it.
    private mutating func parsePoint(element: StaticString) throws(GPXError) -> TrackPoint? {
        let start = scanner.currentTokenStart
        var problem: GPXError.Reason?
        let latitude = coordinate("lat", of: element, range: -90...90, problem: &problem)
        let longitude = coordinate("lon", of: element, range: -180...180, problem: &problem)
        if let problem {
            guard lenient else { throw scanner.error(problem, at: start) }
            report.droppedPoints += 1
            try skipElement()
            return nil
        }
        var point = TrackPoint(latitude: latitude, longitude: longitude)
        var pendingURLName: String?
        while true {
            // The plain children (ele, time …) take the fast path; anything else is read the general way.
            if scanner.peekSimpleElement() {
                let name = gpxName()
                if name.isSimplePointField {
                    peeked = true
                    try readSimplePointField(name, element: element, into: &point)
                    continue
                }
            }
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                return point
            case .startElement:
                let name = gpxName()
                if name.isSimplePointField {
                    try readSimplePointField(name, element: element, into: &point)
                    continue
                }
                switch name {
                case .extensions: try parsePointExtensions(into: &point)
                case .link: if let link = try parseLink() { point.links.append(link) }
                case .url: try readURL(into: &point.links, pendingName: &pendingURLName)
                case .urlname: try readURLName(into: &point.links, pendingName: &pendingURLName)
                case .unknown where kind(scanner.elementNamespace) != .gpx: try keepForeign(in: &point.extensions)
                default: try unexpected(parent: element)
                }
            }
        }
    }

    /// A point's child with text content.
    private mutating func readSimplePointField(_ name: GPXName, element: StaticString, into point: inout TrackPoint) throws(GPXError) {
        switch name {
        case .ele: point.elevation = try readNumber(of: "ele", range: -12_000...1_000_000)
        case .time: point.time = try readTime(of: "time")
        case .magvar: point.magneticVariation = try readNumber(of: "magvar")
        case .geoidheight: point.geoidHeight = try readNumber(of: "geoidheight")
        case .name: point.name = try readString(of: "name")
        case .cmt: point.comment = try readString(of: "cmt")
        case .desc: point.description = try readString(of: "desc")
        case .src: point.source = try readString(of: "src")
        case .sym: point.symbol = try readString(of: "sym")
        case .type: point.type = try readString(of: "type")
        case .fix: point.fix = try readString(of: "fix")
        case .sat: point.satellites = try readInteger(of: "sat")
        case .hdop: point.horizontalDilution = try readNumber(of: "hdop")
        case .vdop: point.verticalDilution = try readNumber(of: "vdop")
        case .pdop: point.positionDilution = try readNumber(of: "pdop")
        case .ageofdgpsdata: point.ageOfDGPSDataSeconds = try readNumber(of: "ageofdgpsdata")
        case .dgpsid: point.dgpsStationID = try readInteger(of: "dgpsid")
        // GPX 1.0 only, but found in 1.1 files too.
        case .speed: point.speedMetersPerSecond = try readSpeed(of: "speed")
        case .course: point.courseDegrees = try readNumber(of: "course")
        default: try unexpected(parent: element)
        }
    }

    /// Speeds below zero mean "unknown" in several apps (OsmAnd writes -1): they are dropped, not refused.
    private mutating func readSpeed(of element: StaticString) throws(GPXError) -> Double? {
        guard let speed = try readNumber(of: element) else { return nil }
        return speed >= 0 ? speed : nil
    }

    /// `<extensions>` of anything but a point: kept as trees.
    private mutating func parseExtensions(into extensions: inout [XMLElementNode]) throws(GPXError) {
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return
            case .startElement:
                if keepsExtensions {
                    extensions.append(contentsOf: unwrapped(try readTree()))
                } else {
                    try skipElement()
                }
            }
        }
    }

    /// The writer wraps extension elements in no namespace or in GPX's own (which the schema's `##other` refuses)
    /// in `bikeride:extension`; reading unwraps them, so the document is as it was.
    private func unwrapped(_ node: XMLElementNode) -> [XMLElementNode] {
        guard node.namespace == NamespaceKind.bikerideNamespace, node.localName == "extension" else { return [node] }
        return node.children.compactMap { child in
            if case .element(let element) = child { return element }
            return nil
        }
    }

    /// `bikeride:number` in a track's or route's extensions: a number the schema's nonNegativeInteger cannot hold.
    private func takeNumber(from extensions: inout [XMLElementNode]) -> Int? {
        guard let index = extensions.firstIndex(where: { $0.namespace == NamespaceKind.bikerideNamespace && $0.localName == "number" }),
            let number = Int(extensions[index].text.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        extensions.remove(at: index)
        return number
    }

    /// A point's `<extensions>`: Garmin TrackPointExtension (v1 and v2, under any prefix), PowerExtension and the
    /// bare `speed`/`course`/`power` that some apps write become typed fields; the rest is kept as trees.
    private mutating func parsePointExtensions(into point: inout TrackPoint) throws(GPXError) {
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument: return
            case .startElement:
                let namespaceKind = kind(scanner.elementNamespace)
                let name = GPXName.lookup(scanner.elementLocalName)
                switch (namespaceKind, name) {
                case (.trackPointExtension, .trackPointExtension), (.trackPointExtension, .powerExtension),
                    (.power, .powerExtension):
                    try parseTypedContainer(into: &point)
                case (.bikeride, _):
                    try readBikerideValue(into: &point)
                case (.trackPointExtension, _), (.power, .powerInWatts), (.gpx, .speed), (.gpx, .course), (.gpx, .power):
                    var kept: [XMLElementNode] = []
                    try readTypedValue(name, kind: namespaceKind, into: &point, keepingTo: &kept)
                    if !kept.isEmpty { point.extensions.append(contentsOf: kept) }
                default:
                    try keepForeign(in: &point.extensions)
                }
            }
        }
    }

    /// A TrackPointExtension or PowerExtension element: typed children are taken, others kept inside a copy of it.
    private mutating func parseTypedContainer(into point: inout TrackPoint) throws(GPXError) {
        var container = keepsExtensions ? currentElementNode() : nil
        while true {
            if scanner.peekSimpleElement(), case let namespaceKind = kind(scanner.elementNamespace),
                namespaceKind == .trackPointExtension || namespaceKind == .power
            {
                let name = GPXName.lookup(scanner.elementLocalName)
                if name.isTypedExtensionValue && (namespaceKind == .trackPointExtension || name == .powerInWatts) {
                    peeked = true
                    var kept: [XMLElementNode] = []
                    try readTypedValue(name, kind: namespaceKind, into: &point, keepingTo: &kept)
                    container?.children.append(contentsOf: kept.map { .element($0) })
                    continue
                }
            }
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endElement, .endOfDocument:
                if let container, !container.children.isEmpty || !container.attributes.isEmpty {
                    point.extensions.append(container)
                }
                return
            case .startElement:
                let namespaceKind = kind(scanner.elementNamespace)
                let name = GPXName.lookup(scanner.elementLocalName)
                let isTyped: Bool
                switch (namespaceKind, name) {
                case (.trackPointExtension, .hr), (.trackPointExtension, .cad), (.trackPointExtension, .atemp),
                    (.trackPointExtension, .wtemp), (.trackPointExtension, .depth), (.trackPointExtension, .speed),
                    (.trackPointExtension, .course), (.trackPointExtension, .powerInWatts), (.power, .powerInWatts):
                    isTyped = true
                default:
                    isTyped = false
                }
                if isTyped {
                    var kept: [XMLElementNode] = []
                    try readTypedValue(name, kind: namespaceKind, into: &point, keepingTo: &kept)
                    container?.children.append(contentsOf: kept.map { .element($0) })
                } else if keepsExtensions {
                    container?.children.append(.element(try readTree()))
                } else {
                    try skipElement()
                }
            }
        }
    }

    /// bikeride's own point extensions: GPX values the 1.1 schema cannot hold, written there by `GPXWriter`.
    private mutating func readBikerideValue(into point: inout TrackPoint) throws(GPXError) {
        let local = scanner.elementLocalName
        func named(_ name: StaticString) -> Bool {
            local.count == name.utf8CodeUnitCount && memcmp(local.baseAddress!, name.utf8Start, local.count) == 0
        }
        if named("fix") {
            point.fix = try readString(of: "fix")
        } else if named("magvar") {
            point.magneticVariation = try readNumber(of: "magvar")
        } else if named("sat") {
            point.satellites = try readInteger(of: "sat")
        } else if named("dgpsid") {
            point.dgpsStationID = try readInteger(of: "dgpsid")
        } else if keepsExtensions {
            point.extensions.append(contentsOf: unwrapped(try readTree()))
        } else {
            try skipElement()
        }
    }

    /// Reads a typed extension value into its field. A value whose field is already set (a second `hr`, say),
    /// or an element bikeride does not type, is kept as a tree in `kept` instead, so nothing is lost.
    private mutating func readTypedValue(
        _ name: GPXName, kind: NamespaceKind, into point: inout TrackPoint, keepingTo kept: inout [XMLElementNode]
    ) throws(GPXError) {
        // A switch, not key paths: this runs for every hr and cad of every point.
        let isFree: Bool
        switch name {
        case .hr: isFree = point.heartRate == nil
        case .cad: isFree = point.cadence == nil
        case .atemp: isFree = point.temperatureCelsius == nil
        case .wtemp: isFree = point.waterTemperatureCelsius == nil
        case .depth: isFree = point.depthMeters == nil
        case .speed: isFree = point.speedMetersPerSecond == nil
        case .course: isFree = point.courseDegrees == nil
        case .powerInWatts, .power: isFree = point.powerWatts == nil
        default: isFree = false
        }
        guard isFree else {
            if keepsExtensions {
                kept.append(contentsOf: unwrapped(try readTree()))
            } else {
                try skipElement()
            }
            return
        }
        switch name {
        case .hr: point.heartRate = try readNumber(of: "hr")
        case .cad: point.cadence = try readNumber(of: "cad")
        case .atemp: point.temperatureCelsius = try readNumber(of: "atemp")
        case .wtemp: point.waterTemperatureCelsius = try readNumber(of: "wtemp")
        case .depth: point.depthMeters = try readNumber(of: "depth")
        case .speed: point.speedMetersPerSecond = try readSpeed(of: "speed")
        case .course: point.courseDegrees = try readNumber(of: "course")
        default: point.powerWatts = try readNumber(of: name.spelling)
        }
    }
}
