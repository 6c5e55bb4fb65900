import Foundation

/// Writes GPX 1.1 that validates against the official schema, deterministically and without losing data.
///
/// Two ways to use it:
/// - `GPXWriter.write(document)` turns a whole `GPXDocument` into bytes (or `string`/`data`, or streams it to
///   a sink or a `FileHandle` in chunks);
/// - an instance writes incrementally, for exports too big to hold as a document: create it with a sink,
///   then `writeWaypoint`, `writeRoute`, `beginTrack` / `beginSegment` / `writeTrackPoint` / `endSegment` /
///   `endTrack` (or `writeTrack`), and `finish()`. Output goes to the sink in chunks of about `chunkSize`
///   bytes, so memory stays flat however many points pass through.
///
/// What it writes, and why:
/// - Always GPX 1.1 in its namespace, elements in the order the schema requires, two-space indentation.
///   Numbers through `DecimalFormatting` (shortest exact decimal, never an exponent); times through
///   `GPXTime`, keeping the offset and the fractional digits they were read with.
/// - `speedMetersPerSecond`, `courseDegrees`, `temperatureCelsius`, `waterTemperatureCelsius`,
///   `depthMeters`, `heartRate` and `cadence` as Garmin TrackPointExtension **v2** (`gpxtpx:` prefix, its
///   order atemp, wtemp, depth, hr, cad, speed, course); `powerWatts` as Garmin PowerExtension v1
///   `pwr:PowerInWatts`. Both inside the point's `<extensions>`, before the extension trees kept from the
///   file.
/// - A value the schema cannot hold goes to the bikeride namespace (`GPXWriter.bikerideNamespace`, prefix
///   `bikeride`) in the same element's `<extensions>`, so nothing is lost and the file stays valid:
///   `bikeride:fix` (a `fix` other than none/2d/3d/dgps/pps, empty included), `bikeride:magvar` (outside
///   0 ≤ x < 360), `bikeride:sat` (negative), `bikeride:dgpsid` (outside 0…1023), and on `trk`/`rte`
///   `bikeride:number` (negative). An extension element in no namespace or in the GPX 1.1 namespace — which
///   the schema's `##other` wildcard refuses — is written inside a `bikeride:extension` wrapper, itself
///   unchanged (a no-namespace element keeps `xmlns=""`). Readers map all of these back.
/// - Extension trees: every namespace they use is declared on the root (keeping the file's prefix unless
///   it clashes, else `ns1`, `ns2`, …); the incremental writer declares a namespace it was not told about
///   on the element that first needs it. Text is written exactly as kept, without added white space.
/// - Left out, because no GPX reader would accept them: points whose latitude is not finite and within
///   −90…90 or whose longitude is not finite and within −180…180; NaN and infinite numbers (the field is
///   omitted); bounds with such values; extension elements or attributes whose names are not XML names.
///   Longitude 180, which the schema excludes, is written as 179.99999999999997 (3 nm away). An offset
///   beyond ±14:00, which `xsd:dateTime` refuses, is written as the same instant in UTC (`Z`). XML 1.0's
///   forbidden characters become U+FFFD (see `XMLEscaping`).
/// - Same document in, same bytes out: nothing depends on hashing order or the clock.
public struct GPXWriter: ~Copyable {
    /// The GPX 1.1 namespace, the default namespace of every file written.
    public static let gpxNamespace = "http://www.topografix.com/GPX/1/1"
    /// Garmin TrackPointExtension v2, written with the prefix `gpxtpx`.
    public static let trackPointExtensionNamespace = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    /// Garmin PowerExtension v1, written with the prefix `pwr`.
    public static let powerExtensionNamespace = "http://www.garmin.com/xmlschemas/PowerExtension/v1"
    /// bikeride's own namespace for values GPX 1.1 cannot hold, written with the prefix `bikeride`.
    public static let bikerideNamespace = "https://bikeride.dev/xmlns/gpx/1"
    /// The `creator` written when neither the caller nor the document names one.
    public static let defaultCreator = "bikeride"
    /// The namespaces an incremental writer declares on the root unless told otherwise (prefix → URI).
    public static let standardNamespaces: [String: String] = [
        "gpxtpx": trackPointExtensionNamespace, "pwr": powerExtensionNamespace, "bikeride": bikerideNamespace,
    ]

    private enum State: Int, Comparable {
        case waypoints, routes, tracks, track, segment, finished
        static func < (a: State, b: State) -> Bool { a.rawValue < b.rawValue }
    }

    private var buffer: [UInt8] = []
    private let chunkSize: Int
    private let sink: (([UInt8]) throws -> Void)?
    private var failure: (any Error)?
    private var state = State.waypoints
    private var scope: XMLNamespaceScope
    /// Root prefixes of the three namespaces the writer produces itself, as bytes, for the per-point fast path.
    private let trackPointExtensionPrefix: [UInt8]?
    private let powerPrefix: [UInt8]?
    private let bikeridePrefix: [UInt8]?

