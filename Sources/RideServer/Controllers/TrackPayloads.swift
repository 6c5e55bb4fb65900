import Foundation
import Hummingbird
import RideKit
import RideStore

// The JSON of the tracks API (DESIGN 6), read by `Web/js/tracks.js`: a track's row is the store's
// `TrackSummary` in its one JSON form; the rest are the server's own shapes. Positions are `[latitude,
// longitude]` pairs, the order Leaflet takes.

/// `PATCH` body.
struct TrackChangesRequest: Decodable {
    var name: String?
    var kind: TrackKind?
    /// `recording` keeps a simulated ride as a real one (it then counts in totals, records, overview, heatmap);
    /// `simulation` sets it back.
    var source: TrackSource?
}

/// A row of the Tracks list, a page of it, an edited track: the store's `TrackSummary` in its one JSON form
/// (`TrackSummary+Codable.swift`).
extension TrackSummary: ResponseEncodable {}
extension TrackPage: ResponseEncodable {}

/// The answer to an upload: the new tracks, or (`duplicate`) those of the earlier import of the same file;
/// `message` says it in a sentence ("8 tracks imported"), `warnings` what lenient reading left out.
struct UploadPayload: ResponseEncodable {
    /// A kind of thing left out, as a sentence ("1 waypoint skipped: latitude 95 is out of range"), with the
    /// place of the first (and up to `GPXReadReport.maximumLocatedWarnings` in all, each with its own detail).
    struct WarningPayload: Encodable {
        var kind: GPXReadWarning.Kind
        var count: Int
        var message: String
        var line: Int?
        var column: Int?
        var places: [PlacePayload]
    }
    struct PlacePayload: Encodable {
        var line: Int
        var column: Int
        var detail: String
    }
    var duplicate: Bool
    var message: String
    var tracks: [TrackSummary]
    /// The places made of the file's waypoints (`?waypointsAsPlaces=1`), in file order.
    var places: [String]
    var warnings: [WarningPayload]

    init(duplicate: Bool, tracks: [TrackSummary], placeIDs: [PlaceID] = [], report: GPXReadReport) {
        self.duplicate = duplicate
        self.tracks = tracks
        places = placeIDs.map(\.rawValue)
        message = Self.message(duplicate: duplicate, tracks: tracks, placeCount: placeIDs.count)
        warnings = GPXReadWarning.Kind.allCases.compactMap { kind in
            guard let count = report.counts[kind], count > 0 else { return nil }
            let located = report.warnings.filter { $0.kind == kind }
            let first = located.first
            return WarningPayload(
                kind: kind, count: count,
                message: GPXReadWarning.sentence(kind: kind, count: count, firstDetail: first?.detail ?? "it is not valid GPX"),
                line: first?.line, column: first?.column,
                places: located.map { PlacePayload(line: $0.line, column: $0.column, detail: $0.detail) })
        }
    }

    /// "1 track imported", "8 tracks imported", "2 tracks and 1 route imported", "already imported".
    static func message(duplicate: Bool, tracks: [TrackSummary], placeCount: Int = 0) -> String {
        if duplicate { return tracks.count == 1 ? "already imported" : "already imported (\(tracks.count) tracks)" }
        let routes = tracks.filter { $0.kind == .route }.count
        let rides = tracks.count - routes
        func counted(_ count: Int, _ one: String, _ many: String) -> String { "\(count) \(count == 1 ? one : many)" }
        var parts: [String] = []
        if rides > 0 { parts.append(counted(rides, "track", "tracks")) }
        if routes > 0 { parts.append(counted(routes, "route", "routes")) }
        if placeCount > 0 { parts.append(counted(placeCount, "place", "places")) }
        switch parts.count {
        case 0: return "nothing imported"
        case 1: return parts[0] + " imported"
        default: return parts.dropLast().joined(separator: ", ") + " and " + parts[parts.count - 1] + " imported"
        }
    }
}

/// A waypoint on the track page's map.
struct WaypointPayload: Encodable {
    var name: String?
    var latitude: Double
    var longitude: Double
}

