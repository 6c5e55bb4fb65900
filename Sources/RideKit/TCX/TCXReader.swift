import Foundation

/// Reads Garmin Training Center XML (TCX v2) into a `DeviceActivity`, through the same hardened XML tokenizer
/// as GPX (no DTD, bounded tokens and depth, valid UTF-8).
///
/// - Each `Activity` is a track (its `Sport` the kind), each `Track` inside its `Lap`s a segment (a device
///   starts a new one after a pause), each `Trackpoint` with a `Position` a point: time, altitude, heart rate,
///   cadence, and the `ns3:TPX` speed and watts. A trackpoint without a position adds no point.
/// - `Lap`s are the device's laps (`TotalTimeSeconds` its timer time, `DistanceMeters`, `Calories`, heart
///   rates, `MaximumSpeed`, and the `ns3:LX` averages); their sums are the totals.
/// - A `Course` is a route, its `CoursePoint`s waypoints (their `PointType` as the waypoint's type).
///
///     let activity = try TCXReader.read(bytes: Array(data))
public enum TCXReader {
    /// Whether `head` (a file's first bytes) looks like TCX: its root element is `TrainingCenterDatabase`.
    public static func isTCX(_ head: some Collection<UInt8>) -> Bool {
        let text = String(decoding: head.prefix(4096), as: UTF8.self)
        return text.contains("<TrainingCenterDatabase")
    }

