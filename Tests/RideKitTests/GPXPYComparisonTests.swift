import Foundation
import Testing
import RideKit
import TestSupport

/// bikeride's figures next to gpxpy's on every well-formed fixture, with each real difference explained.
///
/// gpxpy (`Tests/tools/gpxpy_stats.py`, run once for all files) is asked with the ride's stopped speed
/// (3.6 km/h), so that moving times compare. A file must agree on its point count, and on distance within
/// 1 % and climb within 5 m or 10 % (5 m: the hysteresis threshold, a difference the method makes by
/// design), or say why not in `explainedDifferences`; an explanation for a file that agrees fails too, so
/// that the table stays true. Max speed and moving time are printed, not gated: the methods differ on
/// purpose (docs/stats.md). The same explanations, in words for users, are in docs/stats.md.
@Suite struct GPXPYComparisonTests {
    static let activity = ActivityKind.ride

    /// File → why its distance (over 1 %) or climb (over 5 m and 10 %) differs from gpxpy's. The figures
    /// quoted were measured with each filter of bikeride turned off in turn.
    static let explainedDifferences: [String: String] = [
        "gpx/coregpx/GPXTest-DualLinks.gpx": """
            Two fixes 1.6 m and two minutes apart: a receiver lying still. bikeride counts no movement within 5 m \
            of the last counted position; gpxpy adds the 1.6 m.
            """,
        "gpx/coregpx/GPXTest-TrackPointOnly.gpx": """
            A day in Tokyo on foot and by train, 5.4 of its 7.5 hours slower than 3.6 km/h. Distance: gpxpy adds \
            every wander of the fixes around where the walker stood; bikeride tells those stops from walking and \
            counts none of it (its smoothing, 5 m rule and stops leave out 12.5 km), and it drops single fixes \
            that jump impossibly far. Climb: the altitudes jump 10–15 m \
            from second to second (down to −37 m), so both figures are mostly noise; gpxpy averages every \
            altitude with its two neighbours, bikeride only among fixes within 10 m of each other, so on the \
            train, fixes up to 60 m apart, more of the noise passes bikeride's 5 m threshold.
            """,
        "gpx/georust-gpx/garmin-activity.gpx": """
            Climb: bikeride ignores rises and dips of less than 5 m (75 m of them in this run); gpxpy adds every \
            rise, however small.
            """,
        "gpx/georust-gpx/outdooractive-export.gpx": """
            Climb: a planned route of 9 points kilometres apart. gpxpy averages each point's elevation with its \
            neighbours kilometres away, which lowers the summits; bikeride smooths only fixes close together and \
            adds the climbs as written.
            """,
        "gpx/gpxgo/file.gpx": """
            The first two fixes, 25 s apart, are 1.7 m apart: standing still. bikeride measures from where the \
            rider stood; gpxpy adds the shuffle (0.7 m, 1.2 % of this 57 m track).
            """,
        "gpx/gpxpy/Mojstrovka.gpx": """
            A hike with fixes about 10 m apart and a few metres of scatter: bikeride's smoothing straightens the \
            zigzag the scatter draws (64 m); gpxpy adds it.
            """,
        "gpx/gpxpy/around-visnjan-with-car.gpx": """
            A car drive with 4 minutes of waiting: gpxpy adds 46 m of GPS wander while the car stands; bikeride \
            counts no movement within 5 m.
            """,
        "gpx/gpxpy/track-with-empty-segment.gpx": """
            The rider stops for the last 53 s and the fixes wander 1–6 m back and forth around one spot: gpxpy \
            adds each wander (12 m of this 86 m track); bikeride averages fixes that close and counts no movement \
            within 5 m.
            """,
        "gpx/opentracks/legacy_gpx_pause_resume.gpx": """
            Old OpenTracks versions wrote Pause and Resume as points at latitude 100 and 200. bikeride reads them \
            as the end of one segment and the start of the next, as OpenTracks does; gpxpy takes them as places \
            and travels to them and back (39,500 km).
            """,
        "gpx/jpx/ISSUE-82.gpx": """
            Climb: bikeride ignores rises and dips of less than 5 m (64 m of them in this ride); gpxpy adds every \
            rise, however small.
            """,
        "gpx/togeojson/Friday-Evening-Run.gpx": """
            Three short bursts of fixes 6 m apart: bikeride's smoothing straightens the zigzag of the scatter \
            (1 m, 1.1 % of 88 m); gpxpy adds it.
            """,
        "gpx/togeojson/strava.gpx": """
            Climb: three points kilometres apart (721 m, 1119 m, 592 m). gpxpy averages the middle elevation \
            with the two ends, which lowers the summit to 842 m (120 m of climb); bikeride adds the climb as \
            written (398 m).
            """,
        "gpx/togeojson/blue_hills.gpx": """
            Hikes with fixes about 20 m apart and pauses: bikeride's smoothing, its 5 m rule and its stops leave \
            out 1.1 km of zigzag and wander drawn by GPS scatter (gpxpy adds it).
            """,
    ]