/// A track page: its row (the keys of `TrackSummary`: `bounds`, and `pointCount` of the whole track while
/// `segments` may hold fewer), every figure, and its line (`segments`:
/// `[[[lat, lon], …], …]`), every point or simplified for the zoom `simplifiedForZoom`.
struct TrackDetailPayload: ResponseEncodable {
    var summary: TrackSummary
    var stats: StatsPayload
    var segments: [[[Double]]]
    /// The zoom `segments` is simplified for; nil when it holds every point.
    var simplifiedForZoom: Int?
    var waypoints: [WaypointPayload]
    /// Splits per kilometre and per mile (`Split`: index, distanceMeters, durationSeconds, elevationChangeMeters,
    /// isPartial), as computed on import: the page shows those of the rider's units.
    var splits: SplitsPayload
    /// What the bike computer or watch measured (`DeviceFigures`' keys: distanceMeters, timerSeconds,
    /// elapsedSeconds, ascentMeters …, absent where it said nothing), and its laps as it recorded them; absent
    /// and empty for a track that came from no device file.
    var device: DeviceFigures?
    var laps: [DeviceFigures]
    /// Where the laps come from: `device` (the file's), `recorded` (the Lap button), absent without laps.
    var lapSource: String?
    /// The track's best efforts, each with its rank when it was ridden ("PR", "2nd best").
    var efforts: [EffortPayload]

    struct SplitsPayload: Encodable {
        var kilometer: [Split]
        var mile: [Split]
    }

    private enum CodingKeys: String, CodingKey {
        case stats, segments, simplifiedForZoom, waypoints, splits, device, laps, lapSource, efforts
    }

    /// `lapMarks`: the laps the rider marked while recording (`RecordedLaps`), listed as a device's laps are when
    /// the track has none of a device's.
    /// `lines` and `waypoints` are the track's, bounded (`TrackLibrary.boundedLines`); `lapLine` the track's points the
    /// marked laps are measured on.
    init(
        _ track: StoredTrack, lines: [TrackSegment], waypoints: [TrackPoint], lapLine: Track? = nil, simplifiedForZoom zoom: Int? = nil,
        efforts: [RankedEffort] = [], lapMarks: [Int64] = []
    ) throws {
        summary = track.summary
        self.efforts = efforts.map(EffortPayload.init)
        stats = StatsPayload(track.stats)
        let latitude = track.middleLatitude
        segments = lines.map { segment in
            let points = zoom.map { LineSimplification.simplified(segment.points, forZoom: $0, latitudeDegrees: latitude) } ?? segment.points
            return points.map { [$0.latitude, $0.longitude] }
        }
        simplifiedForZoom = zoom
        self.waypoints = waypoints.map { WaypointPayload(name: $0.name, latitude: $0.latitude, longitude: $0.longitude) }
        splits = SplitsPayload(kilometer: track.stats.kilometerSplits, mile: track.stats.mileSplits)
        device = track.device?.totals
        laps = track.device?.laps ?? []
        if laps.isEmpty, !lapMarks.isEmpty, let line = lapLine {
            laps = RecordedLaps.figures(of: line, marksMilliseconds: lapMarks, activity: track.summary.kind.activity)
            lapSource = "recorded"
        } else if !laps.isEmpty {
            lapSource = "device"
        }
    }

    /// The summary's keys, then the page's own in the same object.
    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stats, forKey: .stats)
        try container.encode(segments, forKey: .segments)
        try container.encodeIfPresent(simplifiedForZoom, forKey: .simplifiedForZoom)
        try container.encode(waypoints, forKey: .waypoints)
        try container.encode(splits, forKey: .splits)
        try container.encodeIfPresent(device, forKey: .device)
        try container.encode(laps, forKey: .laps)
        try container.encodeIfPresent(lapSource, forKey: .lapSource)
        try container.encode(efforts, forKey: .efforts)
    }
}

extension ProfilePayload: ResponseEncodable {}