    public static func read(contentsOf url: URL, lenient: Bool = false) throws -> DeviceActivity {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw GPXError(.io("cannot read \(url.lastPathComponent): \(error.localizedDescription)"), line: 0, column: 0)
        }
        return try read(bytes: [UInt8](data), lenient: lenient)
    }

    public static func read(bytes: [UInt8], lenient: Bool = false) throws(GPXError) -> DeviceActivity {
        let decoding: DecodingSource
        do {
            decoding = try DecodingSource(MemorySource(bytes))
        } catch let error as GPXError {
            throw error
        } catch {
            throw GPXError(.io("cannot read: \(error)"), line: 0, column: 0)
        }
        let encoding = decoding.encoding
        var parser = Parser(scanner: XMLScanner(source: decoding, lenient: lenient) { encoding.accepts(declared: $0) })
        try parser.parse()
        return parser.finish()
    }

    struct Parser {
        var scanner: XMLScanner
        /// Local names of the open elements.
        var path: [String] = []
        var text: [UInt8] = []

        var tracks: [Track] = []
        var routes: [Route] = []
        var waypoints: [TrackPoint] = []
        var laps: [DeviceFigures] = []
        var kind: TrackKind?
        var creator: String?

        // The activity or course being read.
        var segments: [[TrackPoint]] = []
        var activityKind: TrackKind?
        var courseName: String?
        var lap = DeviceFigures()
        var point = PointFields()
        var coursePoint = PointFields()

        struct PointFields {
            var time: GPXTime?
            var latitude: Double?
            var longitude: Double?
            var altitude: Double?
            var heartRate: Double?
            var cadence: Double?
            var speed: Double?
            var watts: Double?
            var name: String?
            var type: String?
            var notes: String?
        }

        init(scanner: XMLScanner) { self.scanner = scanner }

        mutating func parse() throws(GPXError) {
            while true {
                switch try scanner.next(skippingWhitespace: true) {
                case .startElement:
                    let name = String(decoding: scanner.elementLocalName, as: UTF8.self)
                    if path.isEmpty, name != "TrainingCenterDatabase" {
                        throw GPXError(
                            .invalidValue(element: name, value: "", expected: "<TrainingCenterDatabase> as the root: this is not a TCX file"),
                            line: 1, column: 1)
                    }
                    path.append(name)
                    text.removeAll(keepingCapacity: true)
                    try start(name)
                case .text:
                    scanner.appendText(to: &text)
                case .endElement:
                    try end(path.last ?? "")
                    path.removeLast()
                    text.removeAll(keepingCapacity: true)
                case .endOfDocument:
                    return
                }
            }
        }

        /// The parent of the current element (the one `end` is called for).
        var parent: String { path.count >= 2 ? path[path.count - 2] : "" }
        var grandparent: String { path.count >= 3 ? path[path.count - 3] : "" }

        mutating func start(_ name: String) throws(GPXError) {
            switch name {
            case "Activity":
                segments = []
                activityKind = nil
                courseName = nil
                for index in 0..<scanner.attributeCount {
                    let attribute = scanner.attributes[index]
                    if String(decoding: scanner.localName(of: attribute), as: UTF8.self) == "Sport" {
                        activityKind = TrackKind(tcxSport: scanner.attributeValue(attribute))
                    }
                }
            case "Course":
                segments = []
                courseName = nil
            case "Lap":
                lap = DeviceFigures()
                for index in 0..<scanner.attributeCount {
                    let attribute = scanner.attributes[index]
                    if String(decoding: scanner.localName(of: attribute), as: UTF8.self) == "StartTime" {
                        lap.startTime = try? GPXTime(parsing: scanner.attributeValue(attribute))
                    }
                }
            case "Track": segments.append([])
            case "Trackpoint": point = PointFields()
            case "CoursePoint": coursePoint = PointFields()
            default: break
            }
        }

        /// The element's text without the XML whitespace around it (space, tab, CR, LF: the only whitespace XML
        /// has), trimmed on the bytes: Foundation's `trimmingCharacters` bridged through `NSString` and was half
        /// of a TCX file's reading.
        var value: String {
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
            guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
            return String(decoding: text[first...last], as: UTF8.self)
        }

        /// The text as a finite number, or nil (a value a device left empty or wrote badly is skipped).
        var number: Double? {
            guard let value = Double(value), value.isFinite else { return nil }
            return value
        }

        mutating func end(_ name: String) throws(GPXError) {
            let inCoursePoint = path.contains("CoursePoint")
            switch name {
            case "Trackpoint":
                if let latitude = point.latitude, let longitude = point.longitude,
                    Coordinate(latitude: latitude, longitude: longitude).isValid
                {
                    if segments.isEmpty { segments.append([]) }
                    segments[segments.count - 1].append(
                        TrackPoint(
                            latitude: latitude, longitude: longitude, elevation: point.altitude, time: point.time,
                            speedMetersPerSecond: point.speed, heartRate: point.heartRate, cadence: point.cadence, powerWatts: point.watts))
                }
            case "CoursePoint":
                if let latitude = coursePoint.latitude, let longitude = coursePoint.longitude,
                    Coordinate(latitude: latitude, longitude: longitude).isValid
                {
                    waypoints.append(
                        TrackPoint(
                            latitude: latitude, longitude: longitude, elevation: coursePoint.altitude, time: coursePoint.time,
                            name: coursePoint.name, description: coursePoint.notes, type: coursePoint.type))
                }
            case "Time": let v = try? GPXTime(parsing: value); setPoint(inCoursePoint) { $0.time = v }
            case "LatitudeDegrees": let v = number; setPoint(inCoursePoint) { $0.latitude = v }
            case "LongitudeDegrees": let v = number; setPoint(inCoursePoint) { $0.longitude = v }
            case "AltitudeMeters": let v = number; setPoint(inCoursePoint) { $0.altitude = v }
            case "Value":
                let v = number
                switch parent {
                case "HeartRateBpm": point.heartRate = v
                case "AverageHeartRateBpm" where grandparent == "Lap": lap.averageHeartRate = v
                case "MaximumHeartRateBpm" where grandparent == "Lap": lap.maxHeartRate = v
                default: break
                }
            case "Cadence":
                if parent == "Trackpoint" { point.cadence = number } else if parent == "Lap" { lap.averageCadence = number }
            case "RunCadence" where parent == "TPX": if point.cadence == nil { point.cadence = number }
            case "Speed" where parent == "TPX": point.speed = number
            case "Watts" where parent == "TPX": point.watts = number
            case "TotalTimeSeconds" where parent == "Lap": lap.timerSeconds = number
            case "DistanceMeters" where parent == "Lap": lap.distanceMeters = number
            case "MaximumSpeed" where parent == "Lap": lap.maxSpeedMetersPerSecond = number
            case "Calories" where parent == "Lap": lap.calories = number
            case "AvgSpeed" where parent == "LX": lap.averageSpeedMetersPerSecond = number
            case "AvgWatts" where parent == "LX": lap.averagePowerWatts = number
            case "MaxWatts" where parent == "LX": lap.maxPowerWatts = number
            case "AvgRunCadence" where parent == "LX", "AvgBikeCadence" where parent == "LX":
                if lap.averageCadence == nil { lap.averageCadence = number }
            case "Lap": laps.append(lap)
            case "Name":
                if parent == "CoursePoint" {
                    coursePoint.name = value
                } else if parent == "Course" {
                    courseName = value
                } else if parent == "Creator", path.contains("Activity"), creator == nil {
                    creator = value
                }
            case "PointType" where parent == "CoursePoint": coursePoint.type = value
            case "Notes" where parent == "CoursePoint": coursePoint.notes = value
            case "Activity":
                let points = segments.filter { !$0.isEmpty }
                if kind == nil { kind = activityKind }
                if !points.isEmpty {
                    tracks.append(Track(type: activityKind?.gpxType, segments: points.map { TrackSegment(points: $0) }))
                }
            case "Course":
                routes.append(Route(name: courseName, points: segments.flatMap { $0 }))
            default: break
            }
        }

        mutating func setPoint(_ inCoursePoint: Bool, _ change: (inout PointFields) -> Void) {
            if inCoursePoint { change(&coursePoint) } else { change(&point) }
        }

        func finish() -> DeviceActivity {
            let isCourse = tracks.isEmpty && !routes.isEmpty
            var totals = laps.isEmpty ? nil : DeviceFigures.combined(laps)
            if totals != nil, let first = tracks.first?.segments.first?.points.first?.time,
                let last = tracks.last?.segments.last?.points.last?.time
            {
                totals?.elapsedSeconds = last.timeIntervalSince1970 - first.timeIntervalSince1970
            }
            return DeviceActivity(
                document: GPXDocument(creator: creator, waypoints: waypoints, routes: routes, tracks: tracks),
                kind: isCourse ? .route : kind, totals: isCourse ? nil : totals, laps: isCourse ? [] : laps, isCourse: isCourse)
        }
    }
}

extension TrackKind {
    /// The kind of a TCX `Sport` attribute: `Biking` rides, `Running` runs; `Other` says nothing.
    init?(tcxSport: String) {
        switch tcxSport {
        case "Biking": self = .ride
        case "Running": self = .run
        default: return nil
        }
    }
}
