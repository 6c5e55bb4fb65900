import Foundation

/// Reads the lines and points of a GeoJSON file (RFC 7946) into a document, for importing tracks drawn or
/// exported elsewhere.
///
/// Accepted: a `FeatureCollection`, a single `Feature`, or a bare geometry. `LineString` and
/// `MultiLineString` become tracks (one segment per line), or routes when `_gpxType` is `"rte"`, as
/// `GeoJSONWriter` marks them; `Point` becomes a waypoint. Other geometries and `null` geometries are
/// skipped; a file with nothing importable is an error. From the properties it takes what `GeoJSONWriter`
/// writes — `name`, `cmt`, `desc`, `src`, `number`, `type`, `sym`, `time`, `links` and the per-point arrays
/// `coordTimes`, `heartRates`, `cadences`, `powers`, `temperatures` — plus togeojson's newer
/// `coordinateProperties.times` and `.heart`. Unknown properties are ignored.
///
/// Positions need a finite longitude within −180…180 and latitude within −90…90; a third number is the
/// elevation, further ones are ignored. A line of exactly two identical points (position, time and values)
/// is read as one point, undoing the writer's doubling of lone points. Errors name the place in the JSON:
/// `features[2].geometry.coordinates[0][15]`.
public enum GeoJSONReader {
    static let formatName = "GeoJSON"

    /// Reads a GeoJSON document.
    public static func read(_ data: Data) throws(TrackFormatError) -> GPXDocument {
        let root: JSONValue
        do throws(JSONParser.Failure) {
            root = try JSONParser.parse(data)
        } catch {
            // Refused: `JSONDecoder` names the place in the document (`coordinates[0][0]`) where the parser
            // has only a byte offset; it reads the file once more only when it is wrong anyway.
            do {
                _ = try JSONDecoder().decode(JSONValue.self, from: data)
            } catch let decoding {
                throw TrackFormatError.decoding(decoding, format: formatName)
            }
            throw .invalidJSON(format: formatName, reason: error.description)
        }
        var reader = Reader()
        try reader.readRoot(root)
        guard !reader.document.tracks.isEmpty || !reader.document.routes.isEmpty || !reader.document.waypoints.isEmpty
        else {
            throw .unsupported(format: formatName, reason: "no LineString, MultiLineString or Point geometry to import")
        }
        return reader.document
    }

    private struct Reader {
        var document = GPXDocument()

        mutating func readRoot(_ root: JSONValue) throws(TrackFormatError) {
            let object = try root.object(at: "")
            let type = try object.string("type", at: "")
            switch type {
            case "FeatureCollection":
                let features = try object.array("features", at: "")
                for (index, feature) in features.enumerated() {
                    try readFeature(feature, at: "features[\(index)]")
                }
            case "Feature":
                try readFeature(root, at: "")
            default:
                try readGeometry(root, properties: [:], at: "")
            }
        }

        mutating func readFeature(_ value: JSONValue, at path: String) throws(TrackFormatError) {
            let object = try value.object(at: path)
            let type = try object.string("type", at: path)
            guard type == "Feature" else {
                throw .invalidValue(format: formatName, path: join(path, "type"), reason: "is '\(type)'; expected 'Feature'")
            }
            var properties: [String: JSONValue] = [:]
            switch object["properties"] {
            case nil, .null?: break
            case .object(let members)?: properties = members
            default: throw .wrongType(format: formatName, path: join(path, "properties"), expected: "an object or null")
            }
            switch object["geometry"] {
            case nil:
                throw .missingKey(format: formatName, path: join(path, "geometry"))
            case .null?:
                return
            case let geometry?:
                try readGeometry(geometry, properties: properties, at: join(path, "geometry"), propertiesPath: join(path, "properties"))
            }
        }

