import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride sync`
    struct Sync: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync the documents folder once: write saved tracks there as .gpx, import new or changed files from it.",
            discussion: """
                The folder is the data directory's Documents/. With --database it is synced with the PostgreSQL database, \
                on the machine the command runs on (a server on PostgreSQL keeps no documents folder of its own).
                """)

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open(documents: true)
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
