/// What kind of activity a track records; it picks the thresholds that separate moving from stopped and
/// real fixes from bad ones.
public enum ActivityKind: String, CaseIterable, Sendable, Codable {
    case ride, run, walk

    /// Below this speed, averaged over at least `TrackStatsAccumulator.noiseRadiusMeters` of travel, time
    /// counts as stopped rather than moving.
    ///
    /// - ride, 1.0 m/s (3.6 km/h): nobody balances a bicycle that slowly, and it is still under the pace of a
    ///   rider pushing the bike uphill (≈ 1.1–1.4 m/s), which counts as moving.
    /// - run, 0.5 m/s (1.8 km/h): well under a walking break (≈ 1.2–1.5 m/s), which counts as moving in a run,
    ///   and over the shuffle of waiting at a crossing.
    /// - walk, 0.3 m/s (≈ 1.1 km/h, gpxpy's default of 1 km/h rounded up): under the slowest stroll or steep
    ///   hike, and over the drift of a phone lying still once jitter is filtered.
    public var stoppedSpeedMetersPerSecond: Double {
        switch self {
        case .ride: return 1.0
        case .run: return 0.5
        case .walk: return 0.3
        }
    }

    /// A single fix that implies more than this speed both to reach it and to leave it, while its neighbours
    /// are consistent with each other, is a bad fix and is ignored; and no faster speed is reported as the
    /// maximum (a jump of kilometres in seconds, as after a tunnel, is a data error).
    ///
    /// - ride, 40 m/s (144 km/h): over the fastest descents amateurs ride (≈ 25–30 m/s).
    /// - run, 12.5 m/s: the top speed of the fastest sprinter ever timed.
    /// - walk, 8 m/s: a walk may include a run for the bus, not much more.
    public var maxPlausibleSpeedMetersPerSecond: Double {
        switch self {
        case .ride: return 40
        case .run: return 12.5
        case .walk: return 8
        }
    }
}
