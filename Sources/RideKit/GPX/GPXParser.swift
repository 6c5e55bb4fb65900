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
///
/// Split by concern: this file reads what the GPX elements mean; `GPXParser+Values` reads text, numbers, times
/// and extension trees; `GPXParser+Extensions` the extensions of points; `GPXParser+Parts` reading in parts.
struct GPXParser<Handler: GPXContentHandler> {
    var scanner: XMLScanner
    var handler: Handler
    let lenient: Bool
    var report = GPXReadReport()
    let keepsExtensions: Bool
    var namespaceKinds: [NamespaceKind] = []
    /// Scratch for element text, reused.
    var text: [UInt8] = []
    /// The current element was found by `XMLScanner.peekSimpleElement()` and not yet consumed: its value is
    /// `scanner.rawText`, and the value readers take it from there.
    var peeked = false
    /// Set by the reader when the file may be read in parts on other threads; used at the first track segment.
    var speculationSetup: SpeculationSetup?
    var speculation: SpeculativeReading?
    /// Where the next part read ahead starts (`Int.max`: none).
    var nextPartOffset = Int.max

    init(scanner: XMLScanner, handler: Handler, lenient: Bool) {
        self.scanner = scanner
        self.handler = handler
        self.lenient = lenient
        keepsExtensions = handler.keepsUnknownExtensions
        text.reserveCapacity(256)
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
            warn(.valueDropped, at: scanner.currentTokenStart, detail: "GPX version '\(version.prefix(20))' is not 1.0 or 1.1; read as 1.1")
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
                for note in scanner.undeclaredPrefixNotes {
                    report.counts[.undeclaredPrefix, default: 0] += 1
                    if report.warnings.count < GPXReadReport.maximumLocatedWarnings {
                        report.warnings.append(GPXReadWarning(
                            kind: .undeclaredPrefix, detail: "'\(note.prefix):' is used without being declared",
                            line: note.line, column: note.column))
                    }
                }
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

    mutating func parseMetadata(into metadata: inout GPXMetadata) throws(GPXError) {
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

    mutating func parsePerson() throws(GPXError) -> GPXPerson {
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

    mutating func parseCopyright() throws(GPXError) -> GPXCopyright {
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
    mutating func parseLink() throws(GPXError) -> GPXLink? {
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
                    warn(.valueDropped, at: start, detail: "a link has no address (href)")
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
    mutating func readBounds() throws(GPXError) -> GPXBounds? {
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

    mutating func parseTrack() throws(GPXError) {
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

    mutating func parseSegment() throws(GPXError) {
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

    mutating func parseRoute() throws(GPXError) {
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
    mutating func readURL(into links: inout [GPXLink], pendingName: inout String?) throws(GPXError) {
        if let href = try readString(of: "url") {
            links.append(GPXLink(href: href, text: pendingName))
            pendingName = nil
        }
    }

    mutating func readURLName(into links: inout [GPXLink], pendingName: inout String?) throws(GPXError) {
        let name = try readString(of: "urlname")
        if let last = links.indices.last, links[last].text == nil {
            links[last].text = name
        } else {
            pendingName = name
        }
    }

    // MARK: Points

    func isLegacyPauseMarker() -> Bool {
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
    func coordinate(
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
    mutating func parsePoint(element: StaticString) throws(GPXError) -> TrackPoint? {
        let start = scanner.currentTokenStart
        var problem: GPXError.Reason?
        let latitude = coordinate("lat", of: element, range: -90...90, problem: &problem)
        let longitude = coordinate("lon", of: element, range: -180...180, problem: &problem)
        if let problem {
            guard lenient else { throw scanner.error(problem, at: start) }
            report.droppedPoints += 1
            let kind: GPXReadWarning.Kind = "\(element)" == "wpt" ? .waypointSkipped : "\(element)" == "rtept" ? .routePointSkipped : .trackPointSkipped
            warn(kind, at: start, detail: GPXReadWarning.positionDetail(problem))
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
    mutating func readSimplePointField(_ name: GPXName, element: StaticString, into point: inout TrackPoint) throws(GPXError) {
        switch name {
        case .ele: point.elevation = try readNumber(of: "ele", range: GPXReader.elevationRange)
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
    mutating func readSpeed(of element: StaticString) throws(GPXError) -> Double? {
        guard let speed = try readNumber(of: element) else { return nil }
        return speed >= 0 ? speed : nil
    }
}
