/// What a bike computer's or a watch's file holds (FIT, TCX): the line as a GPX document (tracks, a course's
/// route, waypoints), and what the device itself measured, kept beside bikeride's own figures.
public struct DeviceActivity: Sendable, Hashable {
    /// The points: tracks with a segment per stretch the device's timer ran, a course as a route, saved
    /// locations and course points as waypoints (a course point's `type` is its FIT `course_point` type, in
    /// Garmin Connect's spelling: "Left", "SlightRight" …).
    public var document: GPXDocument
    /// What the device says it was (its `sport`), when it says.
    public var kind: TrackKind?
    /// The device's own totals (its sessions added up), nil when the file has none.
    public var totals: DeviceFigures?
    /// Laps as the device recorded them.
    public var laps: [DeviceFigures]
    /// A course (a route to follow), not a recorded activity.
    public var isCourse: Bool
    /// For a file without positions: the best efforts of the device's own distance, power and heart rate
    /// (`DeviceEffortRecorder`); nil otherwise, where the points give them.
    public var efforts: BestEfforts?
    /// Lenient reads: what was damaged and left out.
    public var warnings: [String]

    public init(
        document: GPXDocument = GPXDocument(), kind: TrackKind? = nil, totals: DeviceFigures? = nil, laps: [DeviceFigures] = [],
        isCourse: Bool = false, efforts: BestEfforts? = nil, warnings: [String] = []
    ) {
        self.efforts = efforts
        self.document = document
        self.kind = kind
        self.totals = totals
        self.laps = laps
        self.isCourse = isCourse
        self.warnings = warnings
    }

    /// Whether the file has any position (an indoor ride or a treadmill run has none: a track without a line).
    public var hasPositions: Bool {
        document.tracks.contains { $0.segments.contains { !$0.points.isEmpty } } || document.routes.contains { !$0.points.isEmpty }
    }
}

/// Figures a device computed for a whole activity or a lap: what its timer counted, not clock time between
/// points (a device paused by its timer or auto-pause knows its moving time; tempo#188).
public struct DeviceFigures: Sendable, Hashable {
    public var startTime: GPXTime?
    public var distanceMeters: Double?
    /// Time the device's timer ran (moving time, as the device counts it).
    public var timerSeconds: Double?
    /// From start to end, pauses included.
    public var elapsedSeconds: Double?
    public var ascentMeters: Double?
    public var descentMeters: Double?
    public var averageSpeedMetersPerSecond: Double?
    public var maxSpeedMetersPerSecond: Double?
    public var averageHeartRate: Double?
    public var maxHeartRate: Double?
    public var averageCadence: Double?
    public var averagePowerWatts: Double?
    public var maxPowerWatts: Double?
    public var calories: Double?

    public init(
        startTime: GPXTime? = nil, distanceMeters: Double? = nil, timerSeconds: Double? = nil, elapsedSeconds: Double? = nil,
        ascentMeters: Double? = nil, descentMeters: Double? = nil, averageSpeedMetersPerSecond: Double? = nil,
        maxSpeedMetersPerSecond: Double? = nil, averageHeartRate: Double? = nil, maxHeartRate: Double? = nil,
        averageCadence: Double? = nil, averagePowerWatts: Double? = nil, maxPowerWatts: Double? = nil, calories: Double? = nil
    ) {
        self.startTime = startTime
        self.distanceMeters = distanceMeters
        self.timerSeconds = timerSeconds
        self.elapsedSeconds = elapsedSeconds
        self.ascentMeters = ascentMeters
        self.descentMeters = descentMeters
        self.averageSpeedMetersPerSecond = averageSpeedMetersPerSecond
        self.maxSpeedMetersPerSecond = maxSpeedMetersPerSecond
        self.averageHeartRate = averageHeartRate
        self.maxHeartRate = maxHeartRate
        self.averageCadence = averageCadence
        self.averagePowerWatts = averagePowerWatts
        self.maxPowerWatts = maxPowerWatts
        self.calories = calories
    }

    /// Several sessions (a multisport file) as one: sums of what adds up, the largest of the maxima, averages
    /// weighted by timer time, the earliest start.
    public static func combined(_ parts: [DeviceFigures]) -> DeviceFigures? {
        guard let first = parts.first else { return nil }
        guard parts.count > 1 else { return first }
        func sum(_ path: KeyPath<DeviceFigures, Double?>) -> Double? {
            let values = parts.compactMap { $0[keyPath: path] }
            return values.isEmpty ? nil : values.reduce(0, +)
        }
        func maximum(_ path: KeyPath<DeviceFigures, Double?>) -> Double? { parts.compactMap { $0[keyPath: path] }.max() }
        func weighted(_ path: KeyPath<DeviceFigures, Double?>) -> Double? {
            var total = 0.0
            var weights = 0.0
            for part in parts {
                guard let value = part[keyPath: path], let weight = part.timerSeconds, weight > 0 else { continue }
                total += value * weight
                weights += weight
            }
            return weights > 0 ? total / weights : maximum(path)
        }
        var result = DeviceFigures(
            startTime: parts.compactMap(\.startTime).min { $0.timeIntervalSince1970 < $1.timeIntervalSince1970 },
            distanceMeters: sum(\.distanceMeters), timerSeconds: sum(\.timerSeconds), elapsedSeconds: sum(\.elapsedSeconds),
            ascentMeters: sum(\.ascentMeters), descentMeters: sum(\.descentMeters), maxSpeedMetersPerSecond: maximum(\.maxSpeedMetersPerSecond),
            averageHeartRate: weighted(\.averageHeartRate), maxHeartRate: maximum(\.maxHeartRate), averageCadence: weighted(\.averageCadence),
            averagePowerWatts: weighted(\.averagePowerWatts), maxPowerWatts: maximum(\.maxPowerWatts), calories: sum(\.calories))
        if let distance = result.distanceMeters, let timer = result.timerSeconds, timer > 0 {
            result.averageSpeedMetersPerSecond = distance / timer
        }
        return result
    }
}
