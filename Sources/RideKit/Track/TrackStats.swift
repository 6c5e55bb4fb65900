/// The figures of a track that people compare and trust: distance, climb, time, speed, splits.
///
/// Made by `TrackStatsAccumulator` (or `Track.stats(activity:)`, `GPXDocument.stats(activity:)`); each
/// figure's definition is on its property. Stored with the track (DESIGN 5), so that lists never recompute.
public struct TrackStats: Sendable, Hashable {
    /// The activity whose thresholds were used.
    public var activity: ActivityKind
    /// Points with a valid position (bad fixes included; invalid coordinates are not counted).
    public var pointCount: Int
    /// Segments, empty ones included.
    public var segmentCount: Int
    /// Single bad fixes that were ignored (see `ActivityKind.maxPlausibleSpeedMetersPerSecond`).
    public var ignoredOutlierCount: Int
    /// Distance travelled on WGS-84, metres: jitter at a standstill and the gaps between segments excluded.
    public var distanceMeters: Double
    /// Elevation gained, metres (0 without elevations): barometric altitudes as recorded with a 1 m
    /// hysteresis, GPS altitudes smoothed with a 5 m one (`altitudeKind`); impossible jumps left out.
    public var ascentMeters: Double
    /// Elevation lost, metres, likewise.
    public var descentMeters: Double
    /// `movingSeconds + stoppedSeconds + pausedSeconds`: the last time minus the first whenever times run
    /// forward; never negative.
    public var elapsedSeconds: Double
    /// Time spent in intervals faster than the activity's stopped speed, seconds (0 when fewer than a quarter
    /// of the points have a time, see `TrackStatsAccumulator.minimumTimedFraction`).
    public var movingSeconds: Double
    /// Distance covered in those intervals, metres: `distanceMeters` less what was covered while stopped and
    /// what lies before the first or after the last time of a segment.
    public var movingDistanceMeters: Double
    /// Time within segments spent slower than that, seconds.
    public var stoppedSeconds: Double
    /// Time between the end of one segment and the start of the next (Pause/Resume), seconds.
    public var pausedSeconds: Double
    /// Fastest speed that lasted, metres per second: from the recorded speeds when at least half the points
    /// carry one, otherwise over 10 seconds of recorded time in a straight line (0 without times); the median
    /// of five successive values, of three on sparse tracks (see `TrackStatsAccumulator`).
    public var maxSpeedMetersPerSecond: Double
    /// `distanceMeters / movingSeconds`, metres per second (0 without moving time): derived from the two
    /// figures shown next to it, so that the three always agree wherever they are shown. Distance covered
    /// at a standstill is none (`StationarityClassifier`), so this is the speed while moving.
    public var averageSpeedMetersPerSecond: Double {
        movingSeconds > 0 ? distanceMeters / movingSeconds : 0
    }
    /// `movingSeconds` per kilometre of `distanceMeters`, seconds (the pace runners read); nil without
    /// distance or moving time.
    public var averageMovingPaceSecondsPerKilometer: Double? {
        movingSeconds > 0 && distanceMeters > 0 ? movingSeconds / (distanceMeters / 1000) : nil
    }
    /// The kind of altitude the track's scatter shows, which chose how climb is counted; nil without elevations.
    public var altitudeKind: AltitudeKind?
    /// The scatter of the altitudes (σ, metres) that says their kind; nil with too few of them.
    public var altitudeNoiseMeters: Double?
    /// Altitudes dropped as impossible jumps (`AltitudeGate`).
    public var ignoredAltitudeCount: Int = 0
    /// Lowest and highest elevation (smoothed for GPS altitudes), metres; nil without elevations.
    public var minElevationMeters: Double?
    public var maxElevationMeters: Double?
    /// Time of the first and of the last point that has one, as written (offset and precision kept).
    public var startTime: GPXTime?
    public var endTime: GPXTime?
    /// First and last position.
    public var start: Coordinate?
    public var end: Coordinate?
    /// Smallest box holding every point, or nil without points.
    public var bounds: GPXBounds?
    /// Splits of one kilometre, the last one possibly partial.
    public var kilometerSplits: [Split]
    /// Splits of one mile, the last one possibly partial.
    public var mileSplits: [Split]
    /// The track's best efforts, when they were measured (`TrackStatsAccumulator(measuringEfforts: true)`).
    public var efforts: BestEfforts?
    /// Which version of the best-effort measurement made `efforts` (`BestEfforts.currentVersion` for figures computed
    /// now; what was stored with figures read back, 1 for those stored before versions were kept). A store measures
    /// again the efforts of tracks whose version is older than the current one.
    public var effortsVersion: Int = BestEfforts.currentVersion

    /// Stats of an empty track; the store fills the fields it keeps.
    public init(activity: ActivityKind = .ride) {
        self.activity = activity
        pointCount = 0
        segmentCount = 0
        ignoredOutlierCount = 0
        distanceMeters = 0
        ascentMeters = 0
        descentMeters = 0
        elapsedSeconds = 0
        movingSeconds = 0
        movingDistanceMeters = 0
        stoppedSeconds = 0
        pausedSeconds = 0
        maxSpeedMetersPerSecond = 0
        kilometerSplits = []
        mileSplits = []
    }
}

extension TrackStats: Codable {
    private enum CodingKeys: String, CodingKey {
        case activity, pointCount, segmentCount, ignoredOutlierCount, distanceMeters, ascentMeters, descentMeters
        case elapsedSeconds, movingSeconds, movingDistanceMeters, stoppedSeconds, pausedSeconds, maxSpeedMetersPerSecond
        case averageSpeedMetersPerSecond, averageMovingPaceSecondsPerKilometer, minElevationMeters, maxElevationMeters
        case startTime, endTime, start, end, bounds, kilometerSplits, mileSplits, efforts, effortsVersion
        case altitudeKind, altitudeNoiseMeters, ignoredAltitudeCount
    }

