import Foundation
import RideKit

/// One of the best efforts over a user's tracks of one kind: the best (`rank` 1) or second best (2) of its key,
/// with the track it comes from.
public struct PersonalRecord: Sendable, Hashable, Codable {
    public var key: EffortKey
    public var rank: Int
    public var value: Double
    public var start: Double?
    public var end: Double?
    public var trackID: TrackID
    public var trackName: String
    /// The track's first time as written (RFC 3339), nil for a track without times.
    public var startTime: String?

    public init(key: EffortKey, rank: Int, value: Double, start: Double?, end: Double?, trackID: TrackID, trackName: String, startTime: String?) {
        self.key = key
        self.rank = rank
        self.value = value
        self.start = start
        self.end = end
        self.trackID = trackID
        self.trackName = trackName
        self.startTime = startTime
    }
}

/// A track's best effort with its place among the user's tracks of its kind that started before it or with it
/// (deleted ones left out): 1 is a personal record when it was ridden, 2 the second best.
public struct RankedEffort: Sendable, Hashable, Codable {
    public var effort: BestEffort
    public var rank: Int

    public init(effort: BestEffort, rank: Int) {
        self.effort = effort
        self.rank = rank
    }
}

/// A weekly goal for one kind of activity: a distance (metres) or a moving time (seconds) per ISO week.
public struct WeeklyGoal: Sendable, Hashable, Codable {
    public enum Measure: String, Sendable, Hashable, Codable, CaseIterable {
        case distance, time
    }

    public var kind: TrackKind
    public var measure: Measure
    /// Metres for a distance, seconds for a time.
    public var target: Double

    public init(kind: TrackKind, measure: Measure, target: Double) {
        self.kind = kind
        self.measure = measure
        self.target = target
    }
}

/// What the overview needs of a saved track: its kind, when it started and its main figures (no points).
public struct OverviewTrack: Sendable, Hashable {
    public var id: TrackID
    public var kind: TrackKind
    /// The first time as written (RFC 3339).
    public var startTime: String
    /// The middle of the track's bounds, for the local day of a track written in UTC (`LocalStartTime`: the time
    /// zone there).
    public var latitude: Double?
    public var longitude: Double?
    public var distanceMeters: Double
    public var movingSeconds: Double
    public var ascentMeters: Double

    public init(
        id: TrackID, kind: TrackKind, startTime: String, latitude: Double? = nil, longitude: Double?, distanceMeters: Double, movingSeconds: Double,
        ascentMeters: Double
    ) {
        self.id = id
        self.kind = kind
        self.startTime = startTime
        self.latitude = latitude
        self.longitude = longitude
        self.distanceMeters = distanceMeters
        self.movingSeconds = movingSeconds
        self.ascentMeters = ascentMeters
    }
}

/// The store's side of everything across rides: records, ranks, goals and the overview's rows.
public protocol AcrossRidesStore {
    /// The best and second best of each effort over the user's saved tracks of `kind` (deleted ones left out), in
    /// `EffortKey` order then rank. One indexed query over the stored efforts, no points read.
    func personalRecords(kind: TrackKind, userID: UserID) async throws -> [PersonalRecord]
    /// The efforts of one track, each with its rank among the tracks of its kind started before it or with it.
    /// Empty for another user's track or one that does not exist.
    func rankedEfforts(trackID: TrackID, userID: UserID) async throws -> [RankedEffort]
    /// Every saved track with a time that is not a route, for the overview, oldest first.
    func overviewTracks(userID: UserID) async throws -> [OverviewTrack]
    /// The user's weekly goals, one per kind at most.
    func weeklyGoals(userID: UserID) async throws -> [WeeklyGoal]
    /// Sets (or, with nil, removes) the weekly goal of `kind`; `GoalRules.validate` first.
    func setWeeklyGoal(_ goal: WeeklyGoal?, kind: TrackKind, userID: UserID) async throws
    /// Measures again the best efforts of up to `limit` saved tracks (of any user) whose efforts are missing or older
    /// than `BestEfforts.currentVersion`, each read, measured and written in turn (one track in memory, one short
    /// transaction each); returns how many were looked at, 0 when none is left. A track changed meanwhile is left for
    /// the next call. Running it twice, or on two instances at once, gives the same rows.
    func remeasureEfforts(limit: Int) async throws -> Int
    /// Marks every track of the user for measuring again (`bikeride records --rebuild`); returns how many.
    func invalidateEfforts(userID: UserID) async throws -> Int
}
