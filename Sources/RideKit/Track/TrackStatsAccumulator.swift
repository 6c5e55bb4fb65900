/// Computes `TrackStats` from a stream of points, in constant memory (apart from the splits).
///
///     var accumulator = TrackStatsAccumulator(activity: .ride)
///     accumulator.beginSegment()
///     for point in points { accumulator.add(latitude: point.latitude, longitude: point.longitude,
///                                           elevation: point.elevation, time: point.time) }
///     let stats = accumulator.finish()   // distance, climb, moving time, max speed, splits…
///
/// What each figure means, and why:
/// - **Bad fixes.** A single fix that implies an impossible speed both to reach it and to leave it, while
///   its neighbours agree with each other, is dropped (`ActivityKind.maxPlausibleSpeedMetersPerSecond`, plus
///   20 m of slack for scatter). It needs times; without them every fix is kept.
/// - **Scatter.** Fixes are smoothed by `PositionSmoother`, by no more than the noise the track shows.
/// - **Distance.** Accrues from an anchor: only once a smoothed fix lies `noiseRadiusMeters` (5 m) or more
///   from the last anchor is that distance added and the fix made the new anchor. Standing still, the
///   smoothed fixes stay within a metre or two of each other, so jitter adds nothing; moving, the steps are
///   chords of at least 5 m, which follow any real path closely. At the end of a segment the last stretch
///   (under 5 m) counts unless it was covered at under 0.2 m/s (a receiver lying still drifts). Segments are measured apart:
///   the gap between one's end and the next one's start is not distance.
/// - **Moving and stopped time.** Each step's interval (from the previous step's time) is moving when the
///   step's distance over its duration reaches the activity's stopped speed, stopped otherwise. Time only
///   runs forward: a time earlier than one already seen counts as that one (no negative or infinite
///   speeds). The time between segments of a track is paused; the time between tracks is not counted.
///   `elapsedSeconds = moving + stopped + paused`, which is last − first whenever times run forward.
/// - **Missing times.** Points without a time count for distance; a stretch between two timed points
///   belongs to their interval. When fewer than a quarter of the points of a track have a time
///   (`minimumTimedFraction`), the times are leftovers that say nothing about the track (gpxpy's
///   `cerknicko-without-times.gpx`: 6 of 296 points, 57 s on a 4.6 km ride), and no time figure is reported.
/// - **Average speed** is `distanceMeters / movingSeconds` (`TrackStats`), the two figures shown with it.
/// - **Stops.** A fix is stationary when the fixes around it go nowhere (`StationarityClassifier`); from a
///   stationary fix on, fixes within a few spreads of the stop's centre are part of the stop (no distance,
///   stopped time), and the second fix in a row beyond ends it: the step from the last anchor through the
///   stop's centre to that fix is then counted. Scatter of any size at a standstill thus adds nothing.
/// - **Tracks** are measured apart and summed (`beginTrack`, `TrackStats.adding`).
/// - **Altitude spikes.** An altitude that no rider can reach from the last believable one (over 10 m/s up or
///   down, or steeper than 45° without times, plus 30 m of scatter) is dropped before anything uses it
///   (`AltitudeGate`); a new level that holds for 8 fixes is taken as a fresh start, its jump no climb.
/// - **Climb.** The altitudes' own scatter says their kind (`AltitudeNoise`): barometric altitudes (a few
///   centimetres of scatter) count every rise of a metre, as recorded (`ElevationHysteresis`, 1 m); GPS
///   altitudes are smoothed and count past a 5 m turn back. Both counts run side by side, per segment, and the
///   end picks one: a bike computer's climb is kept whole, a phone's noise is not climbed.
/// - **Max speed.** From the speeds the device recorded (`<speed>`, measured by Doppler, steadier than
///   positions) when at least half the points carry one; otherwise the fastest 10 s in a straight line
///   (`SpeedWindow`). Either way a speed must last (`RobustMaximum`: median of five successive values, of
///   three on sparse tracks), and speeds over the activity's plausible speed are ignored.
///
/// `add` is the hot path (a million calls for a big file): no allocation, a few square roots and one
/// `sin`/`cos` pair per point.
public struct TrackStatsAccumulator: Sendable {
    /// Distance accrues only in steps of at least this many metres: over the scatter that smoothing leaves
    /// of fixes at a standstill (≈ 1–2 m), under the spacing of fixes at riding speed.
    public static let noiseRadiusMeters = 5.0
    /// The last stretch of a segment (under `noiseRadiusMeters`) is travel only if covered faster than this;
    /// slower, it is the drift of a receiver lying still.
    static let driftSpeedMetersPerSecond = 0.2
    /// Scatter allowed on top of the plausible speed before a fix counts as bad.
    static let outlierSlackMeters = 20.0
    /// With times on fewer than this share of its points, a track is reported as having none: a quarter is
    /// under any logger that drops times now and then (half the points still make a timed track), over the
    /// odd stamp that survives an export that strips them.
    public static let minimumTimedFraction = 0.25
    /// A track moving longer than this has a maximum speed of at least its average.
    static let averageFloorSeconds = 60.0
    /// Recorded speeds set the maximum when at least this share of the points carry one.
    static let recordedSpeedFraction = 0.5

