/// Records a ride from batches of fixes: the state machine of Start / Pause / Resume / Stop, the track,
/// live stats, breadcrumbs, the camera region and the line to draw (DESIGN 2.1).
///
///     var recorder = Recorder()
///     try recorder.start()
///     let update = try recorder.append([fix1, fix2, fix3])   // stats, camera, breadcrumbs, path
///     try recorder.pause(); try recorder.resume()           // the next fix starts a new segment
///     let track = try recorder.stop()
///
/// Batches are idempotent: a fix is stored only if its sequence number is higher than every one stored
/// before, so a batch sent twice, or an old batch arriving after a newer one, stores nothing. Clients send
/// their queue in order, so nothing is lost by this rule; within a batch, fixes are taken in sequence order.
///
/// A value type: a server applies a batch to a copy and keeps it only once the fixes are durably stored.
public struct Recorder: Sendable {
    /// Options fixed when the recording starts.
    public struct Options: Sendable, Hashable {
        /// Picks the stats thresholds (stopped speed, plausible speed).
        public var activity: ActivityKind
        /// Breadcrumb pins on or off (the brief: "can be turned off").
        public var breadcrumbsEnabled: Bool
        /// Metres between breadcrumbs; 50 by the brief.
        public var breadcrumbSpacingMeters: Double
        /// Radius of the camera region; 300 m by the brief.
        public var cameraRadiusMeters: Double
        /// Units of the breadcrumbs' subtitles.
        public var units: UnitSystem
        /// Fixes less accurate than this (metres) are acknowledged but not drawn or counted: 100 m, because a
        /// browser's first answers often come from Wi-Fi or cell towers, hundreds of metres off, and would
        /// draw spikes; GPS fixes under the sky are 3–20 m.
        public var maximumHorizontalAccuracyMeters: Double

        public init(
            activity: ActivityKind = .ride, breadcrumbsEnabled: Bool = true,
            breadcrumbSpacingMeters: Double = BreadcrumbTrail.defaultSpacingMeters,
            cameraRadiusMeters: Double = CameraRegion.recordingRadiusMeters, units: UnitSystem = .metric,
            maximumHorizontalAccuracyMeters: Double = 100
        ) {
            self.activity = activity
            self.breadcrumbsEnabled = breadcrumbsEnabled
            self.breadcrumbSpacingMeters = breadcrumbSpacingMeters
            self.cameraRadiusMeters = cameraRadiusMeters
            self.units = units
            self.maximumHorizontalAccuracyMeters = maximumHorizontalAccuracyMeters
        }
    }

    /// The most fixes one batch may hold: an hour at one fix a second, well over what a phone queues
    /// while briefly offline, and a bound on the work one request can cause.
    public static let maximumBatchSize = 3_600
    /// Current speed is measured over the fixes of the last 10 seconds when the device sends none.
    static let currentSpeedWindowSeconds = 10.0

    /// The options the recording started with.
    public let options: Options
    /// Where the recording is.
    public private(set) var state: RecorderState = .idle
    /// The highest sequence number acknowledged (stored or skipped), nil before the first fix.
    public private(set) var lastSequence: Int64?
    /// The recorded track so far: one segment per stretch between Start/Resume and Pause/Stop
    /// (segments without points are not kept).
    public private(set) var segments: [TrackSegment] = []
    /// The breadcrumbs dropped so far.
    public var breadcrumbs: [Breadcrumb] { trail.pins }

    private var accumulator: TrackStatsAccumulator
    private var trail: BreadcrumbTrail
    /// True when the next stored fix starts a new segment (after Start and after Resume).
    private var segmentPending = true
    /// Fixes of the last seconds, for the current speed.
    private var recent: [(coordinate: Coordinate, seconds: Double)] = []
    private var lastDeviceSpeed: Double?
    private var lastStoredSeconds: Double?

    public init(options: Options = Options()) {
        self.options = options
        accumulator = TrackStatsAccumulator(activity: options.activity)
        trail = BreadcrumbTrail(spacingMeters: options.breadcrumbSpacingMeters, units: options.units)
    }

    // MARK: - Commands

    /// idle → recording.
    public mutating func start() throws(RecordingError) {
        guard state == .idle else { throw .invalidTransition(command: "start", state: state) }
        state = .recording
        segmentPending = true
    }

    /// recording → paused; pausing a paused recording changes nothing (a repeated request).
    public mutating func pause() throws(RecordingError) {
        switch state {
        case .recording: state = .paused
        case .paused: return
        case .idle, .stopped: throw .invalidTransition(command: "pause", state: state)
        }
    }

    /// paused → recording, and the next fix starts a new segment; resuming a recording one changes nothing.
    public mutating func resume() throws(RecordingError) {
        switch state {
        case .paused:
            state = .recording
            segmentPending = true
            recent.removeAll()
            lastDeviceSpeed = nil
        case .recording: return
        case .idle, .stopped: throw .invalidTransition(command: "resume", state: state)
        }
    }