    // MARK: Whole documents

    /// The document as GPX 1.1 bytes (UTF-8).
    ///
    /// - Parameter creator: the `creator` attribute; defaults to the document's, then to "bikeride".
    public static func write(_ document: GPXDocument, creator: String? = nil) -> [UInt8] {
        var writer = GPXWriter(document: document, creator: creator, chunkSize: .max, sink: nil)
        writer.writeBody(of: document)
        return writer.finishReturningBytes(extensions: document.extensions)
    }

    /// The document as GPX 1.1 text.
    public static func string(_ document: GPXDocument, creator: String? = nil) -> String {
        String(decoding: write(document, creator: creator), as: UTF8.self)
    }

    /// The document as GPX 1.1 data (UTF-8).
    public static func data(_ document: GPXDocument, creator: String? = nil) -> Data {
        Data(write(document, creator: creator))
    }

    /// Streams the document to `sink` in chunks of about `chunkSize` bytes.
    ///
    /// - Throws: the first error the sink threw; nothing more is written after it.
    public static func write(
        _ document: GPXDocument, creator: String? = nil, chunkSize: Int = 1 << 16,
        to sink: @escaping ([UInt8]) throws -> Void
    ) throws {
        var writer = GPXWriter(document: document, creator: creator, chunkSize: chunkSize, sink: sink)
        writer.writeBody(of: document)
        try writer.finish(extensions: document.extensions)
    }

    /// Streams the document to a file handle in chunks of about `chunkSize` bytes.
    public static func write(
        _ document: GPXDocument, creator: String? = nil, chunkSize: Int = 1 << 16, to fileHandle: FileHandle
    ) throws {
        try write(document, creator: creator, chunkSize: chunkSize) { chunk in
            try fileHandle.write(contentsOf: chunk)
        }
    }

    // MARK: Incremental writing

    /// Starts a file: writes the XML declaration, the root element and the metadata.
    ///
    /// - Parameters:
    ///   - creator: the `creator` attribute (default "bikeride").
    ///   - metadata: written at once, before any waypoint.
    ///   - rootNamespaces: prefix → URI pairs declared on the root, in prefix order. Extension namespaces not
    ///     among them are declared where first used. Unusable prefixes (not a name, or starting with `xml`)
    ///     and the GPX namespace itself are skipped.
    ///   - chunkSize: bytes gathered before the sink is called.
    ///   - sink: receives the file in order. If it throws, the writer stops writing and `finish()` rethrows.
    public init(
        creator: String? = nil, metadata: GPXMetadata = GPXMetadata(),
        rootNamespaces: [String: String] = GPXWriter.standardNamespaces, chunkSize: Int = 1 << 16,
        sink: @escaping ([UInt8]) throws -> Void
    ) {
        let bindings = rootNamespaces.sorted { $0.key < $1.key }.map { (prefix: $0.key, uri: $0.value) }
        self.init(
            creator: creator ?? Self.defaultCreator, metadata: metadata, bindings: bindings,
            chunkSize: chunkSize, sink: sink)
    }

    /// Starts a file written to `fileHandle` in chunks; see `init(creator:metadata:rootNamespaces:chunkSize:sink:)`.
    public init(
        creator: String? = nil, metadata: GPXMetadata = GPXMetadata(),
        rootNamespaces: [String: String] = GPXWriter.standardNamespaces, chunkSize: Int = 1 << 16,
        fileHandle: FileHandle
    ) {
        self.init(creator: creator, metadata: metadata, rootNamespaces: rootNamespaces, chunkSize: chunkSize) {
            try fileHandle.write(contentsOf: $0)
        }
    }

    /// Writes a waypoint. Waypoints come before any route or track.
    public mutating func writeWaypoint(_ waypoint: Waypoint) {
        precondition(state == .waypoints, "GPXWriter: waypoints must come before routes and tracks")
        writePoint(waypoint, element: "wpt", depth: 1)
        flushIfFull()
    }

    /// Writes a route with its points. Routes come after waypoints and before tracks.
    public mutating func writeRoute(_ route: Route) {
        precondition(state <= .routes, "GPXWriter: routes must come before tracks")
        state = .routes
        newline(1)
        raw("<rte>")
        writeDescriptiveFields(
            name: route.name, comment: route.comment, description: route.description, source: route.source,
            links: route.links, number: route.number, type: route.type, extensions: route.extensions, depth: 2)
        for point in route.points {
            writePoint(point, element: "rtept", depth: 2)
            flushIfFull()
        }
        newline(1)
        raw("</rte>")
        flushIfFull()
    }