    /// `GPXBounds` as JSON, with the key names of GPX and of `bikeride stats --json`.
    private struct BoundsBox: Codable {
        var minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double
    }

    /// Times are encoded as RFC 3339 text in the offset they were written with, so they decode unchanged.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(activity, forKey: .activity)
        try container.encode(pointCount, forKey: .pointCount)
        try container.encode(segmentCount, forKey: .segmentCount)
        try container.encode(ignoredOutlierCount, forKey: .ignoredOutlierCount)
        try container.encode(distanceMeters, forKey: .distanceMeters)
        try container.encode(ascentMeters, forKey: .ascentMeters)
        try container.encode(descentMeters, forKey: .descentMeters)
        try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try container.encode(movingSeconds, forKey: .movingSeconds)
        try container.encode(movingDistanceMeters, forKey: .movingDistanceMeters)
        try container.encode(stoppedSeconds, forKey: .stoppedSeconds)
        try container.encode(pausedSeconds, forKey: .pausedSeconds)
        try container.encode(maxSpeedMetersPerSecond, forKey: .maxSpeedMetersPerSecond)
        try container.encode(averageSpeedMetersPerSecond, forKey: .averageSpeedMetersPerSecond)
        try container.encodeIfPresent(averageMovingPaceSecondsPerKilometer, forKey: .averageMovingPaceSecondsPerKilometer)
        try container.encodeIfPresent(minElevationMeters, forKey: .minElevationMeters)
        try container.encodeIfPresent(maxElevationMeters, forKey: .maxElevationMeters)
        try container.encodeIfPresent(startTime?.rfc3339, forKey: .startTime)
        try container.encodeIfPresent(endTime?.rfc3339, forKey: .endTime)
        try container.encodeIfPresent(start, forKey: .start)
        try container.encodeIfPresent(end, forKey: .end)
        try container.encodeIfPresent(
            bounds.map { BoundsBox(minLatitude: $0.minLatitude, minLongitude: $0.minLongitude, maxLatitude: $0.maxLatitude, maxLongitude: $0.maxLongitude) },
            forKey: .bounds
        )
        try container.encode(kilometerSplits, forKey: .kilometerSplits)
        try container.encode(mileSplits, forKey: .mileSplits)
        try container.encodeIfPresent(altitudeKind, forKey: .altitudeKind)
        try container.encodeIfPresent(altitudeNoiseMeters, forKey: .altitudeNoiseMeters)
        try container.encode(ignoredAltitudeCount, forKey: .ignoredAltitudeCount)
        try container.encodeIfPresent(efforts?.efforts, forKey: .efforts)
        if efforts != nil { try container.encode(effortsVersion, forKey: .effortsVersion) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(activity: try container.decode(ActivityKind.self, forKey: .activity))
        pointCount = try container.decode(Int.self, forKey: .pointCount)
        segmentCount = try container.decode(Int.self, forKey: .segmentCount)
        ignoredOutlierCount = try container.decode(Int.self, forKey: .ignoredOutlierCount)
        distanceMeters = try container.decode(Double.self, forKey: .distanceMeters)
        ascentMeters = try container.decode(Double.self, forKey: .ascentMeters)
        descentMeters = try container.decode(Double.self, forKey: .descentMeters)
        elapsedSeconds = try container.decode(Double.self, forKey: .elapsedSeconds)
        movingSeconds = try container.decode(Double.self, forKey: .movingSeconds)
        // Absent from stats stored before it existed.
        movingDistanceMeters = try container.decodeIfPresent(Double.self, forKey: .movingDistanceMeters) ?? 0
        stoppedSeconds = try container.decode(Double.self, forKey: .stoppedSeconds)
        pausedSeconds = try container.decode(Double.self, forKey: .pausedSeconds)
        maxSpeedMetersPerSecond = try container.decode(Double.self, forKey: .maxSpeedMetersPerSecond)
        // The average speed and pace are derived from the distance and moving time: any stored value is ignored.
        minElevationMeters = try container.decodeIfPresent(Double.self, forKey: .minElevationMeters)
        maxElevationMeters = try container.decodeIfPresent(Double.self, forKey: .maxElevationMeters)
        func time(_ key: CodingKeys) throws -> GPXTime? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            do {
                return try GPXTime(parsing: text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
            }
        }
        startTime = try time(.startTime)
        endTime = try time(.endTime)
        start = try container.decodeIfPresent(Coordinate.self, forKey: .start)
        end = try container.decodeIfPresent(Coordinate.self, forKey: .end)
        bounds = try container.decodeIfPresent(BoundsBox.self, forKey: .bounds).map {
            GPXBounds(minLatitude: $0.minLatitude, minLongitude: $0.minLongitude, maxLatitude: $0.maxLatitude, maxLongitude: $0.maxLongitude)
        }
        kilometerSplits = try container.decode([Split].self, forKey: .kilometerSplits)
        mileSplits = try container.decode([Split].self, forKey: .mileSplits)
        // Absent from stats stored before they existed.
        altitudeKind = try container.decodeIfPresent(AltitudeKind.self, forKey: .altitudeKind)
        altitudeNoiseMeters = try container.decodeIfPresent(Double.self, forKey: .altitudeNoiseMeters)
        ignoredAltitudeCount = try container.decodeIfPresent(Int.self, forKey: .ignoredAltitudeCount) ?? 0
        efforts = try container.decodeIfPresent([BestEffort].self, forKey: .efforts).map(BestEfforts.init)
        // Efforts stored before their version was kept are version 1's.
        effortsVersion = try container.decodeIfPresent(Int.self, forKey: .effortsVersion) ?? 1
    }
}
