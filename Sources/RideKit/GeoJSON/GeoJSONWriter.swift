import Foundation

/// Writes a document as GeoJSON (RFC 7946): a `FeatureCollection` with the tracks, then the routes, then
/// the waypoints, each a `Feature`.
///
/// - A **track** is a `MultiLineString`, one line per segment that has points (empty segments have no
///   GeoJSON form and are left out). Properties: `_gpxType` `"trk"`, and `name`, `cmt`, `desc`, `src`,
///   `number`, `type`, `links` (`[{"href", "text", "type"}]`) when set. Per-point values are arrays of
///   arrays parallel to `coordinates`, as togeojson writes `coordTimes`: `coordTimes` (RFC 3339 strings with
///   the offset the time was read with), `heartRates` (bpm), `cadences` (rpm), `powers` (W) and
///   `temperatures` (°C); each is present only when at least one point has the value, with `null` for the
///   points that have not.
/// - A **route** is a `LineString` with `_gpxType` `"rte"` and the same properties, the arrays flat.
/// - A **waypoint** is a `Point` with `_gpxType` `"wpt"`, `name`, `cmt`, `desc`, `src`, `sym`, `type`,
///   `time`, `links`.
/// - Positions are `[longitude, latitude]` or `[longitude, latitude, elevation]` when the point has one,
///   written with `DecimalFormatting`: exact, never an exponent. Points whose coordinates are not finite and
///   in range are left out.
/// - RFC 7946 wants at least two positions in a line: a line of one point is written with that point twice
///   (and its values twice), which `GeoJSONReader` reads back as one point. A track or route with no points
///   has `"geometry": null`.
/// - Same document, same bytes: compact JSON, one feature per line, keys in a fixed order.
///
/// Simplification (`--simplify`, a zoom level) is the caller's: simplify the document, then write it.
public enum GeoJSONWriter {
    /// The document as GeoJSON bytes (UTF-8).
    public static func write(_ document: GPXDocument) -> [UInt8] {
        var json = JSONBytes()
        json.raw("{\"type\":\"FeatureCollection\",\"features\":[")
        var first = true
        func separator(_ json: inout JSONBytes) {
            json.raw(first ? "\n" : ",\n")
            first = false
        }
        for track in document.tracks {
            separator(&json)
            let lines = track.segments.map { $0.points.filter(\.coordinate.isValid) }.filter { !$0.isEmpty }
            writeLineFeature(
                gpxType: "trk", name: track.name, comment: track.comment, description: track.description,
                source: track.source, number: track.number, type: track.type, links: track.links, lines: lines,
                multi: true, to: &json)
        }
        for route in document.routes {
            separator(&json)
            let points = route.points.filter(\.coordinate.isValid)
            writeLineFeature(
                gpxType: "rte", name: route.name, comment: route.comment, description: route.description,
                source: route.source, number: route.number, type: route.type, links: route.links,
                lines: points.isEmpty ? [] : [points], multi: false, to: &json)
        }
        for waypoint in document.waypoints where waypoint.coordinate.isValid {
            separator(&json)
            writeWaypoint(waypoint, to: &json)
        }
        json.raw(first ? "]}\n" : "\n]}\n")
        return json.bytes
    }

    /// The document as GeoJSON data.
    public static func data(_ document: GPXDocument) -> Data { Data(write(document)) }

    /// The document as GeoJSON text.
    public static func string(_ document: GPXDocument) -> String { String(decoding: write(document), as: UTF8.self) }

    /// The per-point values written as parallel arrays, in the order they appear.
    static let pointValueKeys: [(key: String, value: @Sendable (TrackPoint) -> Double?)] = [
        ("heartRates", { $0.heartRate }), ("cadences", { $0.cadence }), ("powers", { $0.powerWatts }),
        ("temperatures", { $0.temperatureCelsius }),
    ]

    private static func writeLineFeature(
        gpxType: StaticString, name: String?, comment: String?, description: String?, source: String?, number: Int?,
        type: String?, links: [GPXLink], lines: [[TrackPoint]], multi: Bool, to json: inout JSONBytes
    ) {
        // RFC 7946 lines have two positions or more: a lone point is doubled.
        let lines = lines.map { $0.count == 1 ? [$0[0], $0[0]] : $0 }
        writeLineProperties(
            gpxType: gpxType, name: name, comment: comment, description: description, source: source, number: number, type: type,
            links: links, to: &json)

        if lines.contains(where: { $0.contains { $0.time != nil } }) {
            json.key("coordTimes")
            writeParallel(lines, multi: multi, to: &json) { point, json in
                json.time(point.time)
            }
        }
        for (key, value) in pointValueKeys where lines.contains(where: { $0.contains { value($0)?.isFinite == true } }) {
            json.key(key)
            writeParallel(lines, multi: multi, to: &json) { point, json in
                json.number(value(point))
            }
        }
        json.raw("},\"geometry\":")
        if lines.isEmpty {
            json.raw("null}")
            return
        }
        json.raw(multi ? "{\"type\":\"MultiLineString\",\"coordinates\":" : "{\"type\":\"LineString\",\"coordinates\":")
        writeParallel(lines, multi: multi, to: &json) { point, json in
            writePosition(point, to: &json)
        }
        json.raw("}}")
    }