    /// The activity whose thresholds are used.
    public let activity: ActivityKind
    private let stoppedSpeed: Double
    private let plausibleSpeed: Double

    /// The figures of the tracks before the current one, in order (summed by `finish`).
    private var earlierTracks: [TrackStats] = []
    private var pointCount = 0
    private var timedPointCount = 0
    private var segmentCount = 0
    private var outlierCount = 0
    private var segmentOpen = false

    // As written: bounds, first and last position and time.
    private var minLatitude = Double.infinity
    private var maxLatitude = -Double.infinity
    private var minLongitude = Double.infinity
    private var maxLongitude = -Double.infinity
    private var startCoordinate: Coordinate?
    private var endCoordinate: Coordinate?
    private var startTime: GPXTime?
    private var endTime: GPXTime?

    // Bad-fix gate: the last accepted fix and the one waiting for its successor.
    private var gateLast: StatsPoint?
    private var gateCandidate: StatsPoint?

    private var classifier = StationarityClassifier()
    private var smoother = PositionSmoother()
    /// Local scales without a sine and cosine per point.
    private var scales = LocalScaleSeries()
    /// The fixes of a stop while the rider stands (`StationarityClassifier`), nil on the move.
    private var stop: StopCluster?

    // Motion within the current segment.
    private var anchor: StatsPoint?
    private var anchorClock = 0.0
    private var anchorElevation: Double?
    private var lastPoint: StatsPoint?
    /// Latest time seen in the segment (seconds since 1970): the clock that only runs forward.
    private var segmentClock: Double?
    /// `segmentClock` at the last step with a time.
    private var lastStepClock: Double?
    /// Distance of steps taken at points without a time since `lastStepClock`.
    private var pendingMeters = 0.0
    private var previousSegmentEndClock: Double?

    // Totals.
    /// Recorded seconds so far (moving + stopped, classified or not yet): the clock of splits and max speed.
    private var recordedSeconds = 0.0
    private var distanceMeters = 0.0
    private var movingSeconds = 0.0
    private var movingDistanceMeters = 0.0
    /// Moving intervals faster than the plausible speed: their distance and time.
    private var implausibleMeters = 0.0
    private var implausibleSeconds = 0.0
    private var stoppedSeconds = 0.0
    private var pausedSeconds = 0.0
    private var hasTime = false
    private var minElevation = Double.infinity
    private var maxElevation = -Double.infinity
    private var lastElevation: Double?
    /// GPS altitudes: smoothed, 5 m.
    private var hysteresis = ElevationHysteresis()
    /// Barometric altitudes: as recorded (spikes gated), 1 m, with their own range.
    private var barometricHysteresis = ElevationHysteresis(thresholdMeters: ElevationHysteresis.barometricThresholdMeters)
    private var barometricMinElevation = Double.infinity
    private var barometricMaxElevation = -Double.infinity
    private var altitudeGate = AltitudeGate()
    private var altitudeNoise = AltitudeNoise()
    private var speedWindow: SpeedWindow
    private var recordedSpeeds = RobustMaximum()
    private var recordedSpeedCount = 0
    private var kilometerSplits = SplitTracker(lengthMeters: Split.kilometerMeters)
    private var mileSplits = SplitTracker(lengthMeters: Split.mileMeters)

