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
}
