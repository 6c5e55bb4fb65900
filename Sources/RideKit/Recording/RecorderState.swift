/// Where a recording is in Start / Pause / Resume / Stop.
///
///     idle ──start──▶ recording ──pause──▶ paused ──resume──▶ recording (a new segment)
///                         └──────────stop───────┴──────────▶ stopped
public enum RecorderState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Created, not started: fixes are refused.
    case idle
    /// Fixes are stored and extend the track.
    case recording
    /// Fixes are acknowledged but not stored; Resume starts a new segment.
    case paused
    /// Finished: the track is final, new fixes are refused.
    case stopped
}