    /// Each step of distance as counted, when tracing (`TrackProfile`): nil otherwise, and then nothing is kept.
    private var trace: [TrackTraceStep]?
    /// Whether best efforts are measured (`TrackStats.efforts`): off by default, as they keep a series in memory
    /// and a recording's live figures, finished at every batch, do not show them.
    public let measuresEfforts: Bool
    private var effortSeries = EffortSeries()

    /// `tracing`: keep each step of distance as counted (one per 5 m or more), for charts drawn from the same
    /// filtered fixes as the figures (`finishWithTrace`). Memory then grows with the track. `measuringEfforts`:
    /// the best efforts too (`TrackStats.efforts`).
    public init(activity: ActivityKind = .ride, tracing: Bool = false, measuringEfforts: Bool = false) {
        self.activity = activity
        if tracing { trace = [] }
        measuresEfforts = measuringEfforts
        stoppedSpeed = activity.stoppedSpeedMetersPerSecond
        plausibleSpeed = activity.maxPlausibleSpeedMetersPerSecond
        speedWindow = SpeedWindow(plausibleSpeedMetersPerSecond: plausibleSpeed)
    }

    /// Starts a new track: the time between the previous track and this one is not counted at all (two tracks
    /// in one file are often days apart), where the time between segments of one track is paused time.
    ///
    /// Each track is measured on its own, as if it were alone in the file, and the file's figures are the sum
    /// (`TrackStats.adding`): a file's distance, climb, descent and times are exactly the sums of its tracks'.
    public mutating func beginTrack() {
        if segmentOpen {
            endSegment()
            segmentOpen = false
        }
        guard pointCount > 0 || segmentCount > 0 else { return }
        var tracks = earlierTracks
        tracks.append(makeStats())
        let kept = trace
        self = TrackStatsAccumulator(activity: activity, measuringEfforts: measuresEfforts)
        earlierTracks = tracks
        trace = kept
    }

    /// Starts a new segment (a `trkseg`, or Resume after Pause). Adding a point without one starts one.
    public mutating func beginSegment() {
        if segmentOpen { endSegment() }
        segmentOpen = true
        segmentCount += 1
        if measuresEfforts {
            effortSeries.power.beginSegment()
            effortSeries.heartRate.beginSegment()
        }
    }