    /// `{"type":"Feature","properties":{"_gpxType":…` and the line's own properties, up to its per-point arrays.
    private static func writeLineProperties(
        gpxType: StaticString, name: String?, comment: String?, description: String?, source: String?, number: Int?,
        type: String?, links: [GPXLink], to json: inout JSONBytes
    ) {
        json.raw("{\"type\":\"Feature\",\"properties\":{\"_gpxType\":\"")
        json.raw(gpxType)
        json.raw("\"")
        json.stringMember("name", name)
        json.stringMember("cmt", comment)
        json.stringMember("desc", description)
        json.stringMember("src", source)
        if let number {
            json.key("number")
            DecimalFormatting.appendInteger(Int64(number), to: &json.bytes)
        }
        json.stringMember("type", type)
        writeLinks(links, to: &json)
    }

    /// `[[a,b],[c]]` for a multi-line, `[a,b]` for a single line.
    private static func writeParallel(
        _ lines: [[TrackPoint]], multi: Bool, to json: inout JSONBytes, element: (TrackPoint, inout JSONBytes) -> Void
    ) {
        if multi { json.bytes.append(UInt8(ascii: "[")) }
        for (lineIndex, line) in lines.enumerated() {
            if lineIndex > 0 { json.bytes.append(UInt8(ascii: ",")) }
            json.bytes.append(UInt8(ascii: "["))
            for (index, point) in line.enumerated() {
                if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
                element(point, &json)
            }
            json.bytes.append(UInt8(ascii: "]"))
        }
        if multi { json.bytes.append(UInt8(ascii: "]")) }
    }

    private static func writePosition(_ point: TrackPoint, to json: inout JSONBytes) {
        json.bytes.append(UInt8(ascii: "["))
        DecimalFormatting.append(point.longitude, to: &json.bytes)
        json.bytes.append(UInt8(ascii: ","))
        DecimalFormatting.append(point.latitude, to: &json.bytes)
        if let elevation = point.elevation, elevation.isFinite {
            json.bytes.append(UInt8(ascii: ","))
            DecimalFormatting.append(elevation, to: &json.bytes)
        }
        json.bytes.append(UInt8(ascii: "]"))
    }

    private static func writeWaypoint(_ point: TrackPoint, to json: inout JSONBytes) {
        json.raw("{\"type\":\"Feature\",\"properties\":{\"_gpxType\":\"wpt\"")
        json.stringMember("name", point.name)
        json.stringMember("cmt", point.comment)
        json.stringMember("desc", point.description)
        json.stringMember("src", point.source)
        json.stringMember("sym", point.symbol)
        json.stringMember("type", point.type)
        if let time = point.time {
            json.key("time")
            json.time(time)
        }
        writeLinks(point.links, to: &json)
        json.raw("},\"geometry\":{\"type\":\"Point\",\"coordinates\":")
        writePosition(point, to: &json)
        json.raw("}}")
    }

    private static func writeLinks(_ links: [GPXLink], to json: inout JSONBytes) {
        guard !links.isEmpty else { return }
        json.key("links")
        json.bytes.append(UInt8(ascii: "["))
        for (index, link) in links.enumerated() {
            if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
            json.raw("{\"href\":")
            json.string(link.href)
            json.stringMember("text", link.text)
            json.stringMember("type", link.type)
            json.bytes.append(UInt8(ascii: "}"))
        }
        json.bytes.append(UInt8(ascii: "]"))
    }
}

/// A run of points `GeoJSONWriter.stream` asks for.
public enum GeoJSONStreamPart: Sendable, Hashable {
    case trackSegment(track: Int, segment: Int)
    case route(Int)
    case waypoints
}

extension GeoJSONWriter {
    /// Writes a document whose points are handed over a block at a time, never held whole: the same bytes as
    /// `write(_:)` of the document with those points (`tracks` and `routes` are headers, their points ignored;
    /// `segmentCounts[i]` is the number of segments of track i; `extraWaypoints` follow the stored ones). A line's
    /// points are asked for once to learn which per-point arrays it has, then once per array written, so memory
    /// stays that of a block and an output chunk of about 64 KiB, which `write` receives in order.
    public static func stream(
        tracks: [Track], segmentCounts: [Int], routes: [Route], extraWaypoints: [TrackPoint] = [],
        points: (GeoJSONStreamPart, ([TrackPoint]) async throws -> Void) async throws -> Void,
        write: ([UInt8]) async throws -> Void
    ) async throws {
        try await withoutActuallyEscaping(write) { write in
            try await streamEscaping(
                tracks: tracks, segmentCounts: segmentCounts, routes: routes, extraWaypoints: extraWaypoints, points: points, write: write)
        }
    }