    /// File → why its number of points differs from gpxpy's.
    static let explainedPointCounts: [String: String] = [
        "gpx/opentracks/legacy_gpx_pause_resume.gpx": """
            The points at latitude 100 and 200 are OpenTracks' old Pause and Resume markers, not positions: \
            bikeride turns them into a segment break, gpxpy counts them as points.
            """
    ]

    /// File → why gpxpy cannot read it (bikeride can).
    static let gpxpyCannotRead: [String: String] = [
        "gpx/georust-gpx/with_accuracy.gpx": """
            Its <fix> holds "something_not_in_the_spec": gpxpy refuses the file, bikeride keeps the text and \
            reads the points.
            """
    ]

    @Test(arguments: Fixtures.wellFormedGPX)
    func figuresAgreeWithGPXPYOrTheDifferenceIsExplained(_ file: String) throws {
        let reference = try GPXPY.figures.get()
        let gpxpy = try #require(reference[file], "gpxpy_stats.py printed nothing for \(file)")
        if let error = gpxpy.error {
            #expect(Self.gpxpyCannotRead[file] != nil, "gpxpy cannot read \(file) (\(error)): explain it in gpxpyCannotRead")
            return
        }
        #expect(Self.gpxpyCannotRead[file] == nil, "gpxpy now reads \(file): remove it from gpxpyCannotRead")
        let comparison = Comparison(file: file, gpxpy: gpxpy, ours: try Self.ours(file))

        if comparison.pointsDiffer {
            #expect(
                Self.explainedPointCounts[file] != nil,
                "\(file): \(comparison.ours.points) points, gpxpy \(comparison.gpxpyPoints): explain it in explainedPointCounts")
        } else {
            #expect(Self.explainedPointCounts[file] == nil, "\(file): point counts agree now: remove it from explainedPointCounts")
        }