    /// recording or paused → stopped; returns the finished track. Stopping a stopped recording returns it again.
    @discardableResult
    public mutating func stop() throws(RecordingError) -> Track {
        guard state != .idle else { throw .invalidTransition(command: "stop", state: state) }
        state = .stopped
        return track
    }

    /// Raises the highest acknowledged sequence number to `sequence` without storing anything: for
    /// rebuilding a recorder from stored fixes, where fixes skipped while paused were acknowledged too.
    public mutating func acknowledge(through sequence: Int64) {
        if lastSequence.map({ sequence > $0 }) ?? true { lastSequence = sequence }
    }

    /// The recorded track so far.
    public var track: Track { Track(type: options.activity.rawValue, segments: segments) }

    /// Figures of everything recorded so far.
    public var stats: TrackStats { accumulator.finish() }

    // MARK: - Fixes

    /// Applies a batch of fixes. Validates the whole batch first: if any fix is invalid, or the state takes
    /// no fixes, it throws and nothing changes.
    public mutating func append(_ batch: [RecordingFix]) throws(RecordingError) -> RecordingUpdate {
        guard batch.count <= Self.maximumBatchSize else {
            throw .batchTooLarge(count: batch.count, limit: Self.maximumBatchSize)
        }
        for fix in batch { try fix.validate() }
        let ordered = batch.sorted { $0.sequence < $1.sequence }
        let fresh = ordered.filter { fix in lastSequence.map { fix.sequence > $0 } ?? true }
        switch state {
        case .recording, .paused: break
        case .idle, .stopped:
            // A replay of fixes already acknowledged is still answered (the client may have missed the answer).
            if !fresh.isEmpty { throw .invalidTransition(command: "add fixes to", state: state) }
        }

        var update = RecordingUpdate(state: state, lastSequence: lastSequence, stats: TrackStats(activity: options.activity))
        update.duplicateCount = batch.count - fresh.count
        var extensions: [Int: PathExtension] = [:]
        var previousSequence: Int64?
        for fix in fresh {
            // Two fixes with one number in a batch: the first counts.
            if fix.sequence == previousSequence {
                update.duplicateCount += 1
                continue
            }
            previousSequence = fix.sequence
            lastSequence = fix.sequence
            let accurate = fix.horizontalAccuracyMeters.map { $0 <= options.maximumHorizontalAccuracyMeters } ?? true
            guard state == .recording, accurate else {
                update.skippedCount += 1
                continue
            }
            store(fix, into: &update, extensions: &extensions)
        }
        update.state = state
        update.lastSequence = lastSequence
        update.path = extensions.keys.sorted().compactMap { extensions[$0] }
        update.stats = accumulator.finish()
        update.currentSpeedMetersPerSecond = currentSpeed
        // The brief: centre on the last fix of each batch, whether or not it was stored.
        if let last = ordered.last {
            update.camera = CameraRegion(center: last.coordinate, radiusMeters: options.cameraRadiusMeters)
        }
        return update
    }

    private mutating func store(_ fix: RecordingFix, into update: inout RecordingUpdate, extensions: inout [Int: PathExtension]) {
        if segmentPending {
            segmentPending = false
            segments.append(TrackSegment())
            accumulator.beginSegment()
        }
        let index = segments.count - 1
        if extensions[index] == nil {
            extensions[index] = PathExtension(segmentIndex: index, from: segments[index].points.last?.coordinate, coordinates: [])
        }
        extensions[index]!.coordinates.append(fix.coordinate)
        segments[index].points.append(fix.trackPoint)
        accumulator.add(fix.trackPoint)
        update.accepted.append(AcceptedFix(segmentIndex: index, fix: fix))

        let seconds = fix.time?.timeIntervalSince1970
        if let seconds {
            recent.append((fix.coordinate, seconds))
            recent.removeAll { seconds - $0.seconds > Self.currentSpeedWindowSeconds }
            lastStoredSeconds = seconds
        }
        lastDeviceSpeed = fix.speedMetersPerSecond

        if options.breadcrumbsEnabled && trail.isDue(at: fix.coordinate) {
            // The distance so far, to this fix: the live figure (a copy is finished, the recording goes on).
            let distance = trail.pins.isEmpty ? 0 : accumulator.finish().distanceMeters
            if let pin = trail.add(fix.coordinate, sequence: fix.sequence, distanceMeters: distance) {
                update.breadcrumbs.append(pin)
            }
        }
    }

    /// The device's speed when the last fix carried one, else the path over the last 10 s divided by its time.
    private var currentSpeed: Double? {
        if state != .recording { return nil }
        if let lastDeviceSpeed { return lastDeviceSpeed }
        guard let first = recent.first, let last = recent.last, last.seconds > first.seconds else { return nil }
        var meters = 0.0
        for index in recent.indices.dropFirst() {
            meters += recent[index - 1].coordinate.distanceMeters(to: recent[index].coordinate)
        }
        return meters / (last.seconds - first.seconds)
    }
}
