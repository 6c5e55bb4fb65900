import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride delete ID...`
    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete tracks from the library (and their files in the documents folder).")

        @Argument(help: "The tracks' ids.")
        var ids: [String]

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let trackIDs: [TrackID] = try parseIDs(ids, kind: "track")
            let library = try await owner.scoped(library.open())
            let deleted = try await library.delete(trackIDs, permanently: true)
            for id in deleted { print("deleted \(id)") }
            let missing = trackIDs.filter { !deleted.contains($0) }
            for id in missing { printError("bikeride: no track with id \(id)") }
            if !missing.isEmpty { throw ExitCode.failure }
        }
    }
}
