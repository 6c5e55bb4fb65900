import ArgumentParser
import Foundation
import RideKit

extension Bikeride {
    /// `bikeride stats FILE...`
    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Distance, climb, time and speed of GPX, FIT and TCX (and .gpx436, GeoJSON) files.",
            discussion: """
                GPX files are streamed: a file of any size is summarised in a few MiB of memory. A file that cannot be \
                read is reported as FILE:LINE:COLUMN: problem (FILE: FIT, byte N: problem for FIT); the other files are \
                still summarised, and the exit code is 1. For a device's file (FIT, TCX) --json adds the device's own \
                totals (`device`) and laps beside bikeride's figures.
                """
        )

        @Argument(help: "Files to summarise; - reads standard input.")
        var files: [String]

        @Flag(help: "Print one JSON object per file, one per line.")
        var json = false

        @Option(help: "The kind of activity, which sets the speed below which the rider counts as stopped (ride, run, walk).")
        var activity: ActivityKind = .ride

        @Option(help: "Units of the table: metric or imperial.")
        var units: UnitSystem = .metric

        @OptionGroup var read: ReadOptions

        func validate() throws {
            if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        }

        func run() throws {
            var failed = false
            var rows: [(String, GPXSummary)] = []
            for path in files {
                do {
                    let (summary, device) = try summarize(path)
                    if json {
                        print(StatsJSON.line(file: path, summary: summary, device: device))
                    } else {
                        rows.append((path, summary))
                    }
                    if !summary.report.isClean {
                        let report = summary.report
                        printError(
                            "\(TrackFileReader.displayName(path)): lenient reading dropped \(report.droppedPoints) points and \(report.droppedValues) values, skipped \(report.skippedElements) elements")
                    }
                } catch {
                    failed = true
                    printError("bikeride: \(error)")
                }
            }
            if !json && !rows.isEmpty { print(StatsTable(units: units).render(rows)) }
            if failed { throw ExitCode.failure }
        }

        private func summarize(_ path: String) throws(FileError) -> (GPXSummary, DeviceActivity?) {
            // Standard input is read as GPX (it cannot be looked at twice); a file by the one rule, content first.
            let format = path == "-" ? .gpx : TrackFileFormat(head: Self.head(of: path), fileName: path)
            if let format, format.isDeviceFormat {
                let device = try TrackFileReader.deviceActivity(at: path, format: format, lenient: read.lenient)
                // The device's sport, unless --activity says otherwise.
                var handler = GPXSummaryHandler(activity: activityGiven ? activity : device.kind?.activity ?? activity)
                device.document.replay(into: &handler)
                return (handler.summary(report: GPXReadReport()), device)
            }
            var handler = GPXSummaryHandler(activity: activity)
            if format == .gpx {
                let report = try TrackFileReader.stream(path, into: &handler, lenient: read.lenient)
                return (handler.summary(report: report), nil)
            }
            let (document, report) = try TrackFileReader.document(at: path, format: format, lenient: read.lenient)
            document.replay(into: &handler)
            return (handler.summary(report: report), nil)
        }

        /// Whether --activity was given (a device's file otherwise says its own sport).
        private var activityGiven: Bool { CommandLine.arguments.contains { $0 == "--activity" || $0.hasPrefix("--activity=") } }

        /// The first bytes of a file, for `TrackFileFormat(head:fileName:)`; none when it cannot be read (the
        /// reader then says why).
        private static func head(of path: String) -> [UInt8] {
            guard let file = FileHandle(forReadingAtPath: path) else { return [] }
            defer { try? file.close() }
            return (try? file.read(upToCount: TrackFileFormat.headByteCount)).map { [UInt8]($0) } ?? []
        }
    }
}

extension ActivityKind: ExpressibleByArgument {}

extension UnitSystem: ExpressibleByArgument {}

