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
///
/// Split by concern: `GPXWriter+Document` (whole documents), `+Incremental` (writing as you go), `+Elements`
/// (GPX elements and points), `+Extensions` (extension trees and their namespaces), `+Output` (the buffer).
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

    enum State: Int, Comparable {
        case waypoints, routes, tracks, track, segment, finished
        static func < (a: State, b: State) -> Bool { a.rawValue < b.rawValue }
    }

    var buffer: [UInt8] = []
    let chunkSize: Int
    let sink: (([UInt8]) throws -> Void)?
    var failure: (any Error)?
    var state = State.waypoints
    var scope: XMLNamespaceScope
    /// Root prefixes of the three namespaces the writer produces itself, as bytes, for the per-point fast path.
    let trackPointExtensionPrefix: [UInt8]?
    let powerPrefix: [UInt8]?
    let bikeridePrefix: [UInt8]?

    // MARK: Set-up

    init(document: GPXDocument, creator: String?, chunkSize: Int, sink: (([UInt8]) throws -> Void)?) {
        self.init(
            creator: creator ?? document.creator ?? Self.defaultCreator, metadata: document.metadata,
            bindings: Self.rootBindings(for: document), chunkSize: chunkSize, sink: sink)
    }

    init(
        creator: String, metadata: GPXMetadata, bindings: [(prefix: String, uri: String)], chunkSize: Int,
        sink: (([UInt8]) throws -> Void)?
    ) {
        var usable: [(prefix: String, uri: String)] = []
        var usedPrefixes: Set<String> = []
        for binding in bindings
        where XMLNamespaceScope.isUsablePrefix(binding.prefix) && !binding.uri.isEmpty
            && binding.uri != Self.gpxNamespace && binding.uri != XMLNamespaceScope.xmlNamespace
            && !usedPrefixes.contains(binding.prefix)
        {
            usable.append(binding)
            usedPrefixes.insert(binding.prefix)
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
        // Sets, not searches of `bindings`: a file can bring thousands of namespaces.
        var prefixes = Set(bindings.map(\.prefix))
        let uris = Set(bindings.map(\.uri))
        var firstFreeNumber = 1
        for (uri, hint) in usage.extensionNamespaces where !uris.contains(uri) {
            let prefix = XMLNamespaceScope.freePrefix(hint: hint, firstFreeNumber: &firstFreeNumber) { prefixes.contains($0) }
            bindings.append((prefix, uri))
            prefixes.insert(prefix)
        }
        return bindings
    }
}
