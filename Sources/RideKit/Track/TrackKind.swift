/// What a saved track is, as the user sets it: an activity that was recorded, or a planned route.
///
/// A route has no recorded times worth measuring; its figures (distance, climb) are computed with the ride
/// thresholds, which only matter for moving time and speed.
public enum TrackKind: String, CaseIterable, Sendable, Codable {
    case ride, run, walk, route

    /// The thresholds the stats of this kind are computed with.
    public var activity: ActivityKind {
        switch self {
        case .ride, .route: return .ride
        case .run: return .run
        case .walk: return .walk
        }
    }

    /// The kind of a recorded activity.
    public init(activity: ActivityKind) {
        switch activity {
        case .ride: self = .ride
        case .run: self = .run
        case .walk: self = .walk
        }
    }

    /// The kind a GPX `type` names, as apps write it (`cycling`, `biking`, `Run`, `running`, `hiking` …), or nil.
    ///
    ///     TrackKind(gpxType: "Cycling")  // .ride
    public init?(gpxType: String) {
        let type = gpxType.lowercased()
        let words: [(TrackKind, [String])] = [
            (.ride, ["cycl", "bik", "ride", "riding", "bicycl", "velo"]),
            (.run, ["run", "jog"]),
            (.walk, ["walk", "hik", "trek"]),
        ]
        for (kind, stems) in words where stems.contains(where: { type.contains($0) }) {
            self = kind
            return
        }
        return nil
    }
}

extension TrackKind {
    /// The GPX `type` of this kind, as Garmin Connect and Strava write it (`cycling`, `running`, `walking`);
    /// nil for a route, which is no activity.
    public var gpxType: String? {
        switch self {
        case .ride: return "cycling"
        case .run: return "running"
        case .walk: return "walking"
        case .route: return nil
        }
    }
}

extension GPXDocument {
    /// Each `trk` says `kind` in its `type`: a `type` that already names this kind ("Road biking" for a ride)
    /// is kept as written, any other is replaced. A route changes nothing.
    ///
    ///     document.tracks[0].type = "running"; document.setActivityType(.ride)  // "cycling"
    public mutating func setActivityType(_ kind: TrackKind) {
        guard let type = kind.gpxType else { return }
        for index in tracks.indices {
            if let written = tracks[index].type, TrackKind(gpxType: written) == kind { continue }
            tracks[index].type = type
        }
    }
}

extension TrackKind {
    /// The kind of a file's tracks when the user did not say.
    ///
    /// A planned route when no track point has a time: a recording stamps its fixes, a planner (and a `rte`) does
    /// not, so a `trk` with even one timed point is a recording (loggers that lose times for a stretch, Garmin's
    /// MapSource that stamps a few points). A recording is the kind the first `trk` `type` naming one says, else a
    /// ride. A `type` does not make an untimed line a recording: a planner's "cycling" route is still a plan.
    ///
    ///     TrackKind.guessed(trackTypes: ["running"], hasTimedTrackPoint: true)   // .run
    ///     TrackKind.guessed(trackTypes: ["cycling"], hasTimedTrackPoint: false)  // .route
    public static func guessed(trackTypes: some Sequence<String?>, hasTimedTrackPoint: Bool) -> TrackKind {
        guard hasTimedTrackPoint else { return .route }
        for type in trackTypes {
            if let type, let kind = TrackKind(gpxType: type) { return kind }
        }
        return .ride
    }
}
