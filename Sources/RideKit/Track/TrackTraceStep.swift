/// One step of distance as `TrackStatsAccumulator` counts it (made only when tracing): charts drawn from these
/// agree with the figures, because they are the same filtered, smoothed fixes.
public struct TrackTraceStep: Sendable, Hashable {
    /// Distance along the track at the step's end, metres.
    public var distanceMeters: Double
    /// Recorded time at the step's end, seconds from the track's first time (pauses between segments excluded).
    public var clockSeconds: Double
    /// Whether the segment had a time by then (else `clockSeconds` says nothing).
    public var isTimed: Bool
    /// Elevation there, spikes dropped (smoothed for GPS altitude); nil when none is known yet.
    public var elevationMeters: Double?
    /// Where the step ends (smoothed).
    public var coordinate: Coordinate
    /// The index of the point it ends at, among the points added with a valid position.
    public var pointIndex: Int
}