    /// Opens a track and writes its name, description, links, type and extensions; `track.segments` is
    /// ignored here (write them with `beginSegment` / `writeTrackPoint` / `endSegment`).
    public mutating func beginTrack(_ track: Track) {
        precondition(state <= .tracks, "GPXWriter: beginTrack inside a track; call endTrack first")
        state = .track
        newline(1)
        raw("<trk>")
        writeDescriptiveFields(
            name: track.name, comment: track.comment, description: track.description, source: track.source,
            links: track.links, number: track.number, type: track.type, extensions: track.extensions, depth: 2)
    }

    /// Opens a track segment in the open track.
    public mutating func beginSegment() {
        precondition(state == .track, "GPXWriter: beginSegment needs an open track and no open segment")
        state = .segment
        newline(2)
        raw("<trkseg>")
    }

    /// Writes a point into the open segment.
    public mutating func writeTrackPoint(_ point: TrackPoint) {
        precondition(state == .segment, "GPXWriter: writeTrackPoint needs an open segment")
        writePoint(point, element: "trkpt", depth: 3)
        flushIfFull()
    }

    /// Closes the open segment, writing the segment's extensions (which GPX puts after the points).
    public mutating func endSegment(extensions: [XMLElementNode] = []) {
        precondition(state == .segment, "GPXWriter: endSegment without an open segment")
        state = .track
        writeExtensions(extensions, depth: 3)
        newline(2)
        raw("</trkseg>")
        flushIfFull()
    }

    /// Closes the open track.
    public mutating func endTrack() {
        precondition(state == .track, "GPXWriter: endTrack needs an open track and no open segment")
        state = .tracks
        newline(1)
        raw("</trk>")
        flushIfFull()
    }

    /// Writes a whole track, segments (empty ones too) and points included.
    public mutating func writeTrack(_ track: Track) {
        beginTrack(track)
        for segment in track.segments {
            beginSegment()
            for point in segment.points {
                writePoint(point, element: "trkpt", depth: 3)
                flushIfFull()
            }
            endSegment(extensions: segment.extensions)
        }
        endTrack()
    }

    /// Closes whatever is open, writes the extensions of the `gpx` element and the end of the file, and hands
    /// the rest to the sink.
    ///
    /// - Throws: the first error the sink threw.
    public consuming func finish(extensions: [XMLElementNode] = []) throws {
        writeEnd(extensions: extensions)
        flush()
        if let failure { throw failure }
    }

    // MARK: Set-up

    private init(document: GPXDocument, creator: String?, chunkSize: Int, sink: (([UInt8]) throws -> Void)?) {
        self.init(
            creator: creator ?? document.creator ?? Self.defaultCreator, metadata: document.metadata,
            bindings: Self.rootBindings(for: document), chunkSize: chunkSize, sink: sink)
    }

