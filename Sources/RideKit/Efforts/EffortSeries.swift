/// What `TrackStatsAccumulator` keeps of a track for its best efforts: the cumulative distance and moving time
/// at each timed step, and the power and heart rate the device recorded with their times.
///
/// Linear memory (three numbers a step, two a sensor sample): a best effort may span the whole track.
struct EffortSeries: Sendable {
    /// Distance at each sample, metres: the track's distance less what was never inside a timed interval (the way
    /// before a segment's first time, the gaps between segments), so that on a track timed throughout the last
    /// sample's is exactly the track's distance.
    private(set) var meters: [Double] = []
    /// Moving seconds at each sample: a stop or a pause adds none.
    private(set) var movingSeconds: [Double] = []
    /// The track's distance at each sample (where an effort lies along the track).
    private(set) var alongMeters: [Double] = []
    /// Distance left out so far.
    private var excludedMeters = 0.0
    /// The track's distance at the last sample (or at the start of the current timed stretch).
    private var lastAlongMeters: Double?

    var power = SensorSeries()
    var heartRate = SensorSeries()

    /// A segment's first time: the way until here is not part of any effort.
    mutating func beginTimedStretch(alongMeters: Double) {
        if let last = lastAlongMeters { excludedMeters += alongMeters - last } else { excludedMeters = alongMeters }
        lastAlongMeters = alongMeters
        if alongMeters - excludedMeters != meters.last {
            appendSample(alongMeters: alongMeters, movingSeconds: movingSeconds.last ?? 0)
        }
    }

    /// A timed interval ended: the distance and moving time so far.
    mutating func addInterval(alongMeters: Double, movingSeconds moving: Double) {
        if lastAlongMeters == nil { beginTimedStretch(alongMeters: 0) }
        appendSample(alongMeters: alongMeters, movingSeconds: moving)
        lastAlongMeters = alongMeters
    }

    private mutating func appendSample(alongMeters: Double, movingSeconds moving: Double) {
        meters.append(alongMeters - excludedMeters)
        movingSeconds.append(moving)
        self.alongMeters.append(alongMeters)
    }

    /// The best efforts of the series, with the totals of `stats`.
    func efforts(activity: ActivityKind, stats: TrackStats, timed: Bool) -> BestEfforts {
        var efforts: [BestEffort] = []
        if timed {
            for key in EffortKey.fastestDistances(for: activity) {
                guard let target = key.distanceMeters,
                    let stretch = EffortWindows.fastest(targetMeters: target, meters: meters, seconds: movingSeconds),
                    stretch.seconds > 0
                else { continue }
                efforts.append(BestEffort(key: key, value: stretch.seconds, start: along(stretch.startMeters), end: along(stretch.endMeters)))
            }
        }
        if stats.distanceMeters > 0 { efforts.append(BestEffort(key: .longestDistance, value: stats.distanceMeters)) }
        if stats.ascentMeters > 0 { efforts.append(BestEffort(key: .mostClimb, value: stats.ascentMeters)) }
        if stats.movingSeconds > 0 { efforts.append(BestEffort(key: .longestMovingTime, value: stats.movingSeconds)) }
        if stats.maxSpeedMetersPerSecond > 0 { efforts.append(BestEffort(key: .topSpeed, value: stats.maxSpeedMetersPerSecond)) }
        efforts += power.efforts(keys: EffortKey.powerKeys)
        efforts += heartRate.efforts(keys: EffortKey.heartRateKeys)
        return BestEfforts(efforts)
    }

    /// The track's distance at a point of the effort axis (the effort axis only leaves out gaps, so the offset of
    /// the nearest sample at or before it carries over).
    private func along(_ effortMeters: Double) -> Double {
        var low = 0, high = meters.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if meters[middle] <= effortMeters { low = middle } else { high = middle - 1 }
        }
        return alongMeters[low] + (effortMeters - meters[low])
    }
}

/// Samples of one sensor value (power, heart rate) with their times, broken into runs at segments and gaps.
struct SensorSeries: Sendable {
    /// Samples further apart than this start a new run: the sensor dropped out, and a value held over the gap
    /// would be made up.
    static let maximumGapSeconds = 30.0

    private(set) var times: [Double] = []
    private(set) var values: [Double] = []
    private(set) var runStarts: [Int] = []
    private var newRun = true
    /// The first time of the track: window offsets count from it.
    var origin: Double?

    mutating func beginSegment() { newRun = true }

    mutating func add(_ value: Double, time: Double) {
        guard value.isFinite, value >= 0, time.isFinite else { return }
        if let last = times.last, !newRun {
            guard time > last else { return }
            if time - last > Self.maximumGapSeconds { newRun = true }
        }
        if newRun {
            runStarts.append(times.count)
            newRun = false
        }
        times.append(time)
        values.append(value)
    }

    func efforts(keys: [EffortKey]) -> [BestEffort] {
        guard !times.isEmpty else { return [] }
        let origin = origin ?? times[0]
        return keys.compactMap { key in
            guard let window = key.windowSeconds,
                let best = EffortWindows.bestMean(windowSeconds: window, times: times, values: values, runStarts: runStarts)
            else { return nil }
            return BestEffort(key: key, value: best.mean, start: best.startSeconds - origin, end: best.endSeconds - origin)
        }
    }
}
