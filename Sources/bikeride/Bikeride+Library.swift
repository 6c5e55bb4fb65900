import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride list`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the tracks in the library, newest first.")

        @Flag(help: "Print a JSON array instead of a table.")
        var json = false

        @Option(help: "How many tracks at most (1–1000).")
        var limit = 50

        @Option(help: "Only tracks whose name contains this text.")
        var search: String?

        @OptionGroup var library: LibraryOptions

        func validate() throws {
            guard (1...TrackQuery.maximumLimit).contains(limit) else { throw ValidationError("--limit takes a number from 1 to 1000") }
        }

        func run() async throws {
            let library = try await library.open()
            let page = try await library.store.tracks(TrackQuery(search: search, limit: limit), userID: library.userID)
            if json {
                print(try encodeJSON(page))
                return
            }
            guard !page.tracks.isEmpty else {
                printError(search == nil ? "no tracks yet: bikeride import FILE.gpx" : "no track matches '\(search!)'")
                return
            }
            var rows = [["ID", "START", "NAME", "KIND", "DISTANCE", "CLIMB", "MOVING", "POINTS"]]
            for track in page.tracks {
                rows.append([
                    track.id.rawValue, Figures.start(track), track.name, track.kind.rawValue,
                    UnitSystem.metric.formatDistance(meters: track.distanceMeters), String(format: "%.0f m", track.ascentMeters),
                    Figures.duration(track.movingSeconds), "\(track.pointCount)",
                ])
            }
            print(renderTable(rows, rightAligned: [4, 5, 6, 7]))
            if page.nextCursor != nil { printError("(more: --limit \(min(limit * 2, 1000)))") }
        }
    }

    /// `bikeride show ID`
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one track: its figures and its splits.")

        @Argument(help: "The track's id, as `bikeride list` shows it.")
        var id: String

        @Flag(help: "Print JSON.")
        var json = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let trackID = try parseIDs([id], kind: "track")[0]
            let library = try await library.open()
            guard let track = try await library.store.track(id: trackID, userID: library.userID) else {
                printError("bikeride: no track with id \(trackID)")
                throw ExitCode.failure
            }
            if json {
                print(try encodeJSON(TrackDetailsJSON(summary: track.summary, stats: track.stats)))
                return
            }
            let summary = track.summary
            let stats = track.stats
            // TODO(units): speed (and climb) through UnitSystem once it formats them.
            var lines = [
                "\(summary.name)  (\(summary.id), \(summary.kind.rawValue))",
                "start      \(summary.startTime?.rfc3339 ?? "-")",
                "end        \(summary.endTime?.rfc3339 ?? "-")",
                "distance   \(UnitSystem.metric.formatDistance(meters: stats.distanceMeters))",
                "climb      \(String(format: "%.0f m up, %.0f m down", stats.ascentMeters, stats.descentMeters))",
                "time       \(Figures.duration(stats.movingSeconds)) moving, \(Figures.duration(stats.elapsedSeconds)) elapsed",
                "speed      \(String(format: "%.1f km/h average, %.1f km/h max", stats.averageSpeedMetersPerSecond * 3.6, stats.maxSpeedMetersPerSecond * 3.6))",
                "points     \(summary.pointCount) in \(summary.segmentCount) segments, \(summary.waypointCount) waypoints",
            ]
            if !stats.kilometerSplits.isEmpty {
                lines.append("splits")
                for split in stats.kilometerSplits {
                    let label = split.isPartial ? String(format: "%.2f km", split.distanceMeters / 1000) : "km \(split.index + 1)"
                    lines.append(
                        "  \(label.padding(toLength: 9, withPad: " ", startingAt: 0)) \(Figures.duration(split.durationSeconds ?? 0))  \(split.elevationChangeMeters.map { String(format: "%+.0f m", $0) } ?? "")")
                }
            }
            print(lines.joined(separator: "\n"))
        }
    }

    /// `bikeride rename ID NAME`
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a track.")

        @Argument(help: "The track's id.")
        var id: String

        @Argument(help: "The new name.")
        var name: String

        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the name cannot be empty") }
        }

        func run() async throws {
            let trackID = try parseIDs([id], kind: "track")[0]
            let library = try await library.open()
            do {
                let track = try await library.rename(trackID, to: name)
                print("\(track.id)  \(track.name)")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }

    /// `bikeride delete ID...`
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete tracks from the library (and their files in the documents folder).")

        @Argument(help: "The tracks' ids.")
        var ids: [String]

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let trackIDs = try parseIDs(ids, kind: "track")
            let library = try await library.open()
            let deleted = try await library.delete(trackIDs, permanently: true)
            for id in deleted { print("deleted \(id)") }
            let missing = trackIDs.filter { !deleted.contains($0) }
            for id in missing { printError("bikeride: no track with id \(id)") }
            if !missing.isEmpty { throw ExitCode.failure }
        }
    }

    /// `bikeride export [ID...] --to FILE|DIR`
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Export tracks (all of them when no id is given) to one file, or to one file per track in a folder.",
            discussion: "GPX 1.1 keeps everything that was imported: every field, extension, time offset and empty segment."
        )

        @Argument(help: "Track ids; none exports every track.")
        var ids: [String] = []

        @Option(help: "A file (all tracks in it), or a folder (one file per track; it is created if it ends with /).")
        var to: String

        @Option(help: "gpx, gpx436 or geojson (default: from --to's extension, else gpx).")
        var format: TrackFileFormat?

        @Flag(help: "Export the places as GPX waypoints (with their notes) instead of tracks.")
        var places = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let trackIDs = try parseIDs(ids, kind: places ? "place" : "track")
            let library = try await library.open()
            let destination = URL(filePath: to)
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory)
            let intoFolder = (exists && isDirectory.boolValue) || to.hasSuffix("/")
            let format = format ?? (intoFolder ? nil : TrackFileFormat(fileName: to)) ?? .gpx
            do {
                if places {
                    let document = try await library.placesDocument(trackIDs.isEmpty ? nil : trackIDs)
                    try GPXWriter.data(document).write(to: intoFolder ? destination.appending(path: "places.gpx") : destination, options: .atomic)
                    print("exported \(document.waypoints.count) places")
                    return
                }
                let selected = trackIDs.isEmpty ? try await library.allTrackIDs() : trackIDs
                guard !selected.isEmpty else {
                    printError("bikeride: the library has no tracks to export")
                    throw ExitCode.failure
                }
                if intoFolder {
                    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
                    let files = try await library.exportEach(selected, as: format, into: destination)
                    for file in files { print(file.path) }
                } else {
                    try await library.export(selected, as: format, to: destination)
                    print("exported \(selected.count) tracks to \(to)")
                }
            } catch let exit as ExitCode {
                throw exit
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }

    /// `bikeride sync`
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync the documents folder once: write saved tracks there as .gpx, import new or changed files from it.")

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            let report = try await library.sync()
            for (path, track) in report.imported { print("imported \(path) as \(track.id)") }
            for (path, track) in report.updated { print("updated \(track.id) from \(path)") }
            for (path, id) in report.written { print("wrote \(id) to \(path)") }
            for failure in report.failures { printError("bikeride: \(failure.path): \(failure.reason)") }
            printError(
                "\(library.documentsFolder?.path ?? "documents folder"): \(report.imported.count) imported, \(report.updated.count) updated, \(report.written.count) written, \(report.unchangedCount) unchanged, \(report.failures.count) failed")
            if !report.failures.isEmpty { throw ExitCode.failure }
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

/// JSON as the `--json` options print it: keys sorted, slashes as they are.
func encodeJSON<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
