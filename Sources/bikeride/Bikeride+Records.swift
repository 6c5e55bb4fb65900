import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride records [--kind ride|run|walk] [--json] [--rebuild]`
    struct Records: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the best efforts over all tracks of a kind, with the track each comes from.",
            discussion: """
                The fastest times over 1, 5, 10, 20, 40, 50 and 100 km (rides and walks) or 400 m, 1 km, 1 mile, 5 km, \
                10 km, half marathon and marathon (runs), on moving time; the longest distance, most climb, longest moving \
                time and top speed; the best mean power and heart rate over 5 s to 60 min. With --json: the answer of \
                GET /api/records, {"kind", "records": [{key, rank, value, trackId, trackName, startTime, ...}]}, \
                the best and second best of each. Tracks saved before best efforts were measured (or measured by an \
                older version) get theirs first; --rebuild measures every track's again from its points.
                """)

        @Option(help: "ride, run or walk (default ride).")
        var kind: String = "ride"

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        @Flag(help: "Measure every track's best efforts again from its points before answering.")
        var rebuild = false

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            guard let kind = TrackKind(rawValue: kind), kind != .route else { throw ValidationError("--kind takes ride, run or walk") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let kind = TrackKind(rawValue: kind)!
            if rebuild { _ = try await library.mine.invalidateEfforts() }
            let measured = try await TrackLibrary.remeasureEfforts(in: library.store)
            if measured > 0 { printError("measured the best efforts of \(measured) track\(measured == 1 ? "" : "s")") }
            let records = try await library.mine.personalRecords(kind: kind)
            if json {
                struct Output: Encodable {
                    var kind: TrackKind
                    var records: [PersonalRecord]
                }
                print(try encodeJSON(Output(kind: kind, records: records)))
                return
            }
            guard !records.isEmpty else {
                printError("no \(kind.rawValue) with best efforts yet")
                return
            }
            var rows = [["EFFORT", "BEST", "VALUE", "TRACK", "NAME", "DATE"]]
            for record in records {
                rows.append([
                    record.key.rawValue, record.rank == 1 ? "PR" : "2nd", Self.format(record.value, record.key.measure), record.trackID.rawValue,
                    record.trackName, String((record.startTime ?? "").prefix(10)),
                ])
            }
            print(renderTable(rows, rightAligned: [2]))
        }

        static func format(_ value: Double, _ measure: EffortKey.Measure) -> String {
            switch measure {
            case .time, .duration: return Figures.duration(value)
            case .distance: return UnitSystem.metric.formatDistance(meters: value)
            case .climb: return UnitSystem.metric.formatElevation(meters: value)
            case .speed: return String(format: "%.1f km/h", value * 3.6)
            case .power: return String(format: "%.0f W", value)
            case .heartRate: return String(format: "%.0f bpm", value)
            }
        }
    }

    /// `bikeride overview [--year Y] [--kind K] [--json]`
    struct Overview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a year at a glance: totals, months, the year against the last, goals and the Eddington number.",
            discussion: "With --json: the answer of GET /api/overview (totals per week, month and year, the calendar, ...).")

        @Option(help: "The year (default: this year, in UTC).")
        var year: Int?

        @Option(help: "Only this kind: ride, run or walk.")
        var kind: String?

        @Flag(help: "Print JSON instead of a summary.")
        var json = false

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            if let year, !(1900...2200).contains(year) { throw ValidationError("--year takes a year from 1900 to 2200") }
            if let kind, TrackKind(rawValue: kind) == nil || kind == "route" { throw ValidationError("--kind takes ride, run or walk") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let today = RideKit.Overview.day(of: Date().timeIntervalSince1970, utcOffsetMinutes: 0)
            let overview = try await library.overview(
                year: year ?? RideKit.Overview.year(ofDay: today), kind: kind.flatMap(TrackKind.init(rawValue:)), today: today)
            let explorer = try await library.explorerSummary(year: overview.year, kind: kind.flatMap(TrackKind.init(rawValue:)))
            if json {
                /// As `GET /api/overview` answers.
                struct Output: Encodable {
                    var overview: RideKit.Overview
                    var explorer: ExplorerSummary?
                    func encode(to encoder: any Encoder) throws {
                        try overview.encode(to: encoder)
                        enum Keys: String, CodingKey { case explorer }
                        var container = encoder.container(keyedBy: Keys.self)
                        try container.encode(explorer, forKey: .explorer)
                    }
                }
                print(try encodeJSON(Output(overview: overview, explorer: explorer)))
                return
            }
            let units = UnitSystem.metric
            var rows = [["PERIOD", "KIND", "COUNT", "DISTANCE", "MOVING", "CLIMB"]]
            for period in [overview.totals] + overview.months {
                for totals in period.kinds {
                    rows.append([
                        period.label, totals.kind.rawValue, "\(totals.count)", units.formatDistance(meters: totals.distanceMeters),
                        Figures.duration(totals.movingSeconds), units.formatElevation(meters: totals.ascentMeters),
                    ])
                }
            }
            print(renderTable(rows, rightAligned: [2, 3, 4, 5]))
            print("")
            let thisYear = overview.thisYearByWeek.last ?? 0, lastYear = overview.lastYearByWeek.last ?? 0
            print("this year \(units.formatDistance(meters: thisYear)), last year \(units.formatDistance(meters: lastYear)) (by ISO week)")
            for goal in overview.goals {
                let done = goal.measure == "time" ? Figures.duration(goal.done) : units.formatDistance(meters: goal.done)
                let target = goal.measure == "time" ? Figures.duration(goal.target) : units.formatDistance(meters: goal.target)
                print("goal \(goal.kind.rawValue) this week (from \(goal.weekStart)): \(done) of \(target) (\(Int((goal.fraction * 100).rounded())) %)")
            }
            print(
                "Eddington number: \(overview.eddingtonKilometers.number) km (\(overview.eddingtonKilometers.daysToNext) more days for the next), "
                    + "\(overview.eddingtonMiles.number) mi")
            if let explorer {
                print(
                    "explorer tiles: \(explorer.tileCount) (\(explorer.tilesThisYear) ridden in \(explorer.year), \(explorer.newThisYear) new), "
                        + "largest square \(explorer.maxSquareSize)×\(explorer.maxSquareSize), largest cluster \(explorer.maxClusterSize)")
            }
        }
    }
}