    private init(
        creator: String, metadata: GPXMetadata, bindings: [(prefix: String, uri: String)], chunkSize: Int,
        sink: (([UInt8]) throws -> Void)?
    ) {
        var usable: [(prefix: String, uri: String)] = []
        for binding in bindings
        where XMLNamespaceScope.isUsablePrefix(binding.prefix) && !binding.uri.isEmpty
            && binding.uri != Self.gpxNamespace && binding.uri != XMLNamespaceScope.xmlNamespace
            && !usable.contains(where: { $0.prefix == binding.prefix })
        {
            usable.append(binding)
        }
        self.chunkSize = max(chunkSize, 1)
        self.sink = sink
        self.scope = XMLNamespaceScope(rootBindings: usable, defaultNamespace: Self.gpxNamespace)
        self.trackPointExtensionPrefix = scope.prefix(for: Self.trackPointExtensionNamespace).map { Array($0.utf8) }
        self.powerPrefix = scope.prefix(for: Self.powerExtensionNamespace).map { Array($0.utf8) }
        self.bikeridePrefix = scope.prefix(for: Self.bikerideNamespace).map { Array($0.utf8) }
        if sink != nil { buffer.reserveCapacity(min(self.chunkSize, 1 << 20) + 4096) }

        raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx xmlns=\"")
        raw(Self.gpxNamespace)
        raw("\" version=\"1.1\" creator=\"")
        XMLEscaping.appendAttribute(creator, to: &buffer)
        raw("\"")
        for binding in usable {
            raw(" xmlns:")
            raw(binding.prefix)
            raw("=\"")
            XMLEscaping.appendAttribute(binding.uri, to: &buffer)
            raw("\"")
        }
        raw(">")
        writeMetadata(metadata)
    }

    /// The namespaces a document needs declared on the root: bikeride's own three where used, then every
    /// namespace of its extension trees in the order first met, keeping the file's prefix where it is free.
    static func rootBindings(for document: GPXDocument) -> [(prefix: String, uri: String)] {
        var usage = NamespaceUsage()
        usage.scan(document)
        var bindings: [(prefix: String, uri: String)] = []
        if usage.trackPointExtension { bindings.append(("gpxtpx", trackPointExtensionNamespace)) }
        if usage.power { bindings.append(("pwr", powerExtensionNamespace)) }
        if usage.bikeride { bindings.append(("bikeride", bikerideNamespace)) }
        for (uri, hint) in usage.extensionNamespaces where !bindings.contains(where: { $0.uri == uri }) {
            let prefix = XMLNamespaceScope.freePrefix(hint: hint) { taken in
                bindings.contains { $0.prefix == taken }
            }
            bindings.append((prefix, uri))
        }
        return bindings
    }

    // MARK: Output buffer

    private mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    private mutating func raw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private mutating func newline(_ depth: Int) {
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    private mutating func flushIfFull() {
        if buffer.count >= chunkSize { flush() }
    }

    private mutating func flush() {
        guard let sink, !buffer.isEmpty else { return }
        if failure == nil {
            do { try sink(buffer) } catch { failure = error }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func writeEnd(extensions: [XMLElementNode]) {
        precondition(state != .finished, "GPXWriter: finish called twice")
        if state == .segment { endSegment() }
        if state == .track { endTrack() }
        state = .finished
        writeExtensions(extensions, depth: 1)
        raw("\n</gpx>\n")
    }

    private consuming func finishReturningBytes(extensions: [XMLElementNode]) -> [UInt8] {
        writeEnd(extensions: extensions)
        return buffer
    }

    private mutating func writeBody(of document: GPXDocument) {
        for waypoint in document.waypoints { writeWaypoint(waypoint) }
        for route in document.routes { writeRoute(route) }
        for track in document.tracks { writeTrack(track) }
    }

    // MARK: Elements

    private mutating func textElement(_ name: StaticString, _ value: String?, depth: Int) {
        guard let value else { return }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(name)
        buffer.append(UInt8(ascii: ">"))
        XMLEscaping.appendText(value, to: &buffer)
        raw("</")
        raw(name)
        buffer.append(UInt8(ascii: ">"))
    }

    private mutating func decimalElement(_ name: StaticString, _ value: Double?, depth: Int) {
        guard let value, value.isFinite else { return }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(name)
        buffer.append(UInt8(ascii: ">"))
        DecimalFormatting.append(value, to: &buffer)
        raw("</")
        raw(name)
        buffer.append(UInt8(ascii: ">"))
    }

    private mutating func integerElement(_ name: StaticString, _ value: Int?, depth: Int) {
        guard let value else { return }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(name)
        buffer.append(UInt8(ascii: ">"))
        DecimalFormatting.appendInteger(Int64(value), to: &buffer)
        raw("</")
        raw(name)
        buffer.append(UInt8(ascii: ">"))
    }

    private mutating func timeElement(_ time: GPXTime?, depth: Int) {
        guard let time else { return }
        newline(depth)
        raw("<time>")
        appendTime(time)
        raw("</time>")
    }

    private mutating func appendTime(_ time: GPXTime) {
        // xsd:dateTime allows offsets up to ±14:00 only.
        if case .minutes(let minutes) = time.offset, abs(minutes) > 14 * 60 {
            time.inUTC.appendRFC3339(to: &buffer)
        } else {
            time.appendRFC3339(to: &buffer)
        }
    }

    private mutating func writeLink(_ link: GPXLink, depth: Int) {
        newline(depth)
        raw("<link href=\"")
        XMLEscaping.appendAttribute(link.href, to: &buffer)
        if link.text == nil && link.type == nil {
            raw("\"/>")
            return
        }
        raw("\">")
        textElement("text", link.text, depth: depth + 1)
        textElement("type", link.type, depth: depth + 1)
        newline(depth)
        raw("</link>")
    }

    private mutating func writeMetadata(_ metadata: GPXMetadata) {
        let bounds = metadata.bounds.flatMap(Self.writableBounds)
        guard
            metadata.name != nil || metadata.description != nil || metadata.author != nil
                || metadata.copyright != nil || !metadata.links.isEmpty || metadata.time != nil
                || metadata.keywords != nil || bounds != nil || !metadata.extensions.isEmpty
        else { return }
        newline(1)
        raw("<metadata>")
        textElement("name", metadata.name, depth: 2)
        textElement("desc", metadata.description, depth: 2)
        if let author = metadata.author {
            writePerson(author, depth: 2)
        }
        if let copyright = metadata.copyright {
            newline(2)
            raw("<copyright author=\"")
            XMLEscaping.appendAttribute(copyright.author, to: &buffer)
            if copyright.year == nil && copyright.license == nil {
                raw("\"/>")
            } else {
                raw("\">")
                if let year = copyright.year {
                    newline(3)
                    raw("<year>")
                    // xsd:gYear: at least four digits, with a sign before years BC.
                    if year < 0 { buffer.append(UInt8(ascii: "-")) }
                    let digits = String(year.magnitude)
                    buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: max(0, 4 - digits.utf8.count)))
                    raw(digits)
                    raw("</year>")
                }
                textElement("license", copyright.license, depth: 3)
                newline(2)
                raw("</copyright>")
            }
        }
        for link in metadata.links { writeLink(link, depth: 2) }
        timeElement(metadata.time, depth: 2)
        textElement("keywords", metadata.keywords, depth: 2)
        if let bounds {
            newline(2)
            raw("<bounds minlat=\"")
            DecimalFormatting.append(bounds.minLatitude, to: &buffer)
            raw("\" minlon=\"")
            DecimalFormatting.append(bounds.minLongitude, to: &buffer)
            raw("\" maxlat=\"")
            DecimalFormatting.append(bounds.maxLatitude, to: &buffer)
            raw("\" maxlon=\"")
            DecimalFormatting.append(bounds.maxLongitude, to: &buffer)
            raw("\"/>")
        }
        writeExtensions(metadata.extensions, depth: 2)
        newline(1)
        raw("</metadata>")
    }

    private mutating func writePerson(_ person: GPXPerson, depth: Int) {
        newline(depth)
        if person.name == nil && person.email == nil && person.link == nil {
            raw("<author/>")
            return
        }
        raw("<author>")
        textElement("name", person.name, depth: depth + 1)
        if let email = person.email {
            // emailType splits the address at its last `@` (a domain has none); an address without one is
            // written whole as the id with an empty domain.
            let parts = Self.splitEmail(email)
            newline(depth + 1)
            raw("<email id=\"")
            XMLEscaping.appendAttribute(parts.id, to: &buffer)
            raw("\" domain=\"")
            XMLEscaping.appendAttribute(parts.domain, to: &buffer)
            raw("\"/>")
        }
        if let link = person.link { writeLink(link, depth: depth + 1) }
        newline(depth)
        raw("</author>")
    }

    static func splitEmail(_ email: String) -> (id: String, domain: String) {
        guard let at = email.lastIndex(of: "@") else { return (email, "") }
        return (String(email[..<at]), String(email[email.index(after: at)...]))
    }

    /// Bounds the schema accepts, or nil: latitudes within ±90, longitudes within −180…180 (180 moved just
    /// below, as the schema excludes it), all finite.
    static func writableBounds(_ bounds: GPXBounds) -> GPXBounds? {
        guard let minLongitude = writableLongitude(bounds.minLongitude),
            let maxLongitude = writableLongitude(bounds.maxLongitude),
            isWritableLatitude(bounds.minLatitude), isWritableLatitude(bounds.maxLatitude)
        else { return nil }
        return GPXBounds(
            minLatitude: bounds.minLatitude, minLongitude: minLongitude, maxLatitude: bounds.maxLatitude,
            maxLongitude: maxLongitude)
    }

    static func isWritableLatitude(_ latitude: Double) -> Bool {
        latitude.isFinite && (-90...90).contains(latitude)
    }

    /// `longitudeType` is −180 ≤ x < 180; 180 itself becomes the largest double below it.
    static func writableLongitude(_ longitude: Double) -> Double? {
        guard longitude.isFinite, (-180...180).contains(longitude) else { return nil }
        return longitude == 180 ? (180.0).nextDown : longitude
    }

    /// name, cmt, desc, src, link*, number, type and extensions: the head of `rte` and `trk`.
    private mutating func writeDescriptiveFields(
        name: String?, comment: String?, description: String?, source: String?, links: [GPXLink], number: Int?,
        type: String?, extensions: [XMLElementNode], depth: Int
    ) {
        textElement("name", name, depth: depth)
        textElement("cmt", comment, depth: depth)
        textElement("desc", description, depth: depth)
        textElement("src", source, depth: depth)
        for link in links { writeLink(link, depth: depth) }
        var negativeNumber: Int? = nil
        if let number {
            if number >= 0 { integerElement("number", number, depth: depth) } else { negativeNumber = number }
        }
        textElement("type", type, depth: depth)
        guard negativeNumber != nil || !extensions.isEmpty else { return }
        newline(depth)
        raw("<extensions>")
        if let negativeNumber {
            newline(depth + 1)
            writeBikerideValue("number", String(negativeNumber))
        }
        for element in extensions {
            newline(depth + 1)
            writeExtensionTree(element)
        }
        newline(depth)
        raw("</extensions>")
    }

    /// A `wptType` element: `wpt`, `rtept` or `trkpt`.
    private mutating func writePoint(_ point: TrackPoint, element: StaticString, depth: Int) {
        guard Self.isWritableLatitude(point.latitude), let longitude = Self.writableLongitude(point.longitude) else {
            return
        }
        newline(depth)
        buffer.append(UInt8(ascii: "<"))
        raw(element)
        raw(" lat=\"")
        DecimalFormatting.append(point.latitude, to: &buffer)
        raw("\" lon=\"")
        DecimalFormatting.append(longitude, to: &buffer)
        buffer.append(UInt8(ascii: "\""))

        let inner = depth + 1
        let bodyStart = buffer.count
        buffer.append(UInt8(ascii: ">"))
        decimalElement("ele", point.elevation, depth: inner)
        timeElement(point.time, depth: inner)
        var outOfRangeMagvar: Double? = nil
        if let magvar = point.magneticVariation, magvar.isFinite {
            if magvar >= 0 && magvar < 360 { decimalElement("magvar", magvar, depth: inner) } else { outOfRangeMagvar = magvar }
        }
        decimalElement("geoidheight", point.geoidHeight, depth: inner)
        textElement("name", point.name, depth: inner)
        textElement("cmt", point.comment, depth: inner)
        textElement("desc", point.description, depth: inner)
        textElement("src", point.source, depth: inner)
        for link in point.links { writeLink(link, depth: inner) }
        textElement("sym", point.symbol, depth: inner)
        textElement("type", point.type, depth: inner)
        var unlistedFix: String? = nil
        if let fix = point.fix {
            if Self.schemaFixValues.contains(fix) { textElement("fix", fix, depth: inner) } else { unlistedFix = fix }
        }
        var negativeSatellites: Int? = nil
        if let satellites = point.satellites {
            if satellites >= 0 { integerElement("sat", satellites, depth: inner) } else { negativeSatellites = satellites }
        }
        decimalElement("hdop", point.horizontalDilution, depth: inner)
        decimalElement("vdop", point.verticalDilution, depth: inner)
        decimalElement("pdop", point.positionDilution, depth: inner)
        decimalElement("ageofdgpsdata", point.ageOfDGPSDataSeconds, depth: inner)
        var unlistedStation: Int? = nil
        if let station = point.dgpsStationID {
            if (0...1023).contains(station) { integerElement("dgpsid", station, depth: inner) } else { unlistedStation = station }
        }

        let hasTrackPointExtension = [
            point.temperatureCelsius, point.waterTemperatureCelsius, point.depthMeters, point.heartRate,
            point.cadence, point.speedMetersPerSecond, point.courseDegrees,
        ].contains { $0?.isFinite == true }
        let hasPower = point.powerWatts?.isFinite == true
        if hasTrackPointExtension || hasPower || outOfRangeMagvar != nil || unlistedFix != nil
            || negativeSatellites != nil || unlistedStation != nil || !point.extensions.isEmpty
        {
            newline(inner)
            raw("<extensions>")
            if hasTrackPointExtension {
                newline(inner + 1)
                writeTrackPointExtension(point)
            }
            if let power = point.powerWatts, power.isFinite {
                newline(inner + 1)
                writeValue(
                    namespace: Self.powerExtensionNamespace, prefix: powerPrefix, hint: "pwr", localName: "PowerInWatts",
                    DecimalFormatting.string(power) ?? "")
            }
            if let unlistedFix {
                newline(inner + 1)
                writeBikerideValue("fix", unlistedFix)
            }
            if let outOfRangeMagvar {
                newline(inner + 1)
                writeBikerideValue("magvar", DecimalFormatting.string(outOfRangeMagvar) ?? "")
            }
            if let negativeSatellites {
                newline(inner + 1)
                writeBikerideValue("sat", String(negativeSatellites))
            }
            if let unlistedStation {
                newline(inner + 1)
                writeBikerideValue("dgpsid", String(unlistedStation))
            }
            for extensionElement in point.extensions {
                newline(inner + 1)
                writeExtensionTree(extensionElement)
            }
            newline(inner)
            raw("</extensions>")
        }

        if buffer.count == bodyStart + 1 {
            // Nothing inside: `<trkpt lat=".." lon=".."/>`.
            buffer.removeLast()
            raw("/>")
        } else {
            newline(depth)
            raw("</")
            raw(element)
            buffer.append(UInt8(ascii: ">"))
        }
    }

    private static let schemaFixValues: Set<String> = ["none", "2d", "3d", "dgps", "pps"]

    /// `<gpxtpx:TrackPointExtension>` with the v2 schema's order: atemp, wtemp, depth, hr, cad, speed, course.
    private mutating func writeTrackPointExtension(_ point: TrackPoint) {
        let fields: [(StaticString, Double?)] = [
            ("atemp", point.temperatureCelsius), ("wtemp", point.waterTemperatureCelsius), ("depth", point.depthMeters),
            ("hr", point.heartRate), ("cad", point.cadence), ("speed", point.speedMetersPerSecond),
            ("course", point.courseDegrees),
        ]
        if let prefix = trackPointExtensionPrefix {
            buffer.append(UInt8(ascii: "<"))
            buffer.append(contentsOf: prefix)
            raw(":TrackPointExtension>")
            for (name, value) in fields {
                guard let value, value.isFinite else { continue }
                buffer.append(UInt8(ascii: "<"))
                buffer.append(contentsOf: prefix)
                buffer.append(UInt8(ascii: ":"))
                raw(name)
                buffer.append(UInt8(ascii: ">"))
                DecimalFormatting.append(value, to: &buffer)
                raw("</")
                buffer.append(contentsOf: prefix)
                buffer.append(UInt8(ascii: ":"))
                raw(name)
                buffer.append(UInt8(ascii: ">"))
            }
            raw("</")
            buffer.append(contentsOf: prefix)
            raw(":TrackPointExtension>")
        } else {
            // The namespace is not declared on the root: build the tree and let the general path declare it.
            var children: [XMLNode] = []
            for (name, value) in fields {
                guard let value, value.isFinite, let text = DecimalFormatting.string(value) else { continue }
                children.append(
                    .element(
                        XMLElementNode(
                            namespace: Self.trackPointExtensionNamespace, localName: name.description, prefix: "gpxtpx",
                            children: [.text(text)])))
            }
            writeExtensionTree(
                XMLElementNode(
                    namespace: Self.trackPointExtensionNamespace, localName: "TrackPointExtension", prefix: "gpxtpx",
                    children: children))
        }
    }

    private mutating func writeBikerideValue(_ localName: StaticString, _ text: String) {
        writeValue(namespace: Self.bikerideNamespace, prefix: bikeridePrefix, hint: "bikeride", localName: localName, text)
    }

    /// `<prefix:name>text</prefix:name>` in one of the writer's own namespaces; through the general path,
    /// which declares the namespace, when the root did not.
    private mutating func writeValue(
        namespace: String, prefix: [UInt8]?, hint: String, localName: StaticString, _ text: String
    ) {
        guard let prefix else {
            writeElementTree(
                XMLElementNode(
                    namespace: namespace, localName: localName.description, prefix: hint, children: [.text(text)]))
            return
        }
        buffer.append(UInt8(ascii: "<"))
        buffer.append(contentsOf: prefix)
        buffer.append(UInt8(ascii: ":"))
        raw(localName)
        buffer.append(UInt8(ascii: ">"))
        XMLEscaping.appendText(text, to: &buffer)
        raw("</")
        buffer.append(contentsOf: prefix)
        buffer.append(UInt8(ascii: ":"))
        raw(localName)
        buffer.append(UInt8(ascii: ">"))
    }

    private mutating func writeExtensions(_ extensions: [XMLElementNode], depth: Int) {
        guard !extensions.isEmpty else { return }
        newline(depth)
        raw("<extensions>")
        for element in extensions {
            newline(depth + 1)
            writeExtensionTree(element)
        }
        newline(depth)
        raw("</extensions>")
    }

    // MARK: Extension trees

    /// Writes a direct child of `<extensions>`. One in no namespace or in the GPX namespace goes into a
    /// `bikeride:extension` wrapper, because the schema's `##other` wildcard admits neither.
    private mutating func writeExtensionTree(_ element: XMLElementNode) {
        if element.namespace.isEmpty || element.namespace == Self.gpxNamespace {
            writeElementTree(
                XMLElementNode(
                    namespace: Self.bikerideNamespace, localName: "extension", prefix: "bikeride",
                    children: [.element(element)]))
        } else {
            writeElementTree(element)
        }
    }

    private enum TreeStep {
        case open(XMLElementNode)
        case text(String)
        case close(name: [UInt8])
    }

    /// Writes an element and its descendants exactly as kept (no added white space), declaring namespaces
    /// that are not in scope. Iterative, so a deep tree cannot exhaust a small thread stack.
    private mutating func writeElementTree(_ root: XMLElementNode) {
        var steps: [TreeStep] = [.open(root)]
        while let step = steps.popLast() {
            switch step {
            case .text(let text):
                XMLEscaping.appendText(text, to: &buffer)
            case .close(let name):
                raw("</")
                buffer.append(contentsOf: name)
                buffer.append(UInt8(ascii: ">"))
                scope.pop()
            case .open(let node):
                guard XMLEscaping.isValidName(node.localName), node.namespace != XMLNamespaceScope.xmlNamespace,
                    node.namespace != XMLNamespaceScope.xmlnsNamespace
                else { continue }
                scope.push()
                var declarations: [(prefix: String, uri: String)] = []  // "" prefix: xmlns=""
                var name: [UInt8] = []
                if node.namespace.isEmpty {
                    if !scope.defaultNamespace.isEmpty {
                        scope.clearDefaultNamespace()
                        declarations.append(("", ""))
                    }
                } else if node.namespace == scope.defaultNamespace {
                    // Only the GPX namespace can be the default here; unprefixed is right.
                } else if let prefix = scope.prefix(for: node.namespace) {
                    name += prefix.utf8
                    name.append(UInt8(ascii: ":"))
                } else {
                    let prefix = scope.bind(node.namespace, hint: node.prefix)
                    declarations.append((prefix, node.namespace))
                    name += prefix.utf8
                    name.append(UInt8(ascii: ":"))
                }
                name += node.localName.utf8

                var attributes: [(name: String, value: String)] = []
                for attribute in node.attributes {
                    guard XMLEscaping.isValidName(attribute.localName),
                        attribute.namespace != XMLNamespaceScope.xmlnsNamespace,
                        !(attribute.namespace.isEmpty && attribute.localName == "xmlns")
                    else { continue }
                    if attribute.namespace.isEmpty {
                        attributes.append((attribute.localName, attribute.value))
                    } else if let prefix = scope.prefix(for: attribute.namespace) {
                        attributes.append((prefix + ":" + attribute.localName, attribute.value))
                    } else {
                        let prefix = scope.bind(attribute.namespace, hint: attribute.prefix)
                        declarations.append((prefix, attribute.namespace))
                        attributes.append((prefix + ":" + attribute.localName, attribute.value))
                    }
                }

                buffer.append(UInt8(ascii: "<"))
                buffer.append(contentsOf: name)
                for declaration in declarations {
                    raw(declaration.prefix.isEmpty ? " xmlns" : " xmlns:")
                    raw(declaration.prefix)
                    raw("=\"")
                    XMLEscaping.appendAttribute(declaration.uri, to: &buffer)
                    buffer.append(UInt8(ascii: "\""))
                }
                for attribute in attributes {
                    buffer.append(UInt8(ascii: " "))
                    raw(attribute.name)
                    raw("=\"")
                    XMLEscaping.appendAttribute(attribute.value, to: &buffer)
                    buffer.append(UInt8(ascii: "\""))
                }
                if node.children.isEmpty {
                    raw("/>")
                    scope.pop()
                    continue
                }
                buffer.append(UInt8(ascii: ">"))
                steps.append(.close(name: name))
                for child in node.children.reversed() {
                    switch child {
                    case .element(let element): steps.append(.open(element))
                    case .text(let text): steps.append(.text(text))
                    }
                }
            }
        }
    }
}