        if comparison.differs {
            #expect(
                Self.explainedDifferences[file] != nil,
                """
                \(file): distance \(Int(comparison.ours.distance)) m vs gpxpy \(Int(comparison.gpxpyDistance)) m \
                (\(comparison.distancePercent)), climb \(Int(comparison.ours.climb)) m vs \(Int(comparison.gpxpyClimb)) m: \
                explain it in explainedDifferences and docs/stats.md
                """)
        } else {
            #expect(
                Self.explainedDifferences[file] == nil,
                "\(file): distance and climb agree with gpxpy now: remove it from explainedDifferences and docs/stats.md")
        }
    }

    /// Prints both tools' figures side by side, and checks that every explanation names a fixture.
    @Test func tableOfBothToolsFigures() throws {
        let reference = try GPXPY.figures.get()
        var rows = [["file", "points", "gpxpy m", "bikeride m", "Δ", "gpxpy up", "up", "gpxpy moving", "moving", "gpxpy max", "max", ""]]
        for file in Fixtures.wellFormedGPX {
            guard let gpxpy = reference[file], gpxpy.error == nil else {
                rows.append([Self.shortName(file), "gpxpy cannot read it"])
                continue
            }
            let comparison = Comparison(file: file, gpxpy: gpxpy, ours: try Self.ours(file))
            let ours = comparison.ours
            rows.append([
                Self.shortName(file),
                comparison.routesOnly
                    ? "\(ours.routePoints) rtept" : comparison.pointsDiffer ? "\(ours.points)/\(comparison.gpxpyPoints)" : "\(ours.points)",
                String(format: "%.0f", comparison.gpxpyDistance), String(format: "%.0f", ours.distance), comparison.distancePercent,
                String(format: "%.0f", comparison.gpxpyClimb), String(format: "%.0f", ours.climb),
                String(format: "%.0f", gpxpy.movingTime), String(format: "%.0f", ours.movingSeconds),
                String(format: "%.2f", gpxpy.maxSpeed), String(format: "%.2f", ours.maxSpeed),
                Self.explainedDifferences[file] != nil ? "explained" : "",
            ])
        }
        let widths = rows[0].indices.map { column in rows.filter { $0.count == rows[0].count }.map { $0[column].count }.max() ?? 0 }
        let lines = rows.map { row in
            row.count == widths.count
                ? row.enumerated().map { $1.padding(toLength: widths[$0], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                : row.joined(separator: "  ")
        }
        print("bikeride (ride) vs gpxpy \(GPXPY.version), distance in metres, speeds in m/s:\n" + lines.joined(separator: "\n"))

        let known = Set(Fixtures.wellFormedGPX)
        for (table, name) in [(Self.explainedDifferences, "explainedDifferences"), (Self.explainedPointCounts, "explainedPointCounts"),
                              (Self.gpxpyCannotRead, "gpxpyCannotRead")] {
            for file in table.keys where !known.contains(file) {
                Issue.record("\(name) lists \(file), which is not a well-formed fixture")
            }
        }
    }

    // MARK: - Figures

    /// What bikeride reports for a file, streamed as `bikeride stats` does.
    struct Ours {
        var points: Int
        var routePoints: Int
        var distance: Double
        var climb: Double
        var movingSeconds: Double
        var maxSpeed: Double
    }

    static func ours(_ file: String) throws -> Ours {
        var handler = GPXSummaryHandler(activity: activity)
        _ = try GPXReader.parse(contentsOf: Fixtures.url(file), into: &handler)
        let summary = handler.summary()
        return Ours(
            points: summary.points, routePoints: summary.routePoints, distance: summary.stats.distanceMeters,
            climb: summary.stats.ascentMeters, movingSeconds: summary.stats.movingSeconds,
            maxSpeed: summary.stats.maxSpeedMetersPerSecond)
    }

    static func shortName(_ file: String) -> String { String(file.dropFirst("gpx/".count)) }

    /// One file's figures from both tools, and whether they differ beyond the tolerances.
    struct Comparison {
        var file: String
        var gpxpy: GPXPY.Figures
        var ours: Ours

        /// gpxpy's length_2d and uphill count tracks only: a file of routes alone is compared with gpxpy's
        /// route figures, as bikeride measures the routes of such a file.
        var routesOnly: Bool { gpxpy.points == 0 && gpxpy.routePoints > 0 }
        var gpxpyPoints: Int { routesOnly ? gpxpy.routePoints : gpxpy.points }
        var gpxpyDistance: Double { routesOnly ? gpxpy.routeLength2D : gpxpy.length2D }
        var gpxpyClimb: Double { routesOnly ? gpxpy.routeUphill : gpxpy.uphill }
        var pointsDiffer: Bool { (routesOnly ? ours.routePoints : ours.points) != gpxpyPoints }

        var distanceDiffers: Bool { abs(ours.distance - gpxpyDistance) > 0.01 * gpxpyDistance }
        var climbDiffers: Bool {
            let difference = abs(ours.climb - gpxpyClimb)
            return difference > 5 && difference > 0.10 * gpxpyClimb
        }
        var differs: Bool { distanceDiffers || climbDiffers }

        var distancePercent: String {
            if gpxpyDistance == 0 { return ours.distance == 0 ? "0 %" : "–" }
            return String(format: "%+.1f %%", (ours.distance / gpxpyDistance - 1) * 100)
        }
    }
}

/// gpxpy's figures for every well-formed fixture, from one run of `Tests/tools/gpxpy_stats.py`.
enum GPXPY {
    struct Figures: Sendable {
        var error: String?
        var points = 0
        var routePoints = 0
        var length2D = 0.0
        var routeLength2D = 0.0
        var uphill = 0.0
        var routeUphill = 0.0
        var movingTime = 0.0
        var maxSpeed = 0.0
    }

    struct Unavailable: Error, CustomStringConvertible {
        var description: String
    }

    static let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "tools/gpxpy_stats.py")

    /// gpxpy's version, for the table's heading.
    static let version: String = {
        run(["-c", "import gpxpy; print(gpxpy.__version__)"]).map { String(decoding: $0.output, as: UTF8.self) }
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "?"
    }()

    /// Fixture path (as in `Fixtures.wellFormedGPX`) → figures.
    static let figures: Result<[String: Figures], Unavailable> = {
        let files = Fixtures.wellFormedGPX
        let stoppedKilometersPerHour = GPXPYComparisonTests.activity.stoppedSpeedMetersPerSecond * 3.6
        guard
            let result = run(
                [script.path, "--stopped-speed-kmh", String(stoppedKilometersPerHour)] + files.map { Fixtures.url($0).path })
        else {
            return .failure(Unavailable(description: "python3 cannot be started: run scripts/test.sh, which installs it and gpxpy"))
        }
        // 3: gpxpy is not importable; 127: no python3. Status 1 only says that gpxpy rejected a file.
        if result.status == 3 || result.status == 127 {
            return .failure(
                Unavailable(
                    description: result.status == 127
                        ? "python3 is missing: run scripts/test.sh, which installs it and gpxpy"
                        : "gpxpy is not importable by python3: run scripts/test.sh, which installs it"))
        }
        var figures: [String: Figures] = [:]
        for line in String(decoding: result.output, as: UTF8.self).split(separator: "\n") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let path = object["file"] as? String, let file = files.first(where: { Fixtures.url($0).path == path })
            else { continue }
            func number(_ key: String) -> Double { (object[key] as? NSNumber)?.doubleValue ?? 0 }
            figures[file] = Figures(
                error: object["error"] as? String, points: Int(number("points")), routePoints: Int(number("route_points")),
                length2D: number("length_2d"), routeLength2D: number("route_length_2d"), uphill: number("uphill"),
                routeUphill: number("route_uphill"), movingTime: number("moving_time"), maxSpeed: number("max_speed"))
        }
        if figures.isEmpty {
            return .failure(Unavailable(description: "gpxpy_stats.py printed no figures (status \(result.status)): \(result.error)"))
        }
        return .success(figures)
    }()

    /// Runs python3 with `arguments`; nil if it cannot be started.
    private static func run(_ arguments: [String]) -> (status: Int32, output: Data, error: String)? {
        // Standard error goes to a file, so that a chatty script cannot block on a full pipe while we read
        // standard output.
        let errorFile = FileManager.default.temporaryDirectory.appending(path: "bikeride-gpxpy-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil),
            let errorHandle = try? FileHandle(forWritingTo: errorFile)
        else { return nil }
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let process = TestProcess()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorHandle
        do { try process.run() } catch { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorHandle.close()
        let error = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        return (process.terminationStatus, data, error.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
