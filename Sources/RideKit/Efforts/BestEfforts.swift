/// One best effort of a track: its value (unit by `EffortKey.measure`) and where in the track it lies.
public struct BestEffort: Sendable, Hashable, Codable {
    public var key: EffortKey
    /// Seconds for a fastest time and a moving time, metres for a distance or a climb, metres per second for a
    /// speed, watts or beats per minute for a mean.
    public var value: Double
    /// Where the effort starts and ends: metres along the track for a fastest time, seconds since the track's
    /// first time for a power or heart-rate window; nil for the totals, which are the whole track.
    public var start: Double?
    public var end: Double?

    public init(key: EffortKey, value: Double, start: Double? = nil, end: Double? = nil) {
        self.key = key
        self.value = value
        self.start = start
        self.end = end
    }
}

/// The best efforts of a track, one per key it has (a 10 km effort only on a track of 10 km or more, power only
/// with power), in `EffortKey` order.
///
/// Computed once per track by `TrackStatsAccumulator(measuringEfforts: true)`, from the same filtered distances
/// and moving time as the track's figures, and stored with it.
public struct BestEfforts: Sendable, Hashable, Codable {
    /// The version of the measurement (`TrackStats.effortsVersion`): raise it when a change of the measurement
    /// should reach the efforts already stored, and every store measures its tracks again in the background.
    public static let currentVersion = 1

    public var efforts: [BestEffort]

    public init(_ efforts: [BestEffort] = []) { self.efforts = efforts }

    /// The effort for `key`, if the track has one.
    public subscript(key: EffortKey) -> BestEffort? { efforts.first { $0.key == key } }

    /// The best of each key across two sets (the efforts of a file from those of its tracks).
    public func merged(with other: BestEfforts) -> BestEfforts {
        var best: [EffortKey: BestEffort] = [:]
        for effort in efforts + other.efforts {
            if let current = best[effort.key], !effort.key.isBetter(effort.value, than: current.value) { continue }
            best[effort.key] = effort
        }
        return BestEfforts(EffortKey.allCases.compactMap { best[$0] })
    }
}
