import Foundation
import Hummingbird
import RideKit
import RideStore

/// Issue 22, across all rides: `GET /api/records`, `GET /api/overview`, `GET|PUT /api/settings/goal`. Everything is
/// computed from the store's own figures (best efforts stored per track, the tracks' rows), never from points.
struct AcrossRidesController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary

    /// Years the overview answers for.
    static var years: ClosedRange<Int> { 1900...2200 }

    func addRoutes(to router: Router<Context>) {
        router.get("api/records") { request, context in try await records(library.scoped(to: context), request) }
        router.get("api/overview") { request, context in try await overview(library.scoped(to: context), request) }
        router.get("api/settings/goal") { _, context in
            let library = try library.scoped(to: context)
            return GoalsPayload(goals: try await library.mine.weeklyGoals().map(GoalPayload.init))
        }
        router.put("api/settings/goal") { request, context in try await setGoal(library.scoped(to: context), request) }
    }

    /// `kind` of the query: one of ride, run, walk (a route is a plan, no records or goals); `fallback` when absent.
    static func kind(_ request: Request, fallback: TrackKind?) throws -> TrackKind? {
        guard let text = request.uri.queryParameters["kind"].map(String.init), !text.isEmpty else { return fallback }
        guard let kind = TrackKind(rawValue: text), kind != .route else {
            throw APIError.badRequest("invalid_value", "kind must be ride, run or walk, not \"\(text.prefix(32))\"")
        }
        return kind
    }

    /// `GET /api/records?kind=ride`: the best and second best of each effort over the rider's tracks of that kind.
    func records(_ library: TrackLibrary, _ request: Request) async throws -> RecordsPayload {
        let kind = try Self.kind(request, fallback: .ride)!
        let records = try await library.mine.personalRecords(kind: kind)
        return RecordsPayload(kind: kind, records: records.map(RecordPayload.init))
    }

    /// `GET /api/overview?year=YYYY[&kind=ride][&offset=MINUTES]`: `Overview` of that year (default: this year),
    /// `offset` the rider's zone for "this week" of the goals (minutes east of UTC, as the browser says).
    func overview(_ library: TrackLibrary, _ request: Request) async throws -> OverviewPayload {
        let parameters = request.uri.queryParameters
        var offset = 0
        if let text = parameters["offset"] {
            guard let value = Int(String(text)), (-14 * 60...14 * 60).contains(value) else {
                throw APIError.badRequest("invalid_value", "offset must be minutes east of UTC, from -840 to 840")
            }
            offset = value
        }
        let today = Overview.day(of: Date().timeIntervalSince1970, utcOffsetMinutes: offset)
        var year = Overview.year(ofDay: today)
        if let text = parameters["year"] {
            guard let value = Int(String(text)), Self.years.contains(value) else {
                throw APIError.badRequest("invalid_value", "year must be a year from \(Self.years.lowerBound) to \(Self.years.upperBound)")
            }
            year = value
        }
        let kind = try Self.kind(request, fallback: nil)
        let overview = try await library.overview(year: year, kind: kind, today: today)
        return OverviewPayload(kind: kind, overview: overview, explorer: try await library.explorerSummary(year: year, kind: kind))
    }

    /// `PUT /api/settings/goal` `{"kind": "ride", "measure": "distance"|"time", "target": metres|seconds}`; a
    /// `target` of null removes the goal. A negative, zero or absurd target (over 10,000 km or 168 h a week) is 400.
    func setGoal(_ library: TrackLibrary, _ request: Request) async throws -> GoalsPayload {
        let body = try await PlacesController<Context>.decode(GoalRequest.self, request)
        guard let kind = TrackKind(rawValue: body.kind), kind != .route else {
            throw APIError.badRequest("invalid_value", "kind must be ride, run or walk")
        }
        var goal: WeeklyGoal?
        if let target = body.target {
            guard let measure = WeeklyGoal.Measure(rawValue: body.measure ?? "distance") else {
                throw APIError.badRequest("invalid_value", "measure must be distance or time")
            }
            goal = WeeklyGoal(kind: kind, measure: measure, target: target)
        }
        do {
            try await library.mine.setWeeklyGoal(goal, kind: kind)
        } catch RideStoreError.invalid(let field, let reason) {
            throw APIError.badRequest("invalid_value", "\(field) \(reason)")
        }
        return GoalsPayload(goals: try await library.mine.weeklyGoals().map(GoalPayload.init))
    }
}

struct GoalRequest: Decodable {
    var kind: String
    var measure: String?
    var target: Double?
}

/// A weekly goal: `{kind, measure, target}` (metres or seconds).
struct GoalPayload: Encodable {
    var kind: TrackKind
    var measure: String
    var target: Double

    init(_ goal: WeeklyGoal) {
        kind = goal.kind
        measure = goal.measure.rawValue
        target = goal.target
    }
}

struct GoalsPayload: ResponseEncodable {
    var goals: [GoalPayload]
}

/// One record: `{key, measure, rank, label, value, start?, end?, trackId, trackName, startTime?}`.
struct RecordPayload: Encodable {
    var key: EffortKey
    var measure: EffortKey.Measure
    var rank: Int
    var label: String
    var value: Double
    var start: Double?
    var end: Double?
    var trackId: TrackID
    var trackName: String
    var startTime: String?

    init(_ record: PersonalRecord) {
        key = record.key
        measure = record.key.measure
        rank = record.rank
        label = EffortPayload.label(rank: record.rank) ?? ""
        value = record.value
        start = record.start
        end = record.end
        trackId = record.trackID
        trackName = record.trackName
        startTime = record.startTime
    }
}

struct RecordsPayload: ResponseEncodable {
    var kind: TrackKind
    var records: [RecordPayload]
}

/// A track's effort on its page: `{key, measure, value, start?, end?, rank, label?}` (`label` "PR" or "2nd best").
struct EffortPayload: Encodable {
    var key: EffortKey
    var measure: EffortKey.Measure
    var value: Double
    var start: Double?
    var end: Double?
    var rank: Int
    var label: String?

    init(_ ranked: RankedEffort) {
        key = ranked.effort.key
        measure = ranked.effort.key.measure
        value = ranked.effort.value
        start = ranked.effort.start
        end = ranked.effort.end
        rank = ranked.rank
        label = Self.label(rank: ranked.rank)
    }

    static func label(rank: Int) -> String? {
        switch rank {
        case 1: return "PR"
        case 2: return "2nd best"
        default: return nil
        }
    }
}

/// `GET /api/overview`: the `Overview` as it encodes, with the kind it was filtered by.
/// `explorer`: the year's explorer tiles (`ExplorerSummary`), null while the heatmap's index is being built.
struct OverviewPayload: ResponseEncodable {
    var kind: TrackKind?
    var overview: Overview
    var explorer: ExplorerSummary?

    func encode(to encoder: any Encoder) throws {
        try overview.encode(to: encoder)
        enum Keys: String, CodingKey { case kind, explorer }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeIfPresent(kind, forKey: .kind)
        try container.encode(explorer, forKey: .explorer)
    }
}
