import Foundation

extension GPXWriter {
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
        beginRoute(route)
        for point in route.points { writeRoutePoint(point) }
        endRoute()
    }

    /// Opens a route and writes its name, description, links, type and extensions; `route.points` is ignored
    /// here (write them with `writeRoutePoint`, then `endRoute`).
    public mutating func beginRoute(_ route: Route) {
        precondition(state <= .routes, "GPXWriter: routes must come before tracks")
        state = .routes
        newline(1)
        raw("<rte>")
        writeDescriptiveFields(
            name: route.name, comment: route.comment, description: route.description, source: route.source,
            links: route.links, number: route.number, type: route.type, extensions: route.extensions, depth: 2)
    }

    /// Writes a point into the route opened by `beginRoute`.
    public mutating func writeRoutePoint(_ point: TrackPoint) {
        precondition(state == .routes, "GPXWriter: writeRoutePoint needs an open route")
        writePoint(point, element: "rtept", depth: 2)
        flushIfFull()
    }

    /// Closes the route opened by `beginRoute`.
    public mutating func endRoute() {
        precondition(state == .routes, "GPXWriter: endRoute needs an open route")
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
}