/// `GET /api/tracks/totals`: `{"offsetMinutes", "week": {…}, "month": {…}, "year": {…}}`, each `{since,
/// trackCount, distanceMeters, movingSeconds, elapsedSeconds, ascentMeters}`.
struct TotalsPayload: ResponseEncodable {
    struct PeriodPayload: Encodable {
        var since: String
        var trackCount: Int
        var distanceMeters: Double
        var movingSeconds: Double
        var elapsedSeconds: Double
        var ascentMeters: Double
    }
    var offsetMinutes: Int
    var periods: [(CalendarPeriod, TrackTotals)]

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(offsetMinutes, forKey: Key(stringValue: "offsetMinutes"))
        for (period, totals) in periods {
            let since = GPXTime(date: totals.since, offset: .minutes(offsetMinutes)).rfc3339
            try container.encode(
                PeriodPayload(
                    since: since, trackCount: totals.trackCount, distanceMeters: totals.distanceMeters,
                    movingSeconds: totals.movingSeconds, elapsedSeconds: totals.elapsedSeconds, ascentMeters: totals.ascentMeters),
                forKey: Key(stringValue: period.rawValue))
        }
    }
}

/// `GET /api/tracks/{id}/cues`: the track's turns in order along it.
struct CueSheetPayload: ResponseEncodable {
    struct CuePayload: Encodable {
        var latitude: Double
        var longitude: Double
        /// Along the track from its start.
        var distanceMeters: Double
        var direction: TurnDirection
        var severity: TurnSeverity
        /// Change of heading, −180…180, positive to the right.
        var angleDegrees: Double
        /// "Turn right", "Slight left", "Make a U-turn".
        var text: String
        /// The distance from the previous cue (or the start) as spoken in the units asked for ("0.3 miles",
        /// "250 m"); null when it rounds to nothing.
        var fromPrevious: String?
    }
    var units: UnitSystem
    var cues: [CuePayload]
    /// With `line=1`: what a client needs to follow the route as the server does.
    var guide: RouteGuidePayload?

    init(cues: [Cue], units: UnitSystem) {
        self.units = units
        self.cues = cues.indices.map { index in
            let cue = cues[index]
            let previous = index == 0 ? 0 : cues[index - 1].distanceMeters
            return CuePayload(
                latitude: cue.coordinate.latitude, longitude: cue.coordinate.longitude, distanceMeters: cue.distanceMeters,
                direction: cue.direction, severity: cue.severity, angleDegrees: cue.angleDegrees,
                text: CueText.instruction(direction: cue.direction, severity: cue.severity),
                fromPrevious: CueDistance.spoken(meters: cue.distanceMeters - previous, units: units))
        }
    }
}

/// A route as a recording's `RouteFollower` walks it (`GET /api/tracks/{id}/cues?line=1`): the line, the distance
/// along it at each point (so that the client measures nothing again), and the follower's thresholds.
struct RouteGuidePayload: Encodable {
    /// `[latitude, longitude, metres along the route]` per point of the line.
    var line: [[Double]]
    var lengthMeters: Double
    var offRouteMeters: Double
    var poorAccuracyMeters: Double
    var uselessAccuracyMeters: Double
    var rejoinFraction: Double
    var lookBackMeters: Double
    var lookAheadMeters: Double
    var maximumSpeedMetersPerSecond: Double

    init(_ follower: RouteFollower) {
        line = zip(follower.routeVertices, follower.routeCumulativeMeters).map { [$0.latitude, $0.longitude, $1] }
        lengthMeters = follower.routeLengthMeters
        let configuration = follower.configuration
        offRouteMeters = configuration.offRouteMeters
        poorAccuracyMeters = configuration.poorAccuracyMeters
        uselessAccuracyMeters = configuration.uselessAccuracyMeters
        rejoinFraction = configuration.rejoinFraction
        lookBackMeters = configuration.lookBackMeters
        lookAheadMeters = configuration.lookAheadMeters
        maximumSpeedMetersPerSecond = configuration.maximumSpeedMetersPerSecond
    }
}
