/// One split of a track: a kilometre or a mile (or what is left at the end), in order.
public struct Split: Sendable, Hashable, Codable {
    /// Position of the split, 0 for the first.
    public var index: Int
    /// Length, metres: the split length, or less for the partial last split.
    public var distanceMeters: Double
    /// Recorded time spent on it (stops included, pauses between segments not), seconds; nil when the
    /// track has no times.
    public var durationSeconds: Double?
    /// Smoothed elevation at its end minus at its start, metres; nil when the track has no elevations.
    public var elevationChangeMeters: Double?
    /// Elevation gained on it, metres, by the same count as the track's climb (`TrackStats.ascentMeters`):
    /// the splits' climbs add up to the track's. Nil when the track has no elevations (and in stats stored
    /// before it existed).
    public var climbMeters: Double?
    /// True for the last split when it is shorter than the split length.
    public var isPartial: Bool

    public init(
        index: Int, distanceMeters: Double, durationSeconds: Double?, elevationChangeMeters: Double?, climbMeters: Double? = nil,
        isPartial: Bool
    ) {
        self.index = index
        self.distanceMeters = distanceMeters
        self.durationSeconds = durationSeconds
        self.elevationChangeMeters = elevationChangeMeters
        self.climbMeters = climbMeters
        self.isPartial = isPartial
    }

    /// One kilometre, metres.
    public static let kilometerMeters: Double = 1000
    /// One international mile, metres.
    public static let mileMeters: Double = 1609.344
}
