import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride show ID`
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one track: its figures and its splits.")

        @Argument(help: "The track's id, as `bikeride list` shows it.")
        var id: String

        @Flag(help: "Print JSON.")
        var json = false

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let trackID: TrackID = try parseIDs([id], kind: "track")[0]
            let library = try await owner.scoped(library.open())
            guard let track = try await library.mine.track(id: trackID) else {
                printError("bikeride: no track with id \(trackID)")
                throw ExitCode.failure
            }
            if json {
                print(try encodeJSON(TrackDetailsJSON(summary: track.summary, stats: track.stats)))
                return
            }
            let summary = track.summary
            let stats = track.stats
            let units = UnitSystem.metric
            var lines = [
                "\(summary.name)  (\(summary.id), \(summary.kind.rawValue))",
                "start      \(summary.startTime?.rfc3339 ?? "-")",
                "end        \(summary.endTime?.rfc3339 ?? "-")",
                "distance   \(units.formatDistance(meters: stats.distanceMeters))",
                "climb      \(units.formatElevation(meters: stats.ascentMeters)) up, \(units.formatElevation(meters: stats.descentMeters)) down",
                "time       \(Figures.duration(stats.movingSeconds)) moving, \(Figures.duration(stats.elapsedSeconds)) elapsed",
                "speed      \(units.formatSpeed(metersPerSecond: stats.averageSpeedMetersPerSecond)) average, \(units.formatSpeed(metersPerSecond: stats.maxSpeedMetersPerSecond)) max",
                "points     \(summary.pointCount) in \(summary.segmentCount) segments, \(summary.waypointCount) waypoints",
            ]
            if !stats.kilometerSplits.isEmpty {
                lines.append("splits")
                for split in stats.kilometerSplits {
                    let label = split.isPartial ? String(format: "%.2f km", split.distanceMeters / 1000) : "km \(split.index + 1)"
                    lines.append(
                        "  \(label.padding(toLength: 9, withPad: " ", startingAt: 0)) \(Figures.duration(split.durationSeconds ?? 0))  \(split.climbMeters.map { String(format: "%.0f m up", $0) } ?? "")")
                }
            }
            print(lines.joined(separator: "\n"))
        }
    }
}

/// A track as `bikeride show --json` prints it: its row (`TrackSummary`'s keys, those of `list --json` and
/// the API) and every figure, splits included, under `stats`.
struct TrackDetailsJSON: Encodable {
    var summary: TrackSummary
    var stats: TrackStats

    private enum CodingKeys: String, CodingKey { case stats }

    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stats, forKey: .stats)
    }
}
