import Foundation

/// Reads a FIT file (activities, courses, saved locations) into a `DeviceActivity`: what the messages mean, on
/// top of `FITDecoder`'s framing. Message and field numbers are those of Garmin's FIT SDK profile
/// (`FITProfile`).
///
///     let activity = try FITReader.read(contentsOf: url)
///     activity.document.tracks[0].segments.count   // one per stretch the device's timer ran
///     activity.totals?.timerSeconds                // the device's own moving time
///
/// - `record` → track points: position (semicircles → degrees), time, altitude (`enhanced_altitude` first),
///   speed (`enhanced_speed`, `speed`, or the compressed speed), heart rate, cadence, power, temperature.
///   A record without a position (indoor) adds no point; the device's totals still count it.
/// - Timer `event`s: a stop, then a start, begin a new segment, as does a gap of more than
///   `segmentGapSeconds` between records.
/// - `session` → the totals (several sessions added up), `lap` → laps, `sport` → the kind.
/// - `location` and `course_point` → waypoints; a `course` file's records → a route.
/// - The `activity` message's local time gives the times their UTC offset, as the device showed them.
public enum FITReader {
    /// A pause longer than this between two records starts a new segment even without timer events.
    public static let segmentGapSeconds: UInt32 = 300

    /// Whether `head` (a file's first bytes) is a FIT file's header.
    public static func isFIT(_ head: some Collection<UInt8>) -> Bool {
        let bytes = Array(head.prefix(12))
        return bytes.count == 12 && (bytes[0] == 12 || bytes[0] == 14) && bytes[8...11].elementsEqual(".FIT".utf8)
    }

