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

    /// Samples of `track`, at most `maximumSamples` (the last one may be shorter).
    public init(track: Track, maximumSamples: Int = 500) {
        distanceMeters = []
        elevationMeters = []
        speedMetersPerSecond = []
        let segments = track.segments.map { $0.points.filter { $0.coordinate.isValid } }.filter { !$0.isEmpty }
        guard !segments.isEmpty else { return }
        var total = 0.0
        for points in segments {
            for (a, b) in zip(points, points.dropFirst()) { total += a.coordinate.distanceMeters(to: b.coordinate) }
        }
        let sampleMeters = max(1, total / Double(max(1, maximumSamples)))

        var along = 0.0
        var bucketMeters = 0.0, bucketSeconds = 0.0, elevationSum = 0.0, elevationCount = 0, bucketHasPoints = false
        func add(_ point: TrackPoint) {
            bucketHasPoints = true
            if let elevation = point.elevation, elevation.isFinite {
                elevationSum += elevation
                elevationCount += 1
            }
        }
        func emit() {
            distanceMeters.append(along)
            elevationMeters.append(elevationCount > 0 ? elevationSum / Double(elevationCount) : nil)
            speedMetersPerSecond.append(bucketSeconds > 0 ? bucketMeters / bucketSeconds : nil)
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
