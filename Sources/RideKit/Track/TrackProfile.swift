/// Elevation and speed against distance, for the charts of a track page (DESIGN 2.3).
///
///     let profile = TrackProfile(track: track, maximumSamples: 500)
///     // profile.distanceMeters[i]: the distance at the end of sample i; elevation and speed over it
///
/// The track is cut into samples of equal distance (its length / `maximumSamples`, at least 1 m), and each
/// sample gives the mean elevation of its points and its speed: distance over the time it took. The gap
/// between segments (a pause) is neither distance nor time, as in `TrackStats`. A few hundred samples are
/// what a chart a few hundred pixels wide can show, whatever the track's size.
public struct TrackProfile: Sendable, Hashable {
    /// Distance along the track at the end of each sample, metres, increasing.
    public var distanceMeters: [Double]
    /// Mean elevation of each sample's points, metres; nil where none has one.
    public var elevationMeters: [Double?]
    /// Speed over each sample, metres per second; nil where its points have no times.
    public var speedMetersPerSecond: [Double?]
    /// Mean heart rate (beats per minute), cadence (revolutions per minute) and power (watts) of each sample's
    /// points; nil where none has one. All nil when the track has none: the page then shows no such chart.
    public var heartRate: [Double?]
    public var cadence: [Double?]
    public var powerWatts: [Double?]
    /// Where each sample ends (its last point): what a chart's cursor shows on the map.
    public var positions: [Coordinate]

    /// Whether any sample has a heart rate, a cadence, a power.
    public var hasHeartRate: Bool { heartRate.contains { $0 != nil } }
    public var hasCadence: Bool { cadence.contains { $0 != nil } }
    public var hasPower: Bool { powerWatts.contains { $0 != nil } }

    /// Samples of `track`, at most `maximumSamples` (the last one may be shorter).
    public init(track: Track, maximumSamples: Int = 500) {
        distanceMeters = []
        elevationMeters = []
        speedMetersPerSecond = []
        heartRate = []
        cadence = []
        powerWatts = []
        positions = []
        let segments = track.segments.map { $0.points.filter { $0.coordinate.isValid } }.filter { !$0.isEmpty }
        guard !segments.isEmpty else { return }
        var total = 0.0
        for points in segments {
            for (a, b) in zip(points, points.dropFirst()) { total += a.coordinate.distanceMeters(to: b.coordinate) }
        }
        let sampleMeters = max(1, total / Double(max(1, maximumSamples)))

        var along = 0.0
        var bucketMeters = 0.0, bucketSeconds = 0.0, elevationSum = 0.0, elevationCount = 0, bucketHasPoints = false
        var heartRateMean = Mean(), cadenceMean = Mean(), powerMean = Mean()
        var lastPosition = segments[0][0].coordinate
        func add(_ point: TrackPoint) {
            bucketHasPoints = true
            lastPosition = point.coordinate
            if let elevation = point.elevation, elevation.isFinite {
                elevationSum += elevation
                elevationCount += 1
            }
            heartRateMean.add(point.heartRate)
            cadenceMean.add(point.cadence)
            powerMean.add(point.powerWatts)
        }
        func emit() {
            distanceMeters.append(along)
            elevationMeters.append(elevationCount > 0 ? elevationSum / Double(elevationCount) : nil)
            speedMetersPerSecond.append(bucketSeconds > 0 ? bucketMeters / bucketSeconds : nil)
            heartRate.append(heartRateMean.take())
            cadence.append(cadenceMean.take())
            powerWatts.append(powerMean.take())
            positions.append(lastPosition)
            bucketMeters = 0
            bucketSeconds = 0
            elevationSum = 0
            elevationCount = 0
            bucketHasPoints = false
        }
        for points in segments {
            add(points[0])
            for (a, b) in zip(points, points.dropFirst()) {
                let meters = a.coordinate.distanceMeters(to: b.coordinate)
                along += meters
                bucketMeters += meters
                if let t0 = a.time, let t1 = b.time {
                    let seconds = t1.timeIntervalSince1970 - t0.timeIntervalSince1970
                    if seconds > 0 { bucketSeconds += seconds }
                }
                add(b)
                // A micrometre of slack: sums of steps land a hair short of round boundaries.
                if along >= Double(distanceMeters.count + 1) * sampleMeters - 1e-6 { emit() }
            }
        }
        if bucketHasPoints || distanceMeters.isEmpty { emit() }
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
