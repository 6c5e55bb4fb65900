/// The laps of a recorded track, cut at the times the rider pressed Lap, with each lap's figures measured from its
/// points as the track's own are (`TrackStatsAccumulator`): distance, moving and elapsed time, climb, average and
/// maximum speed (pace for runs is distance over moving time). Shown as a device's laps are.
///
/// A mark is the time of a fix (milliseconds since 1970): that fix ends one lap and starts the next, so the laps join without a gap. Marks
/// before the first timed point or after the last make no empty lap; N marks inside the ride make N + 1 laps.
/// Linear in the points (each is read once, plus the boundary fix twice).
///
///     RecordedLaps.figures(of: track, marksMilliseconds: [fifthMinute], activity: .ride).count  // 2
public enum RecordedLaps {
    public static func figures(of track: Track, marksMilliseconds marks: [Int64], activity: ActivityKind) -> [DeviceFigures] {
        let boundaries = marks.sorted()
        var laps: [[TrackSegment]] = [[]]
        var next = 0                  // the first boundary not yet passed
        var lastInLap: TrackPoint?    // the lap's latest point, which also starts the next lap in the same segment
        for segment in track.segments {
            laps[laps.count - 1].append(TrackSegment())
            lastInLap = nil
            for point in segment.points {
                if let time = point.time {
                    let milliseconds = time.secondsSince1970 * 1000 + Int64(time.nanoseconds / 1_000_000)
                    var crossed = false
                    while next < boundaries.count, milliseconds > boundaries[next] {
                        next += 1
                        crossed = true
                    }
                    if crossed, laps[laps.count - 1].contains(where: { !$0.points.isEmpty }) {
                        laps.append([TrackSegment(points: lastInLap.map { [$0] } ?? [])])
                    }
                }
                laps[laps.count - 1][laps[laps.count - 1].count - 1].points.append(point)
                lastInLap = point
            }
        }
        return laps.compactMap { segments -> DeviceFigures? in
            let lap = Track(segments: segments.filter { !$0.points.isEmpty })
            guard !lap.segments.isEmpty else { return nil }
            let stats = lap.stats(activity: activity)
            return DeviceFigures(
                startTime: stats.startTime, distanceMeters: stats.distanceMeters, timerSeconds: stats.movingSeconds,
                elapsedSeconds: stats.elapsedSeconds, ascentMeters: stats.ascentMeters, descentMeters: stats.descentMeters,
                averageSpeedMetersPerSecond: stats.movingSeconds > 0 ? stats.distanceMeters / stats.movingSeconds : nil,
                maxSpeedMetersPerSecond: stats.maxSpeedMetersPerSecond)
        }
    }
}