/// The `--json` line of `bikeride stats`.
enum StatsJSON {
    static func line(file: String, summary: GPXSummary, device: DeviceActivity? = nil) -> String {
        let stats = summary.stats
        var object: [String: Any] = [
            "file": file,
            "tracks": summary.tracks,
            "segments": summary.segments,
            "points": summary.points,
            "waypoints": summary.waypoints,
            "routes": summary.routes,
            "routePoints": summary.routePoints,
            "distanceMeters": stats.distanceMeters,
            "ascentMeters": stats.ascentMeters,
            "descentMeters": stats.descentMeters,
            "altitudeKind": stats.altitudeKind?.rawValue ?? NSNull(),
            "elapsedSeconds": stats.elapsedSeconds,
            "movingSeconds": stats.movingSeconds,
            "movingDistanceMeters": stats.movingDistanceMeters,
            "stoppedSeconds": stats.stoppedSeconds,
            "maxSpeedMetersPerSecond": stats.maxSpeedMetersPerSecond,
            "averageSpeedMetersPerSecond": stats.averageSpeedMetersPerSecond,
            "activity": stats.activity.rawValue,
            "startTime": stats.startTime.map { $0.rfc3339 as Any } ?? NSNull(),
            "endTime": stats.endTime.map { $0.rfc3339 as Any } ?? NSNull(),
            "minElevationMeters": stats.minElevationMeters.map { $0 as Any } ?? NSNull(),
            "maxElevationMeters": stats.maxElevationMeters.map { $0 as Any } ?? NSNull(),
            "droppedPoints": summary.report.droppedPoints,
        ]
        if let bounds = stats.bounds {
            object["bounds"] = [
                "minLatitude": bounds.minLatitude, "minLongitude": bounds.minLongitude,
                "maxLatitude": bounds.maxLatitude, "maxLongitude": bounds.maxLongitude,
            ]
        } else {
            object["bounds"] = NSNull()
        }
        if let pace = stats.averageMovingPaceSecondsPerKilometer { object["averagePaceSecondsPerKilometer"] = pace }
        if let device {
            object["device"] = device.totals.map(figures) ?? NSNull()
            object["laps"] = device.laps.map(figures)
            object["kind"] = device.kind?.rawValue ?? NSNull()
            if !device.warnings.isEmpty { object["warnings"] = device.warnings }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}

extension StatsJSON {
    /// A device's figures as JSON: what it gave, null where it gave nothing.
    static func figures(_ figures: DeviceFigures) -> [String: Any] {
        func value(_ number: Double?) -> Any { number.map { $0 as Any } ?? NSNull() }
        return [
            "startTime": figures.startTime.map { $0.rfc3339 as Any } ?? NSNull(),
            "distanceMeters": value(figures.distanceMeters), "timerSeconds": value(figures.timerSeconds),
            "elapsedSeconds": value(figures.elapsedSeconds), "ascentMeters": value(figures.ascentMeters),
            "descentMeters": value(figures.descentMeters), "averageSpeedMetersPerSecond": value(figures.averageSpeedMetersPerSecond),
            "maxSpeedMetersPerSecond": value(figures.maxSpeedMetersPerSecond), "averageHeartRate": value(figures.averageHeartRate),
            "maxHeartRate": value(figures.maxHeartRate), "averageCadence": value(figures.averageCadence),
            "averagePowerWatts": value(figures.averagePowerWatts), "maxPowerWatts": value(figures.maxPowerWatts),
            "calories": value(figures.calories),
        ]
    }
}

/// The human-readable table of `bikeride stats`.
struct StatsTable {
    var units: UnitSystem

    func render(_ rows: [(String, GPXSummary)]) -> String {
        let header = ["FILE", "TRACKS", "POINTS", "DISTANCE", "CLIMB", "DESCENT", "MOVING", "ELAPSED", "AVG", "MAX", "START"]
        var table = [header]
        for (file, summary) in rows {
            let stats = summary.stats
            table.append([
                TrackFileReader.displayName(file), "\(summary.tracks)", "\(summary.points + summary.routePoints)",
                distance(stats.distanceMeters), height(stats.ascentMeters), height(stats.descentMeters),
                duration(stats.movingSeconds), duration(stats.elapsedSeconds), speed(stats.averageSpeedMetersPerSecond),
                speed(stats.maxSpeedMetersPerSecond), stats.startTime?.rfc3339 ?? "-",
            ])
        }
        let widths = header.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { row in
            row.enumerated().map { column, cell in
                // Text left, figures right.
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 || column == row.count - 1 ? cell + padding : padding + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    // Figures through RideKit's one formatter; "-" where there is no figure.

    func distance(_ meters: Double) -> String { units.formatDistance(meters: meters, smallUnits: false) }

    func height(_ meters: Double) -> String { units.formatElevation(meters: meters) }

    func speed(_ metersPerSecond: Double) -> String {
        guard metersPerSecond.isFinite, metersPerSecond > 0 else { return "-" }
        return units.formatSpeed(metersPerSecond: metersPerSecond)
    }

    func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "-" }
        return UnitSystem.formatDuration(seconds: seconds)
    }
}
