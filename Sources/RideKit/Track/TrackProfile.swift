/// Elevation and speed against distance, for the charts of a track page (DESIGN 2.3).
///
///     let profile = TrackProfile(track: track, activity: .ride, maximumSamples: 500)
///     // profile.distanceMeters[i]: the distance at the end of sample i; elevation and speed over it
///
/// Drawn from the same filtered fixes as the figures (`TrackStatsAccumulator`'s steps: bad fixes and altitude
/// spikes dropped, scatter smoothed, stops counted as standing): the last sample lies at the track's distance,
/// and no speed exceeds the track's maximum speed. The track is cut into samples of equal distance (its length
/// / `maximumSamples`, at least 1 m); each gives the mean elevation of its steps and the speed over at least
/// `speedWindowSeconds` of recorded time ending there (what the maximum speed is measured over too). The gap
/// between segments (a pause) is neither distance nor time. A few hundred samples are what a chart a few
/// hundred pixels wide can show, whatever the track's size.
public struct TrackProfile: Sendable, Hashable {
    /// Speeds are measured over at least this much recorded time: a fix a few metres off over one second is
    /// not a speed (the 407 km/h peak of a walk).
    public static let speedWindowSeconds = 10.0

    /// Distance along the track at the end of each sample, metres, increasing.
    public var distanceMeters: [Double]
    /// Mean elevation of each sample, metres; nil where none is known.
    public var elevationMeters: [Double?]
    /// Speed up to the end of each sample, metres per second; nil where the points have no times.
    public var speedMetersPerSecond: [Double?]
    /// Mean heart rate (beats per minute), cadence (revolutions per minute) and power (watts) of each sample's
    /// points; nil where none has one. All nil when the track has none: the page then shows no such chart.
    public var heartRate: [Double?]
    public var cadence: [Double?]
    public var powerWatts: [Double?]
    /// Where each sample ends: what a chart's cursor shows on the map.
    public var positions: [Coordinate]

    /// Whether any sample has a heart rate, a cadence, a power.
    public var hasHeartRate: Bool { heartRate.contains { $0 != nil } }
    public var hasCadence: Bool { cadence.contains { $0 != nil } }
    public var hasPower: Bool { powerWatts.contains { $0 != nil } }

    /// Samples of `track` measured as `activity` (its thresholds decide stops and bad fixes), at most
    /// `maximumSamples` (the last one may be shorter).
    public init(track: Track, activity: ActivityKind = .ride, maximumSamples: Int = 500) {
        distanceMeters = []
        elevationMeters = []
        speedMetersPerSecond = []
        heartRate = []
        cadence = []
        powerWatts = []
        positions = []
        var accumulator = TrackStatsAccumulator(activity: activity, tracing: true)
        accumulator.add(track)
        let (stats, steps) = accumulator.finishWithTrace()
        guard !steps.isEmpty else { return }
        // The points in order, walked once beside the steps: not a second copy of them all (100,000 points of a huge
        // track's page were tens of MiB more).
        var points = track.segments.lazy.flatMap { $0.points.lazy.filter { $0.coordinate.isValid } }.makeIterator()
        let sampleMeters = max(1, stats.distanceMeters / Double(max(1, maximumSamples)))
        let maximumSpeed = stats.maxSpeedMetersPerSecond

        var elevationMean = Mean(), heartRateMean = Mean(), cadenceMean = Mean(), powerMean = Mean()
        var nextPoint = 0
        var windowStart = 0
        var bucketHasSteps = false
        func emit(at index: Int) {
            let step = steps[index]
            distanceMeters.append(step.distanceMeters)
            elevationMeters.append(elevationMean.take())
            heartRate.append(heartRateMean.take())
            cadence.append(cadenceMean.take())
            powerWatts.append(powerMean.take())
            positions.append(step.coordinate)
            speedMetersPerSecond.append(speed(endingAt: index))
            bucketHasSteps = false
        }
        /// Speed over the steps back to `speedWindowSeconds` before this one (or the first step), no faster than
        /// the track's maximum; nil without times, or when the figures report none (too few times).
        func speed(endingAt index: Int) -> Double? {
            let end = steps[index]
            guard end.isTimed, maximumSpeed > 0 else { return nil }
            while windowStart + 1 < index, end.clockSeconds - steps[windowStart + 1].clockSeconds >= Self.speedWindowSeconds {
                windowStart += 1
            }
            let start = steps[windowStart]
            let seconds = end.clockSeconds - start.clockSeconds
            guard seconds > 0 else { return nil }
            let value = (end.distanceMeters - start.distanceMeters) / seconds
            return min(value, maximumSpeed)
        }
        for (index, step) in steps.enumerated() {
            bucketHasSteps = true
            elevationMean.add(step.elevationMeters)
            while nextPoint <= step.pointIndex, let point = points.next() {
                heartRateMean.add(point.heartRate)
                cadenceMean.add(point.cadence)
                powerMean.add(point.powerWatts)
                nextPoint += 1
            }
            // A micrometre of slack: sums of steps land a hair short of round boundaries.
            if step.distanceMeters >= Double(distanceMeters.count + 1) * sampleMeters - 1e-6 { emit(at: index) }
        }
        if bucketHasSteps || distanceMeters.isEmpty { emit(at: steps.count - 1) }
    }
}

/// The mean of the finite values added since it was last taken.
private struct Mean {
    private var sum = 0.0
    private var count = 0

    mutating func add(_ value: Double?) {
        guard let value, value.isFinite else { return }
        sum += value
        count += 1
    }

    /// The mean (nil when nothing was added), and a fresh start.
    mutating func take() -> Double? {
        defer { sum = 0; count = 0 }
        return count > 0 ? sum / Double(count) : nil
    }
}
