/// What a device measured for one track, kept with it: its totals and its laps (`DeviceActivity.totals`,
/// `.laps`). Stored as JSON beside bikeride's own figures and shown next to them, never mixed into them —
/// except for a track without a single position (an indoor ride, a treadmill run), whose only figures are the
/// device's (`TrackStats.fillingIn(from:)`).
public struct DeviceMeasurements: Sendable, Hashable, Codable {
    public var totals: DeviceFigures?
    public var laps: [DeviceFigures]
    /// A file without positions: the best efforts of the device's distance, power and heart rate, the fastest
    /// times over the distances of every kind (`TrackStats.fillingIn(from:)` keeps the track kind's).
    public var efforts: BestEfforts?

    public init(totals: DeviceFigures?, laps: [DeviceFigures], efforts: BestEfforts? = nil) {
        self.totals = totals
        self.laps = laps
        self.efforts = efforts
    }

    /// Nil when the device said nothing worth keeping (no totals, no laps, no efforts).
    public init?(_ activity: DeviceActivity) {
        guard activity.totals != nil || !activity.laps.isEmpty || activity.efforts != nil else { return nil }
        self.init(totals: activity.totals ?? DeviceFigures.combined(activity.laps), laps: activity.laps, efforts: activity.efforts)
    }
}

extension DeviceFigures: Codable {
    private enum CodingKeys: String, CodingKey {
        case startTime, distanceMeters, timerSeconds, elapsedSeconds, ascentMeters, descentMeters, averageSpeedMetersPerSecond,
            maxSpeedMetersPerSecond, averageHeartRate, maxHeartRate, averageCadence, averagePowerWatts, maxPowerWatts, calories
    }

    /// Absent keys for what the device did not say; the start as RFC 3339 text with the file's offset kept.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(startTime?.rfc3339, forKey: .startTime)
        let figures: [(CodingKeys, Double?)] = [
            (.distanceMeters, distanceMeters), (.timerSeconds, timerSeconds), (.elapsedSeconds, elapsedSeconds),
            (.ascentMeters, ascentMeters), (.descentMeters, descentMeters), (.averageSpeedMetersPerSecond, averageSpeedMetersPerSecond),
            (.maxSpeedMetersPerSecond, maxSpeedMetersPerSecond), (.averageHeartRate, averageHeartRate), (.maxHeartRate, maxHeartRate),
            (.averageCadence, averageCadence), (.averagePowerWatts, averagePowerWatts), (.maxPowerWatts, maxPowerWatts),
            (.calories, calories),
        ]
        // JSON has no NaN or infinity: a figure that is not finite is one the device did not give.
        for (key, value) in figures { if let value, value.isFinite { try container.encode(value, forKey: key) } }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func figure(_ key: CodingKeys) throws -> Double? { try container.decodeIfPresent(Double.self, forKey: key) }
        self.init(
            distanceMeters: try figure(.distanceMeters), timerSeconds: try figure(.timerSeconds), elapsedSeconds: try figure(.elapsedSeconds),
            ascentMeters: try figure(.ascentMeters), descentMeters: try figure(.descentMeters),
            averageSpeedMetersPerSecond: try figure(.averageSpeedMetersPerSecond), maxSpeedMetersPerSecond: try figure(.maxSpeedMetersPerSecond),
            averageHeartRate: try figure(.averageHeartRate), maxHeartRate: try figure(.maxHeartRate),
            averageCadence: try figure(.averageCadence), averagePowerWatts: try figure(.averagePowerWatts),
            maxPowerWatts: try figure(.maxPowerWatts), calories: try figure(.calories))
        if let text = try container.decodeIfPresent(String.self, forKey: .startTime) {
            do {
                startTime = try GPXTime(parsing: text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: .startTime, in: container, debugDescription: error.description)
            }
        }
    }
}

extension TrackStats {
    /// These figures, or for a track without a single position (an indoor ride, a treadmill run, a watch without
    /// GPS) the device's: its distance, its timer time as moving time, its elapsed time, climb, top speed and
    /// start, so that such a track shows what was done in the list and adds to the totals. A track with positions
    /// keeps its own figures: the device's are shown beside them, not instead.
    public func fillingIn(from device: DeviceMeasurements?) -> TrackStats {
        guard pointCount == 0, let device else { return self }
        var stats = fillingIn(from: device.totals)
        guard let measured = device.efforts else { return stats }
        // The fastest times of this kind's distances, the power and heart rate; the totals from the figures.
        let distances = Set(EffortKey.fastestDistances(for: stats.activity))
        var efforts = measured.efforts.filter { $0.key.distanceMeters == nil ? $0.key.windowSeconds != nil : distances.contains($0.key) }
        if stats.distanceMeters > 0 { efforts.append(BestEffort(key: .longestDistance, value: stats.distanceMeters)) }
        if stats.ascentMeters > 0 { efforts.append(BestEffort(key: .mostClimb, value: stats.ascentMeters)) }
        if stats.movingSeconds > 0 { efforts.append(BestEffort(key: .longestMovingTime, value: stats.movingSeconds)) }
        if stats.maxSpeedMetersPerSecond > 0 { efforts.append(BestEffort(key: .topSpeed, value: stats.maxSpeedMetersPerSecond)) }
        stats.efforts = BestEfforts(EffortKey.allCases.flatMap { key in efforts.filter { $0.key == key } })
        return stats
    }

    /// `fillingIn(from:)` with the device's totals only.
    public func fillingIn(from device: DeviceFigures?) -> TrackStats {
        guard pointCount == 0, let device else { return self }
        var stats = self
        func usable(_ value: Double?) -> Double? { value.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } }
        stats.distanceMeters = usable(device.distanceMeters) ?? 0
        stats.movingDistanceMeters = stats.distanceMeters
        stats.movingSeconds = usable(device.timerSeconds) ?? usable(device.elapsedSeconds) ?? 0
        stats.elapsedSeconds = max(usable(device.elapsedSeconds) ?? stats.movingSeconds, stats.movingSeconds)
        stats.stoppedSeconds = stats.elapsedSeconds - stats.movingSeconds
        stats.ascentMeters = usable(device.ascentMeters) ?? 0
        stats.descentMeters = usable(device.descentMeters) ?? 0
        stats.maxSpeedMetersPerSecond = usable(device.maxSpeedMetersPerSecond) ?? 0
        if let start = device.startTime {
            stats.startTime = start
            // Whole seconds are all a device's elapsed time needs; beyond any real ride it is left out.
            if stats.elapsedSeconds < 1e9 {
                stats.endTime = GPXTime(
                    secondsSince1970: start.secondsSince1970 + Int64(stats.elapsedSeconds.rounded()), offset: start.offset)
            }
        }
        return stats
    }
}
