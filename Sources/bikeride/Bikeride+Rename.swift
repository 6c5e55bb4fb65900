import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride rename ID NAME`
    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename a track.")

        @Argument(help: "The track's id.")
        var id: String

        @Argument(help: "The new name.")
        var name: String

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the name cannot be empty") }
        }

        func run() async throws {
            let trackID: TrackID = try parseIDs([id], kind: "track")[0]
            let library = try await owner.scoped(library.open())
            do {
                let track = try await library.rename(trackID, to: name)
                print("\(track.id)  \(track.name)")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }
}
