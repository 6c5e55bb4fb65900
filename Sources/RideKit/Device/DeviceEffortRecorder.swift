/// Best efforts of a device's file without positions (an indoor trainer, a treadmill, a watch without GPS), from
/// what the device recorded instead: its cumulative `distance` and the time of each record, its power and heart
/// rate. Fed record by record as the file is read; one pass, linear memory (`EffortSeries`).
///
/// The distance axis only grows: a device that starts its distance again (a second session) adds nothing for that
/// record. Moving time runs between the records of one stretch of the device's timer; a stop and a start, or a gap
/// longer than `FITReader.segmentGapSeconds`, begin a new stretch (`beginStretch()`), so that no effort spans a
/// pause's clock time.
struct DeviceEffortRecorder: Sendable {
    private var series = EffortSeries()
    private var alongMeters = 0.0
    private var movingSeconds = 0.0
    private var lastTime: Int64?
    private var lastDistance: Double?
    private var newStretch = true
    private var measuredDistance = false

    /// The next record begins a new stretch of the timer.
    mutating func beginStretch() { newStretch = true }

    /// One record: its time (seconds), and what it carries.
    mutating func add(time: Int64?, distanceMeters: Double?, powerWatts: Double?, heartRate: Double?) {
        guard let time else { return }
        if newStretch {
            series.power.beginSegment()
            series.heartRate.beginSegment()
        }
        if let distance = distanceMeters, distance.isFinite, distance >= 0 {
            if let last = lastDistance, distance >= last { alongMeters += distance - last }
            if newStretch || lastTime == nil {
                series.beginTimedStretch(alongMeters: alongMeters)
            } else if let last = lastTime, time > last {
                movingSeconds += Double(time - last)
                series.addInterval(alongMeters: alongMeters, movingSeconds: movingSeconds)
                measuredDistance = true
            }
            lastDistance = distance
            lastTime = time
            newStretch = false
        }
        if let powerWatts { series.power.add(powerWatts, time: Double(time)) }
        if let heartRate { series.heartRate.add(heartRate, time: Double(time)) }
        if distanceMeters == nil { newStretch = false }
    }

    /// The fastest times over the distances of every activity (the track's kind, which the rider may change,
    /// picks its own: `TrackStats.fillingIn(from:)`), and the best mean power and heart rate; nil when the records
    /// held none of it. Totals (longest distance, moving time …) come from the device's own totals instead.
    func efforts() -> BestEfforts? {
        let none = TrackStats()
        var efforts = series.efforts(activity: .ride, stats: none, timed: measuredDistance)
        efforts = efforts.merged(with: series.efforts(activity: .run, stats: none, timed: measuredDistance))
        return efforts.efforts.isEmpty ? nil : efforts
    }
}