        mutating func readGeometry(
            _ value: JSONValue, properties: [String: JSONValue], at path: String, propertiesPath: String = "properties"
        ) throws(TrackFormatError) {
            let object = try value.object(at: path)
            let type = try object.string("type", at: path)
            let coordinatesPath = join(path, "coordinates")
            let props = Properties(values: properties, path: propertiesPath)
            switch type {
            case "LineString":
                let positions = try object.array("coordinates", at: path)
                var line = try readLine(positions, at: coordinatesPath)
                try props.applyPointValues(to: &line, lineIndex: nil)
                line = collapseDoubledPoint(line)
                if try props.optionalString("_gpxType") == "rte" {
                    var route = Route(points: line)
                    try props.describe(
                        &route.name, &route.comment, &route.description, &route.source, &route.number,
                        &route.type, &route.links)
                    document.routes.append(route)
                } else {
                    var track = Track(segments: [TrackSegment(points: line)])
                    try props.describe(
                        &track.name, &track.comment, &track.description, &track.source, &track.number,
                        &track.type, &track.links)
                    document.tracks.append(track)
                }
            case "MultiLineString":
                let lines = try object.array("coordinates", at: path)
                var segments: [TrackSegment] = []
                for (lineIndex, positions) in lines.enumerated() {
                    let linePath = "\(coordinatesPath)[\(lineIndex)]"
                    var line = try readLine(try positions.array(at: linePath), at: linePath)
                    try props.applyPointValues(to: &line, lineIndex: lineIndex)
                    segments.append(TrackSegment(points: collapseDoubledPoint(line)))
                }
                try props.checkLineCount(lines.count)
                var track = Track(segments: segments)
                try props.describe(
                    &track.name, &track.comment, &track.description, &track.source, &track.number,
                    &track.type, &track.links)
                document.tracks.append(track)
            case "Point":
                guard let position = object["coordinates"] else {
                    throw .missingKey(format: formatName, path: coordinatesPath)
                }
                var point = try readPosition(position, at: coordinatesPath)
                // TrackPoint keeps these in a shared box (computed properties): fill locals, then assign.
                var number: Int? = nil
                var name: String?, comment: String?, description: String?, source: String?, type: String?
                var links: [GPXLink] = []
                try props.describe(&name, &comment, &description, &source, &number, &type, &links)
                point.name = name
                point.comment = comment
                point.description = description
                point.source = source
                point.type = type
                point.links = links
                point.symbol = try props.optionalString("sym")
                if let time = try props.optionalString("time") {
                    point.time = try parseTime(time, at: join(propertiesPath, "time"))
                }
                document.waypoints.append(point)
            case "GeometryCollection":
                let geometries = try object.array("geometries", at: path)
                for (index, geometry) in geometries.enumerated() {
                    try readGeometry(
                        geometry, properties: properties, at: "\(join(path, "geometries"))[\(index)]",
                        propertiesPath: propertiesPath)
                }
            default:
                // Polygons and the like have no GPX meaning: skipped.
                return
            }
        }

        func readLine(_ positions: [JSONValue], at path: String) throws(TrackFormatError) -> [TrackPoint] {
            var points: [TrackPoint] = []
            points.reserveCapacity(positions.count)
            for (index, position) in positions.enumerated() {
                points.append(try readPosition(position, at: "\(path)[\(index)]"))
            }
            return points
        }

        func readPosition(_ value: JSONValue, at path: String) throws(TrackFormatError) -> TrackPoint {
            let numbers = try value.array(at: path)
            guard numbers.count >= 2 else {
                throw .invalidValue(format: formatName, path: path, reason: "needs at least longitude and latitude")
            }
            let longitude = try numbers[0].number(at: "\(path)[0]")
            let latitude = try numbers[1].number(at: "\(path)[1]")
            guard Coordinate(latitude: latitude, longitude: longitude).isValid else {
                throw .invalidCoordinate(format: formatName, path: path, latitude: latitude, longitude: longitude)
            }
            var point = TrackPoint(latitude: latitude, longitude: longitude)
            if numbers.count >= 3 { point.elevation = try numbers[2].number(at: "\(path)[2]") }
            return point
        }

        /// The writer doubles a lone point to make a valid line; two identical points are one.
        func collapseDoubledPoint(_ line: [TrackPoint]) -> [TrackPoint] {
            line.count == 2 && line[0] == line[1] ? [line[0]] : line
        }
    }

    /// A feature's properties, with the place they came from for error messages.
    private struct Properties {
        var values: [String: JSONValue]
        var path: String

        func optionalString(_ key: String) throws(TrackFormatError) -> String? {
            switch values[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .wrongType(format: formatName, path: join(path, key), expected: "a string")
            }
        }

        func describe(
            _ name: inout String?, _ comment: inout String?, _ description: inout String?, _ source: inout String?,
            _ number: inout Int?, _ type: inout String?, _ links: inout [GPXLink]
        ) throws(TrackFormatError) {
            name = try optionalString("name")
            comment = try optionalString("cmt")
            description = try optionalString("desc")
            source = try optionalString("src")
            type = try optionalString("type")
            switch values["number"] {
            case nil, .null?: number = nil
            case .number(let value)? where value == value.rounded() && abs(value) < 1e15: number = Int(value)
            default: throw .wrongType(format: formatName, path: join(path, "number"), expected: "a whole number")
            }
            switch values["links"] {
            case nil, .null?: links = []
            case .array(let items)?:
                links = []
                for (index, item) in items.enumerated() {
                    let itemPath = "\(join(path, "links"))[\(index)]"
                    let object = try item.object(at: itemPath)
                    let href = try object.string("href", at: itemPath)
                    var link = GPXLink(href: href)
                    let linkProperties = Properties(values: object, path: itemPath)
                    link.text = try linkProperties.optionalString("text")
                    link.type = try linkProperties.optionalString("type")
                    links.append(link)
                }
            default: throw .wrongType(format: formatName, path: join(path, "links"), expected: "an array")
            }
        }