    public static func read(contentsOf url: URL, lenient: Bool = false) throws -> DeviceActivity {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw FITError(.notFIT("cannot read \(url.lastPathComponent): \(error.localizedDescription)"), offset: 0)
        }
        return try read(data, lenient: lenient)
    }

    public static func read(_ data: some ContiguousBytes, lenient: Bool = false) throws -> DeviceActivity {
        var builder = Builder()
        let report = try data.withUnsafeBytes { bytes in
            try FITDecoder.decode(bytes, lenient: lenient) { message in builder.add(message) }
        }
        return builder.finish(warnings: report.warnings)
    }

    /// Turns messages into a `DeviceActivity` as they come.
    struct Builder {
        var fileType: Int64?
        var creator: String?
        var kind: TrackKind?
        var courseName: String?
        var segments: [[TrackPoint]] = [[]]
        var waypoints: [TrackPoint] = []
        var sessions: [DeviceFigures] = []
        var laps: [DeviceFigures] = []
        var timerStopped = false
        var lastRecordTime: UInt32?
        /// Best efforts from the records without a position (an indoor trainer): used when the file has none.
        var deviceEfforts = DeviceEffortRecorder()
        /// Seconds east of UTC the device showed (`activity.local_timestamp` − `activity.timestamp`).
        var localOffsetSeconds: Int64?

        mutating func add(_ message: borrowing FITMessage) {
            switch message.globalNumber {
            case FITProfile.Message.fileID:
                if fileType == nil { fileType = message.integer(0) }
                if creator == nil, let manufacturer = message.integer(1) { creator = FITProfile.manufacturerName(manufacturer) }
            case FITProfile.Message.record: record(message)
            case FITProfile.Message.event: event(message)
            case FITProfile.Message.sport:
                if kind == nil { kind = FITProfile.kind(sport: message.integer(0), subSport: message.integer(1)) }
            case FITProfile.Message.session:
                sessions.append(figures(message, FITProfile.sessionFields))
                if kind == nil { kind = FITProfile.kind(sport: message.integer(5), subSport: message.integer(6)) }
            case FITProfile.Message.lap: laps.append(figures(message, FITProfile.lapFields))
            case FITProfile.Message.activity:
                if let local = message.integer(5), let utc = message.timestamp {
                    let offset = local - Int64(utc)
                    // A real zone: within ±14 h, in whole quarter hours once rounded.
                    if abs(offset) <= 14 * 3600 { localOffsetSeconds = (offset / 900 + (offset % 900 >= 450 ? 1 : 0)) * 900 }
                }
            case FITProfile.Message.location: location(message)
            case FITProfile.Message.course: courseName = message.string(5)
            case FITProfile.Message.coursePoint: coursePoint(message)
            default: break
            }
        }

        static func time(_ timestamp: UInt32?) -> GPXTime? {
            timestamp.map { GPXTime(secondsSince1970: FITMessage.epochSecondsSince1970 + Int64($0)) }
        }

        /// An altitude the GPX reader would take back (`GPXReader.elevationRange`), else none: a 32-bit
        /// `enhanced_altitude` reaches 859,000 km (found by the fuzzer: a GPX written from such a file was refused).
        static func elevation(_ meters: Double?) -> Double? {
            meters.flatMap { GPXReader.elevationRange.contains($0) ? $0 : nil }
        }

        /// A position in semicircles, or nil when absent or out of range.
        static func coordinate(_ message: borrowing FITMessage, latitude: UInt8, longitude: UInt8) -> Coordinate? {
            guard let lat = message.integer(latitude), let lon = message.integer(longitude) else { return nil }
            let coordinate = Coordinate(latitude: Double(lat) * FITProfile.degreesPerSemicircle, longitude: Double(lon) * FITProfile.degreesPerSemicircle)
            return coordinate.isValid ? coordinate : nil
        }

        mutating func record(_ message: borrowing FITMessage) {
            if let time = message.timestamp {
                if let last = lastRecordTime, time > last, time - last > FITReader.segmentGapSeconds {
                    breakSegment()
                    deviceEfforts.beginStretch()
                }
                lastRecordTime = time
            }
            let speed = message.double(73, scale: 1000) ?? message.double(6, scale: 1000) ?? FITProfile.compressedSpeed(message)
            guard let coordinate = Self.coordinate(message, latitude: 0, longitude: 1) else {
                // Indoors: the device's distance, power and heart rate still make best efforts.
                deviceEfforts.add(
                    time: message.timestamp.map { Int64($0) }, distanceMeters: message.double(5, scale: 100), powerWatts: message.double(7),
                    heartRate: message.double(3))
                return
            }
            let point = TrackPoint(
                latitude: coordinate.latitude, longitude: coordinate.longitude,
                elevation: Self.elevation(message.double(78, scale: 5, offset: 500) ?? message.double(2, scale: 5, offset: 500)),
                time: Self.time(message.timestamp), speedMetersPerSecond: speed, heartRate: message.double(3),
                cadence: message.double(4), temperatureCelsius: message.double(13), powerWatts: message.double(7))
            segments[segments.count - 1].append(point)
        }

        mutating func event(_ message: borrowing FITMessage) {
            // Event 0 is the timer; its types: 0 start, 1 stop, 4 stop_all, 8 stop_disable, 9 stop_disable_all.
            guard message.integer(0) == 0, let type = message.integer(1) else { return }
            switch type {
            case 1, 4, 8, 9: timerStopped = true
            case 0:
                if timerStopped {
                    breakSegment()
                    deviceEfforts.beginStretch()
                }
                timerStopped = false
            default: break
            }
        }

        mutating func breakSegment() {
            if !(segments.last?.isEmpty ?? true) { segments.append([]) }
        }

        mutating func location(_ message: borrowing FITMessage) {
            guard let coordinate = Self.coordinate(message, latitude: 1, longitude: 2) else { return }
            waypoints.append(
                TrackPoint(
                    latitude: coordinate.latitude, longitude: coordinate.longitude, elevation: message.double(4, scale: 5, offset: 500),
                    time: Self.time(message.timestamp), name: message.string(0), description: message.string(5)))
        }

        mutating func coursePoint(_ message: borrowing FITMessage) {
            guard let coordinate = Self.coordinate(message, latitude: 2, longitude: 3) else { return }
            let time = message.integer(1).flatMap { UInt32(exactly: $0) }
            waypoints.append(
                TrackPoint(
                    latitude: coordinate.latitude, longitude: coordinate.longitude, time: Self.time(time), name: message.string(6),
                    type: FITProfile.coursePointTypeName(message.integer(5))))
        }

        func figures(_ message: borrowing FITMessage, _ fields: FITProfile.FigureFields) -> DeviceFigures {
            DeviceFigures(
                startTime: Self.time(message.integer(fields.startTime).flatMap { UInt32(exactly: $0) }),
                distanceMeters: message.double(fields.distance, scale: 100),
                timerSeconds: message.double(fields.timerTime, scale: 1000),
                elapsedSeconds: message.double(fields.elapsedTime, scale: 1000),
                ascentMeters: message.double(fields.ascent), descentMeters: message.double(fields.descent),
                averageSpeedMetersPerSecond: message.double(fields.enhancedAverageSpeed, scale: 1000) ?? message.double(fields.averageSpeed, scale: 1000),
                maxSpeedMetersPerSecond: message.double(fields.enhancedMaxSpeed, scale: 1000) ?? message.double(fields.maxSpeed, scale: 1000),
                averageHeartRate: message.double(fields.averageHeartRate), maxHeartRate: message.double(fields.maxHeartRate),
                averageCadence: message.double(fields.averageCadence), averagePowerWatts: message.double(fields.averagePower),
                maxPowerWatts: message.double(fields.maxPower), calories: message.double(fields.calories))
        }

        func finish(warnings: [String]) -> DeviceActivity {
            var segments = self.segments.filter { !$0.isEmpty }
            var waypoints = self.waypoints
            var laps = self.laps
            var sessions = self.sessions
            if let offset = localOffsetSeconds, offset != 0 {
                // The same instants, written with the offset the device showed.
                let zone = GPXTime.UTCOffset.minutes(Int(offset / 60))
                for index in segments.indices {
                    for point in segments[index].indices { segments[index][point].time?.offset = zone }
                }
                for index in waypoints.indices { waypoints[index].time?.offset = zone }
                for index in laps.indices { laps[index].startTime?.offset = zone }
                for index in sessions.indices { sessions[index].startTime?.offset = zone }
            }
            let isCourse = fileType == FITProfile.FileType.course
            var document = GPXDocument(creator: creator, waypoints: waypoints)
            let kind = isCourse ? TrackKind.route : kind
            if isCourse {
                document.routes = [Route(name: courseName, points: segments.flatMap { $0 })]
            } else if !segments.isEmpty {
                document.tracks = [Track(name: courseName, type: kind?.gpxType, segments: segments.map { TrackSegment(points: $0) })]
            }
            return DeviceActivity(
                document: document, kind: kind, totals: DeviceFigures.combined(sessions), laps: laps, isCourse: isCourse,
                efforts: segments.isEmpty && !isCourse ? deviceEfforts.efforts() : nil, warnings: warnings)
        }
    }
}