/// What a document needs declared on the root, found in one pass over it.
private struct NamespaceUsage {
    var trackPointExtension = false
    var power = false
    var bikeride = false
    /// Extension-tree namespaces in the order first met, with the first prefix the file used for each.
    var extensionNamespaces: [(uri: String, hint: String?)] = []
    private var seen: Set<String> = []

    mutating func scan(_ document: GPXDocument) {
        scan(document.metadata.extensions)
        for waypoint in document.waypoints { scan(waypoint) }
        for route in document.routes {
            if let number = route.number, number < 0 { bikeride = true }
            scan(route.extensions)
            for point in route.points { scan(point) }
        }
        for track in document.tracks {
            if let number = track.number, number < 0 { bikeride = true }
            scan(track.extensions)
            for segment in track.segments {
                for point in segment.points { scan(point) }
                scan(segment.extensions)
            }
        }
        scan(document.extensions)
    }

    private mutating func scan(_ point: TrackPoint) {
        if !trackPointExtension {
            trackPointExtension = [
                point.temperatureCelsius, point.waterTemperatureCelsius, point.depthMeters, point.heartRate,
                point.cadence, point.speedMetersPerSecond, point.courseDegrees,
            ].contains { $0?.isFinite == true }
        }
        if !power, point.powerWatts?.isFinite == true { power = true }
        if !bikeride {
            if let fix = point.fix, !["none", "2d", "3d", "dgps", "pps"].contains(fix) { bikeride = true }
            if let magvar = point.magneticVariation, magvar.isFinite, !(magvar >= 0 && magvar < 360) { bikeride = true }
            if let satellites = point.satellites, satellites < 0 { bikeride = true }
            if let station = point.dgpsStationID, !(0...1023).contains(station) { bikeride = true }
        }
        if !point.extensions.isEmpty { scan(point.extensions) }
    }

    private mutating func scan(_ elements: [XMLElementNode]) {
        for element in elements {
            if element.namespace.isEmpty || element.namespace == GPXWriter.gpxNamespace { bikeride = true }
            var stack = [element]
            while let node = stack.popLast() {
                note(node.namespace, hint: node.prefix)
                for attribute in node.attributes where !attribute.namespace.isEmpty {
                    note(attribute.namespace, hint: attribute.prefix)
                }
                for child in node.children.reversed() {
                    if case .element(let child) = child { stack.append(child) }
                }
            }
        }
    }

    private mutating func note(_ uri: String, hint: String?) {
        guard !uri.isEmpty, uri != GPXWriter.gpxNamespace, uri != XMLNamespaceScope.xmlNamespace,
            uri != XMLNamespaceScope.xmlnsNamespace, seen.insert(uri).inserted
        else { return }
        extensionNamespaces.append((uri, hint))
    }
}
