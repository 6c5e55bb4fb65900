import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride export-all --out FILE.zip [--user NAME]`
    struct ExportAll: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export-all",
            abstract: "Write the whole library into one zip: every track as GPX, places with notes and photos, labels, settings.",
            discussion: """
                The zip is what GET /api/export answers: tracks/<id>.gpx and tracks.json (name, kind, source, the \
                device's totals), places.gpx and places.json (notes, labels, photos under photos/), labels.json, \
                settings.json (privacy zones, hidden ends, weekly goals) and manifest.json with the counts and the \
                SHA-256 of every entry. It is written as it is read, one track at a time, so memory stays flat however \
                large the library. `bikeride import FILE.zip` gives the library back, into SQLite or PostgreSQL.
                """
        )

        @Option(help: "The zip file to write (replaced if it exists; written whole or not at all).")
        var out: String

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            guard !out.isEmpty, !out.hasSuffix("/") else { throw ValidationError("--out takes a file name, such as library.zip") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let destination = URL(filePath: out)
            // Into a file beside the destination, renamed at the end: a failed export leaves no half zip behind.
            let partial = destination.deletingLastPathComponent().appending(path: ".\(destination.lastPathComponent).\(UUID().uuidString).part")
            guard FileManager.default.createFile(atPath: partial.path, contents: nil), let handle = try? FileHandle(forWritingTo: partial) else {
                printError("bikeride: cannot write \(out): is its folder there and writable?")
                throw ExitCode.failure
            }
            do {
                let manifest = try await library.exportAll { bytes in try handle.write(contentsOf: bytes) }
                try handle.synchronize()
                try handle.close()
                // rename(2): the whole zip replaces the destination at once.
                guard rename(partial.path, destination.path) == 0 else {
                    throw RideStoreError.io(path: out, reason: "cannot put the zip there: \(String(cString: strerror(errno)))")
                }
                let counts = manifest.counts
                print(
                    "exported \(counts.tracks) tracks (\(counts.points) points), \(counts.places) places (\(counts.notes) notes, \(counts.photos) photos), \(counts.labels) labels, \(counts.privacyZones) privacy zones, \(counts.weeklyGoals) weekly goals to \(out)")
                for entry in manifest.entries { print("\(entry.sha256)  \(entry.path)") }
            } catch {
                try? handle.close()
                try? FileManager.default.removeItem(at: partial)
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }
}
