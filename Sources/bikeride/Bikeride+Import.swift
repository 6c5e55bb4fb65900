import ArgumentParser
import Foundation
import RideKit
import RideStore

extension TrackKind: ExpressibleByArgument {}

extension Bikeride {
    /// `bikeride import PATH...`
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Import GPX, FIT, TCX, .gpx436 and GeoJSON files, whole folders, or zip archives into the library.",
            discussion: """
                Each file is one transaction: a file that fails leaves nothing behind, and the others go on. A file \
                imported before (same content) is skipped unless --force. On a terminal a progress bar shows files, \
                points and rate; otherwise one line per file. A zip archive (a Strava bulk export, or any zip of track \
                files) imports every track file it holds, one transaction each; a Strava export's activities.csv names \
                them and sets their kind and description. A bikeride export (export-all, GET /api/export) gives back its \
                tracks, places with notes and photos, labels and settings, each entry checked against its manifest's \
                SHA-256. The same archive again adds nothing and says so.
                """
        )

        @Argument(help: "Files, folders (walked for .gpx, .fit, .tcx, their .gz, .gpx436 and .geojson files) or .zip archives.")
        var paths: [String]

        @Flag(help: "Make one track of each file instead of one per GPX <trk>.")
        var oneTrack = false

        @Flag(help: "Also make a place of each GPX waypoint (a file with only waypoints then makes only places).")
        var waypointsAsPlaces = false

        @Flag(help: "Import files even when the same content was imported before.")
        var force = false

        @Option(help: "The kind of the new tracks (ride, run, walk, route); default: from the file, else ride.")
        var kind: TrackKind?

        @OptionGroup var read: ReadOptions
        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let options = ImportOptions(
                oneTrackPerFile: oneTrack, kind: kind, waypointsAsPlaces: waypointsAsPlaces, allowsDuplicates: force,
                lenient: read.lenient)
            var archivesFailed = false
            let archives = paths.filter(Self.isArchive)
            for path in archives {
                do {
                    let terminal = isatty(STDERR_FILENO) == 1
                    let archive = try await library.importArchive(at: URL(filePath: path), options: options) { progress in
                        // "312 of 2,041", redrawn in place on a terminal, every 100 files otherwise.
                        guard terminal || progress.filesDone % 100 == 0 || progress.filesDone == progress.filesTotal else { return }
                        let line = "\(path): \(progress.filesDone.formatted()) of \(progress.filesTotal.formatted())"
                        FileHandle.standardError.write(Data((terminal ? "\r\u{1B}[K" + line : line + "\n").utf8))
                    }
                    if terminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    for track in archive.tracks {
                        print("\(track.id)  \(track.name)  \(UnitSystem.metric.formatDistance(meters: track.distanceMeters))  \(track.pointCount) points  (\(path))")
                    }
                    if let restored = archive.libraryImport {
                        // A bikeride export: what its manifest lists, and that every entry used matched its SHA-256.
                        let counts = restored.manifest.counts
                        print(
                            "\(path): a bikeride export of \(counts.tracks) tracks (\(counts.points) points), \(counts.places) places (\(counts.notes) notes, \(counts.photos) photos), \(counts.labels) labels")
                        for entry in restored.manifest.entries { print("\(entry.sha256)  \(entry.path)") }
                    }
                    for failure in archive.failures { printError("bikeride: \(path): \(failure)") }
                    printError("\(path): \(archive.message)")
                    if !archive.failures.isEmpty { archivesFailed = true }
                } catch {
                    printError("bikeride: \(error)")
                    archivesFailed = true
                }
            }
            let others = paths.filter { !Self.isArchive($0) }
            if others.isEmpty {
                if archivesFailed { throw ExitCode.failure }
                return
            }
            let bar = ProgressBar(enabled: isatty(STDERR_FILENO) == 1)
            let report = await library.importPaths(others.map { URL(filePath: $0) }, options: options) { progress in
                bar.update(progress)
            }
            bar.finish()
            for outcome in report.outcomes {
                switch outcome.result {
                case .duplicate(let existing):
                    print("\(outcome.path): already imported as \(existing.map(\.rawValue).joined(separator: ", ")) (--force imports it again)")
                case .imported(_, let tracks, let places):
                    for track in tracks {
                        print("\(track.id)  \(track.name)  \(UnitSystem.metric.formatDistance(meters: track.distanceMeters))  \(track.pointCount) points  (\(outcome.path))")
                    }
                    if !places.isEmpty { print("\(outcome.path): \(places.count) places made of its waypoints") }
                    // What --lenient left out: one line a kind, at the place of the first.
                    let report = outcome.readReport
                    for kind in GPXReadWarning.Kind.allCases {
                        guard let count = report.counts[kind], count > 0 else { continue }
                        let first = report.warnings.first { $0.kind == kind }
                        let place = first.map { ":\($0.line):\($0.column)" } ?? ""
                        let sentence = GPXReadWarning.sentence(kind: kind, count: count, firstDetail: first?.detail ?? "it is not valid GPX")
                        printError("bikeride: \(outcome.path)\(place): warning: \(sentence)")
                    }
                }
            }
            for failure in report.failures {
                // FILE:LINE:COLUMN: what is wrong, as compilers say it (editors jump there).
                let separator = failure.reason.first?.isNumber == true ? ":" : ": "
                printError("bikeride: \(failure.path)\(separator)\(failure.reason)")
            }
            let rate = report.elapsedSeconds > 0 ? Double(report.pointCount) / report.elapsedSeconds : 0
            printError(
                "imported \(report.importedTrackCount) tracks (\(report.pointCount) points, \(Int(rate)) points/s); \(report.duplicateCount) already there; \(report.failures.count) failed")
            if !report.failures.isEmpty || archivesFailed { throw ExitCode.failure }
        }

        /// A zip archive, by its content (a local file header's signature), or by its name when it cannot be read.
        static func isArchive(_ path: String) -> Bool {
            guard let file = FileHandle(forReadingAtPath: path) else { return path.lowercased().hasSuffix(".zip") }
            defer { try? file.close() }
            let head = (try? file.read(upToCount: 4)) ?? Data()
            return Array(head) == [0x50, 0x4B, 0x03, 0x04]
        }
    }
}

/// A one-line progress bar on standard error, redrawn in place; plain lines when not on a terminal.
final class ProgressBar: @unchecked Sendable {
    private let enabled: Bool
    private let lock = NSLock()
    private var drawn = false

    init(enabled: Bool) { self.enabled = enabled }

    func update(_ progress: ImportProgress) {
        lock.lock()
        defer { lock.unlock() }
        let fraction = progress.bytesTotal > 0 ? Double(progress.bytesDone) / Double(progress.bytesTotal) : 0
        guard enabled else {
            if let path = progress.currentPath {
                printError("[\(progress.filesDone)/\(progress.filesTotal)] \(path)")
            }
            return
        }
        let width = 24
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let name = (progress.currentPath as NSString?)?.lastPathComponent ?? ""
        let line = "\(bar) \(progress.filesDone)/\(progress.filesTotal) files  \(progress.pointsDone) points  \(Int(progress.pointsPerSecond)) points/s  \(name.prefix(30))"
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line).utf8))
        drawn = true
    }

    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