    /// Adds the next point of the current segment. Points with a non-finite or out-of-range position are
    /// ignored; a non-finite elevation counts as none. `speed` is the speed the device recorded, metres per
    /// second, if any.
    public mutating func add(latitude: Double, longitude: Double, elevation: Double?, time: GPXTime?, speed: Double? = nil) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return }
        if !segmentOpen { beginSegment() }
        pointCount += 1
        minLatitude = min(minLatitude, latitude)
        maxLatitude = max(maxLatitude, latitude)
        minLongitude = min(minLongitude, longitude)
        maxLongitude = max(maxLongitude, longitude)
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        if startCoordinate == nil { startCoordinate = coordinate }
        endCoordinate = coordinate
        if let time {
            timedPointCount += 1
            if startTime == nil { startTime = time }
            endTime = time
        }
        if let speed, speed.isFinite, speed >= 0 {
            recordedSpeedCount += 1
            if speed <= plausibleSpeed { recordedSpeeds.add(speed) }
        }

        var point = StatsPoint(
            latitude: latitude, longitude: longitude, elevationMeters: elevation.flatMap { $0.isFinite ? $0 : nil },
            time: time?.timeIntervalSince1970, scales: &scales
        )
        point.index = pointCount - 1
        if let elevation = point.elevationMeters {
            switch altitudeGate.judge(elevation: elevation, time: point.time, point: point) {
            case .accept: break
            case .reject: point.elevationMeters = nil
            case .newLevel: point.startsAltitudeLevel = true
            }
        }
        if let candidate = gateCandidate {
            if let last = gateLast, isBadFix(candidate, after: last, before: point) {
                outlierCount += 1
            } else {
                accept(candidate)
            }
        }
        gateCandidate = point
    }

    /// Adds a track point.
    public mutating func add(_ point: TrackPoint) {
        add(latitude: point.latitude, longitude: point.longitude, elevation: point.elevation, time: point.time, speed: point.speedMetersPerSecond)
        if measuresEfforts, let time = point.time?.timeIntervalSince1970 {
            if effortSeries.power.origin == nil {
                effortSeries.power.origin = time
                effortSeries.heartRate.origin = time
            }
            if let power = point.powerWatts { effortSeries.power.add(power, time: time) }
            if let heartRate = point.heartRate { effortSeries.heartRate.add(heartRate, time: time) }
        }
    }

    /// The stats of everything added so far. Does not change the accumulator: it finishes a copy, so a
    /// recording can show live figures and go on.
    public func finish() -> TrackStats {
        var copy = self
        if copy.segmentOpen { copy.endSegment() }
        var tracks = earlierTracks
        if copy.pointCount > 0 || copy.segmentCount > 0 || tracks.isEmpty { tracks.append(copy.makeStats()) }
        return tracks.dropFirst().reduce(tracks[0]) { $0.adding($1) }
    }

    /// `finish()` with the steps of distance it counted (empty unless made with `tracing`).
    public func finishWithTrace() -> (stats: TrackStats, steps: [TrackTraceStep]) {
        var copy = self
        if copy.segmentOpen { copy.endSegment() }
        var tracks = copy.earlierTracks
        if copy.pointCount > 0 || copy.segmentCount > 0 || tracks.isEmpty { tracks.append(copy.makeStats()) }
        return (tracks.dropFirst().reduce(tracks[0]) { $0.adding($1) }, copy.trace ?? [])
    }

    // MARK: - Pipeline

    private func isBadFix(_ point: StatsPoint, after previous: StatsPoint, before next: StatsPoint) -> Bool {
        guard let t0 = previous.time, let t1 = point.time, let t2 = next.time else { return false }
        // The speed as a local: a nested function that reads `self` copies the whole accumulator (1.3 kB) at
        // every point.
        let plausibleSpeed = plausibleSpeed
        func implausible(_ a: StatsPoint, _ b: StatsPoint, _ seconds: Double) -> Bool {
            a.distanceMeters(to: b) > plausibleSpeed * max(0, seconds) + Self.outlierSlackMeters
        }
        return implausible(previous, point, t1 - t0) && implausible(point, next, t2 - t1)
            && !implausible(previous, next, t2 - t0)
    }

    private mutating func accept(_ point: StatsPoint) {
        gateLast = point
        if let elevation = point.elevationMeters {
            if point.startsAltitudeLevel {
                barometricHysteresis.endSegment()
                altitudeNoise.endSegment()
            }
            barometricHysteresis.add(elevation)
            altitudeNoise.add(elevation)
            barometricMinElevation = min(barometricMinElevation, elevation)
            barometricMaxElevation = max(barometricMaxElevation, elevation)
        }
        if let classified = classifier.push(point) { smoothAndConsume(classified) }
    }

    private mutating func smoothAndConsume(_ point: StatsPoint) {
        if let smoothed = smoother.push(point) { consume(smoothed) }
    }

    private mutating func endSegment() {
        if let candidate = gateCandidate { accept(candidate) }
        while let classified = classifier.drain() { smoothAndConsume(classified) }
        while let smoothed = smoother.drain() { consume(smoothed) }
        finishMotion()
        hysteresis.endSegment()
        barometricHysteresis.endSegment()
        altitudeNoise.endSegment()
        if let clock = segmentClock { previousSegmentEndClock = clock }
        gateLast = nil
        gateCandidate = nil
        classifier.beginSegment()
        smoother.beginSegment()
        stop = nil
        anchor = nil
        lastPoint = nil
        segmentClock = nil
        lastStepClock = nil
        pendingMeters = 0
        speedWindow.reset()
        recordedSpeeds.endSegment()
        segmentOpen = false
    }

    private mutating func consume(_ point: StatsPoint) {
        if let elevation = point.elevationMeters {
            if point.startsAltitudeLevel { hysteresis.endSegment() }
            minElevation = min(minElevation, elevation)
            maxElevation = max(maxElevation, elevation)
            hysteresis.add(elevation)
            lastElevation = elevation
        }
        if let time = point.time {
            hasTime = true
            if let clock = segmentClock {
                if time > clock {
                    recordedSeconds += time - clock
                    segmentClock = time
                }
            } else {
                if let previousEnd = previousSegmentEndClock, time > previousEnd { pausedSeconds += time - previousEnd }
                segmentClock = time
                lastStepClock = time
                pendingMeters = 0
                speedWindow.add(point, clock: recordedSeconds)
                if measuresEfforts { effortSeries.beginTimedStretch(alongMeters: distanceMeters) }
            }
        }
        lastPoint = point
        guard let anchor else {
            if trace?.isEmpty == true { record(at: point) }
            setAnchor(point)
            return
        }
        if stop != nil {
            standOrLeave(point, anchor: anchor)
            return
        }
        if point.isStationary {
            stop = StopCluster(first: point)
            return
        }
        let step = anchor.distanceMeters(to: point)
        if step >= Self.noiseRadiusMeters {
            advance(by: step)
            if point.time != nil {
                classifyInterval(extraMeters: step)
                speedWindow.add(point, clock: recordedSeconds)
            } else {
                pendingMeters += step
            }
            setAnchor(point)
        }
    }

    /// A fix during a stop: part of the stop while it stays near the stop's centre; the second fix in a row
    /// beyond that ends the stop, and the way from the last anchor through the stop's centre to this fix is
    /// one step (how far the rider went, however long the stop and whatever its scatter).
    private mutating func standOrLeave(_ point: StatsPoint, anchor: StatsPoint) {
        guard var cluster = stop else { return }
        if cluster.contains(point) {
            cluster.add(point)
            stop = cluster
            return
        }
        cluster.outsideInARow += 1
        stop = cluster
        guard cluster.outsideInARow >= StopCluster.outsideToLeave else { return }
        let centre = cluster.centre
        let step = anchor.distanceMeters(to: centre) + centre.distanceMeters(to: point)
        stop = nil
        advance(by: step)
        if point.time != nil {
            classifyInterval(extraMeters: step)
            speedWindow.add(point, clock: recordedSeconds)
        } else {
            pendingMeters += step
        }
        setAnchor(point)
    }

    private mutating func setAnchor(_ point: StatsPoint) {
        anchor = point
        anchorClock = recordedSeconds
        anchorElevation = lastElevation
    }

    /// Adds a step's distance and cuts splits along it.
    private mutating func advance(by meters: Double) {
        let from = distanceMeters
        distanceMeters += meters
        if trace != nil, let lastPoint { record(at: lastPoint) }
        let climb = SplitTracker.Climb(gps: hysteresis.climbSoFarMeters, barometric: barometricHysteresis.climbSoFarMeters)
        kilometerSplits.advance(
            fromMeters: from, stepMeters: meters, clock0: anchorClock, clock1: recordedSeconds,
            elevation0: anchorElevation, elevation1: lastElevation, climb: climb
        )
        mileSplits.advance(
            fromMeters: from, stepMeters: meters, clock0: anchorClock, clock1: recordedSeconds,
            elevation0: anchorElevation, elevation1: lastElevation, climb: climb
        )
    }

    private mutating func record(at point: StatsPoint) {
        trace?.append(
            TrackTraceStep(
                distanceMeters: distanceMeters, clockSeconds: recordedSeconds, isTimed: segmentClock != nil, elevationMeters: lastElevation,
                coordinate: point.coordinate, pointIndex: point.index
            ))
    }

    /// Classifies the time since the last timed step as moving or stopped by the speed over it.
    private mutating func classifyInterval(extraMeters: Double) {
        guard let now = segmentClock, let since = lastStepClock else { return }
        let seconds = now - since
        if seconds > 0 {
            if (pendingMeters + extraMeters) / seconds >= stoppedSpeed {
                movingSeconds += seconds
                movingDistanceMeters += pendingMeters + extraMeters
                if (pendingMeters + extraMeters) / seconds > plausibleSpeed {
                    implausibleSeconds += seconds
                    implausibleMeters += pendingMeters + extraMeters
                }
            } else {
                stoppedSeconds += seconds
            }
            if measuresEfforts { effortSeries.addInterval(alongMeters: distanceMeters, movingSeconds: movingSeconds) }
        }
        lastStepClock = now
        pendingMeters = 0
    }

    /// The stretch after the last anchor: counted unless it was covered at drift speed; its time classified
    /// either way.
    private mutating func finishMotion() {
        guard let anchor, var last = lastPoint else { return }
        if let stop { last = stop.centre }
        let tail = anchor.distanceMeters(to: last)
        if let now = segmentClock, let since = lastStepClock, now > since {
            let travelled = (pendingMeters + tail) / (now - since) >= Self.driftSpeedMetersPerSecond
            if travelled { advance(by: tail) }
            classifyInterval(extraMeters: travelled ? tail : 0)
            speedWindow.add(last, clock: recordedSeconds)
        } else if tail > 0 {
            advance(by: tail)
        }
    }

    private func makeStats() -> TrackStats {
        var stats = TrackStats(activity: activity)
        stats.pointCount = pointCount
        stats.segmentCount = segmentCount
        stats.ignoredOutlierCount = outlierCount
        stats.distanceMeters = distanceMeters
        let altitude = altitudeNoise.kind
        let hasElevation = minElevation <= maxElevation || barometricMinElevation <= barometricMaxElevation
        if hasElevation { stats.altitudeKind = altitude }
        stats.altitudeNoiseMeters = altitudeNoise.sigmaMeters
        stats.ignoredAltitudeCount = altitudeGate.rejectedCount
        stats.ascentMeters = altitude == .barometric ? barometricHysteresis.ascentMeters : hysteresis.ascentMeters
        stats.descentMeters = altitude == .barometric ? barometricHysteresis.descentMeters : hysteresis.descentMeters
        let timed = hasTime && Double(timedPointCount) >= Self.minimumTimedFraction * Double(pointCount)
        if timed {
            stats.movingSeconds = movingSeconds
            stats.movingDistanceMeters = movingDistanceMeters
            stats.stoppedSeconds = stoppedSeconds
            stats.pausedSeconds = pausedSeconds
            stats.elapsedSeconds = movingSeconds + stoppedSeconds + pausedSeconds
            stats.maxSpeedMetersPerSecond = speedWindow.maxSpeedMetersPerSecond
        }
        if recordedSpeedCount > 0 && Double(recordedSpeedCount) >= Self.recordedSpeedFraction * Double(pointCount) {
            stats.maxSpeedMetersPerSecond = recordedSpeeds.value
        }
        // Nobody's top speed is under their speed while moving: over a minute of moving, the speed of the
        // plausible moving intervals is a floor (the maximum's windows can miss it: fixes minutes apart,
        // recorded speeds few). Their distance only, not the whole distance: a walk recorded as a ride covers
        // ground in intervals slower than a ride's stopped speed, which the average (distance over moving time)
        // counts and which made the floor — the average — the maximum of a walk whose splits vary.
        // Intervals faster than the plausible speed (a fix kilometres on after a tunnel, a car drive recorded
        // as a ride) are left out of the floor as they are out of the maximum.
        let plausibleSeconds = stats.movingSeconds - implausibleSeconds
        if timed && plausibleSeconds > Self.averageFloorSeconds {
            let floor = (movingDistanceMeters - implausibleMeters) / plausibleSeconds
            stats.maxSpeedMetersPerSecond = max(stats.maxSpeedMetersPerSecond, floor)
        }
        if altitude == .barometric && barometricMinElevation <= barometricMaxElevation {
            stats.minElevationMeters = barometricMinElevation
            stats.maxElevationMeters = barometricMaxElevation
        } else if minElevation <= maxElevation {
            stats.minElevationMeters = minElevation
            stats.maxElevationMeters = maxElevation
        }
        stats.startTime = startTime
        stats.endTime = endTime
        stats.start = startCoordinate
        stats.end = endCoordinate
        if pointCount > 0 {
            stats.bounds = GPXBounds(minLatitude: minLatitude, minLongitude: minLongitude, maxLatitude: maxLatitude, maxLongitude: maxLongitude)
        }
        let climb = SplitTracker.Climb(gps: hysteresis.ascentMeters, barometric: barometricHysteresis.ascentMeters)
        stats.kilometerSplits = kilometerSplits.finished(
            totalMeters: distanceMeters, clock: recordedSeconds, elevation: lastElevation, climb: climb, hasTime: timed,
            altitude: altitude, hasElevation: hasElevation
        )
        stats.mileSplits = mileSplits.finished(
            totalMeters: distanceMeters, clock: recordedSeconds, elevation: lastElevation, climb: climb, hasTime: timed,
            altitude: altitude, hasElevation: hasElevation
        )
        if measuresEfforts { stats.efforts = effortSeries.efforts(activity: activity, stats: stats, timed: timed) }
        return stats
    }
}

