/// What one batch of fixes changed, and what the view shows next (DESIGN 2.1, 6).
public struct RecordingUpdate: Sendable, Hashable {
    /// The recorder's state after the batch.
    public var state: RecorderState
    /// Fixes stored by this batch, in sequence order, with their segments: what a store must keep.
    public var accepted: [AcceptedFix]
    /// `accepted.count`.
    public var storedCount: Int { accepted.count }
    /// Fixes whose sequence number was already stored (a batch sent again, or an older one sent late).
    public var duplicateCount: Int
    /// Fixes acknowledged but not stored: taken while paused, or too inaccurate to draw.
    public var skippedCount: Int
    /// The highest sequence number acknowledged: the client may forget every fix up to it.
    public var lastSequence: Int64?
    /// The figures of the whole recording so far.
    public var stats: TrackStats
    /// Speed now, metres per second: the device's own when it sends one, else over the last seconds.
    public var currentSpeedMetersPerSecond: Double?
    /// Where the map goes: centred on the batch's last fix, 300 m around; nil for an empty batch.
    public var camera: CameraRegion?
    /// Pins dropped by this batch.
    public var breadcrumbs: [Breadcrumb]
    /// The line to draw: per segment touched, the new points.
    public var path: [PathExtension]

    public init(
        state: RecorderState, accepted: [AcceptedFix] = [], duplicateCount: Int = 0, skippedCount: Int = 0, lastSequence: Int64?,
        stats: TrackStats, currentSpeedMetersPerSecond: Double? = nil, camera: CameraRegion? = nil,
        breadcrumbs: [Breadcrumb] = [], path: [PathExtension] = []
    ) {
        self.state = state
        self.accepted = accepted
        self.duplicateCount = duplicateCount
        self.skippedCount = skippedCount
        self.lastSequence = lastSequence
        self.stats = stats
        self.currentSpeedMetersPerSecond = currentSpeedMetersPerSecond
        self.camera = camera
        self.breadcrumbs = breadcrumbs
        self.path = path
    }
}

/// New points of one segment of the recorded line.
///
/// The polyline to add runs from `from` (the segment's previous last point, nil when the segment starts in
/// this batch) through `coordinates`: drawn that way, batch after batch, the line has no gaps within a
/// segment and none across a pause.
public struct PathExtension: Sendable, Hashable {
    /// Index of the segment in the recording, from 0; Resume after Pause starts the next.
    public var segmentIndex: Int
    /// The segment's last point before this batch.
    public var from: Coordinate?
    /// The points this batch added to the segment, in order.
    public var coordinates: [Coordinate]

    public init(segmentIndex: Int, from: Coordinate?, coordinates: [Coordinate]) {
        self.segmentIndex = segmentIndex
        self.from = from
        self.coordinates = coordinates
    }
}

/// A fix the recorder stored, and the segment it went to (0 from Start, one more after each Resume that
/// was followed by a fix).
public struct AcceptedFix: Sendable, Hashable {
    public var segmentIndex: Int
    public var fix: RecordingFix

    public init(segmentIndex: Int, fix: RecordingFix) {
        self.segmentIndex = segmentIndex
        self.fix = fix
    }
}