        /// The per-point arrays for one line: `lineIndex` nil for a LineString (flat arrays), else the index
        /// into the arrays of arrays of a MultiLineString.
        func applyPointValues(to line: inout [TrackPoint], lineIndex: Int?) throws(TrackFormatError) {
            let coordinateProperties: [String: JSONValue]
            if case .object(let members)? = values["coordinateProperties"] {
                coordinateProperties = members
            } else {
                coordinateProperties = [:]
            }
            let timeSource =
                values["coordTimes"].map { ("coordTimes", $0) }
                ?? coordinateProperties["times"].map { ("coordinateProperties.times", $0) }
            if let (key, value) = timeSource, let items = try items(value, key: key, lineIndex: lineIndex, count: line.count) {
                for (index, item) in items.enumerated() {
                    let itemPath = self.itemPath(key, lineIndex, index)
                    switch item {
                    case .null: continue
                    case .string(let text): line[index].time = try parseTime(text, at: itemPath)
                    default: throw .wrongType(format: formatName, path: itemPath, expected: "an RFC 3339 time string or null")
                    }
                }
            }
            var numberKeys: [(String, JSONValue, WritableKeyPath<TrackPoint, Double?>)] = []
            let fields: [(String, WritableKeyPath<TrackPoint, Double?>)] = [
                ("heartRates", \.heartRate), ("cadences", \.cadence), ("powers", \.powerWatts),
                ("temperatures", \.temperatureCelsius),
            ]
            for (key, keyPath) in fields {
                if let value = values[key] { numberKeys.append((key, value, keyPath)) }
            }
            if values["heartRates"] == nil, let heart = coordinateProperties["heart"] {
                numberKeys.append(("coordinateProperties.heart", heart, \.heartRate))
            }
            for (key, value, keyPath) in numberKeys {
                guard let items = try items(value, key: key, lineIndex: lineIndex, count: line.count) else { continue }
                for (index, item) in items.enumerated() {
                    switch item {
                    case .null: continue
                    case .number(let number): line[index][keyPath: keyPath] = number
                    default: throw .wrongType(format: formatName, path: itemPath(key, lineIndex, index), expected: "a number or null")
                    }
                }
            }
        }

        /// The items of a parallel array for one line, checked against the line's length; nil when the
        /// property is null.
        private func items(_ value: JSONValue, key: String, lineIndex: Int?, count: Int) throws(TrackFormatError) -> [JSONValue]? {
            if case .null = value { return nil }
            let keyPath = join(path, key)
            var items = try value.array(at: keyPath)
            var itemsPath = keyPath
            if let lineIndex {
                guard lineIndex < items.count else {
                    throw .invalidValue(format: formatName, path: keyPath, reason: "has \(items.count) lines; the geometry has more")
                }
                itemsPath = "\(keyPath)[\(lineIndex)]"
                items = try items[lineIndex].array(at: itemsPath)
            }
            guard items.count == count else {
                throw .invalidValue(format: formatName, path: itemsPath, reason: "has \(items.count) values for \(count) positions")
            }
            return items
        }

        /// A MultiLineString's parallel arrays must not have more lines than the geometry.
        func checkLineCount(_ lineCount: Int) throws(TrackFormatError) {
            for key in ["coordTimes"] + GeoJSONWriter.pointValueKeys.map(\.key) {
                if case .array(let lines)? = values[key], lines.count != lineCount {
                    throw .invalidValue(
                        format: formatName, path: join(path, key), reason: "has \(lines.count) lines for \(lineCount) in the geometry")
                }
            }
        }

        private func itemPath(_ key: String, _ lineIndex: Int?, _ index: Int) -> String {
            lineIndex.map { "\(join(path, key))[\($0)][\(index)]" } ?? "\(join(path, key))[\(index)]"
        }
    }

    private static func parseTime(_ text: String, at path: String) throws(TrackFormatError) -> GPXTime {
        do {
            return try GPXTime(parsing: text)
        } catch {
            throw .invalidValue(format: formatName, path: path, reason: "is not a valid time: \(error)")
        }
    }

    private static func join(_ path: String, _ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }
}