    private static func streamEscaping(
        tracks: [Track], segmentCounts: [Int], routes: [Route], extraWaypoints: [TrackPoint],
        points: (GeoJSONStreamPart, ([TrackPoint]) async throws -> Void) async throws -> Void,
        write: @escaping ([UInt8]) async throws -> Void
    ) async throws {
        var json = JSONBytes()
        json.bytes.reserveCapacity(Self.streamChunkBytes + 4096)
        func flush(_ json: inout JSONBytes, always: Bool = false) async throws {
            guard always ? !json.bytes.isEmpty : json.bytes.count >= Self.streamChunkBytes else { return }
            try await write(json.bytes)
            json.bytes.removeAll(keepingCapacity: true)
        }
        json.raw("{\"type\":\"FeatureCollection\",\"features\":[")
        var first = true
        func separator(_ json: inout JSONBytes) {
            json.raw(first ? "\n" : ",\n")
            first = false
        }

        /// One feature of lines: a pass to count, then a pass per array.
        func lineFeature(
            parts: [GeoJSONStreamPart], multi: Bool, gpxType: StaticString, name: String?, comment: String?, description: String?,
            source: String?, number: Int?, type: String?, links: [GPXLink]
        ) async throws {
            var counts: [Int] = []
            var hasTime = false
            var hasValue = Array(repeating: false, count: pointValueKeys.count)
            for part in parts {
                var count = 0
                try await points(part) { block in
                    for point in block where point.coordinate.isValid {
                        count += 1
                        if point.time != nil { hasTime = true }
                        for (index, entry) in pointValueKeys.enumerated() where !hasValue[index] && entry.value(point)?.isFinite == true {
                            hasValue[index] = true
                        }
                    }
                }
                counts.append(count)
            }
            let lines = zip(parts, counts).filter { $0.1 > 0 }
            func parallel(_ json: inout JSONBytes, element: @escaping (TrackPoint, inout JSONBytes) -> Void) async throws {
                if multi { json.bytes.append(UInt8(ascii: "[")) }
                for (lineIndex, (part, count)) in lines.enumerated() {
                    if lineIndex > 0 { json.bytes.append(UInt8(ascii: ",")) }
                    json.bytes.append(UInt8(ascii: "["))
                    var index = 0
                    try await points(part) { block in
                        for point in block where point.coordinate.isValid {
                            if index > 0 { json.bytes.append(UInt8(ascii: ",")) }
                            element(point, &json)
                            // RFC 7946 lines have two positions or more: a lone point is doubled.
                            if count == 1 {
                                json.bytes.append(UInt8(ascii: ","))
                                element(point, &json)
                            }
                            index += 1
                        }
                        try await flush(&json)
                    }
                    json.bytes.append(UInt8(ascii: "]"))
                }
                if multi { json.bytes.append(UInt8(ascii: "]")) }
            }
            writeLineProperties(
                gpxType: gpxType, name: name, comment: comment, description: description, source: source, number: number,
                type: type, links: links, to: &json)
            if hasTime {
                json.key("coordTimes")
                try await parallel(&json) { point, json in
                    json.time(point.time)
                }
            }
            for (index, entry) in pointValueKeys.enumerated() where hasValue[index] {
                json.key(entry.key)
                try await parallel(&json) { point, json in json.number(entry.value(point)) }
            }
            json.raw("},\"geometry\":")
            if lines.isEmpty {
                json.raw("null}")
                return
            }
            json.raw(multi ? "{\"type\":\"MultiLineString\",\"coordinates\":" : "{\"type\":\"LineString\",\"coordinates\":")
            try await parallel(&json) { point, json in writePosition(point, to: &json) }
            json.raw("}}")
        }

        for (trackIndex, track) in tracks.enumerated() {
            separator(&json)
            let segments = trackIndex < segmentCounts.count ? segmentCounts[trackIndex] : 0
            try await lineFeature(
                parts: (0..<segments).map { .trackSegment(track: trackIndex, segment: $0) }, multi: true, gpxType: "trk",
                name: track.name, comment: track.comment, description: track.description, source: track.source, number: track.number,
                type: track.type, links: track.links)
            try await flush(&json)
        }
        for (routeIndex, route) in routes.enumerated() {
            separator(&json)
            try await lineFeature(
                parts: [.route(routeIndex)], multi: false, gpxType: "rte", name: route.name, comment: route.comment,
                description: route.description, source: route.source, number: route.number, type: route.type, links: route.links)
            try await flush(&json)
        }
        try await points(.waypoints) { block in
            for waypoint in block where waypoint.coordinate.isValid {
                separator(&json)
                writeWaypoint(waypoint, to: &json)
            }
            try await flush(&json)
        }
        for waypoint in extraWaypoints where waypoint.coordinate.isValid {
            separator(&json)
            writeWaypoint(waypoint, to: &json)
        }
        json.raw(first ? "]}\n" : "\n]}\n")
        try await flush(&json, always: true)
    }

    /// About how many bytes `stream` hands over at a time.
    static let streamChunkBytes = 1 << 16
}