/// The fixes of one stop: their mean is where the rider stands, their spread how far the receiver scatters.
private struct StopCluster {
    /// A fix beyond `exitRadiusMeters` from the centre is outside; this many in a row end the stop (one alone is
    /// a stray fix).
    static let outsideToLeave = 2
    /// The stop ends only beyond three spreads of its fixes (a fix of independent 2-D scatter falls that far out
    /// once in 10⁴), and at least 10 m (the spread of the first few fixes says little) and at most 30 m (so
    /// that slow travel taken for a stop, whose spread keeps growing, still ends it).
    static let minimumExitRadiusMeters = 10.0
    static let maximumExitRadiusMeters = 30.0
    static let exitRadiusInSpreads = 3.0

    let first: StatsPoint
    private var sumEast = 0.0
    private var sumNorth = 0.0
    private var sumSquares = 0.0
    private var count = 1.0
    var outsideInARow = 0

    init(first: StatsPoint) { self.first = first }

    mutating func add(_ point: StatsPoint) {
        let offset = first.offset(of: point)
        sumEast += offset.east
        sumNorth += offset.north
        sumSquares += offset.east * offset.east + offset.north * offset.north
        count += 1
        outsideInARow = 0
    }

    var centre: StatsPoint { first.moved(east: sumEast / count, north: sumNorth / count) }

    func contains(_ point: StatsPoint) -> Bool {
        let meanEast = sumEast / count, meanNorth = sumNorth / count
        let spread = max(0, sumSquares / count - meanEast * meanEast - meanNorth * meanNorth).squareRoot()
        let radius = min(Self.maximumExitRadiusMeters, max(Self.minimumExitRadiusMeters, Self.exitRadiusInSpreads * spread))
        let offset = first.offset(of: point)
        let de = offset.east - meanEast, dn = offset.north - meanNorth
        return de * de + dn * dn <= radius * radius
    }
}
