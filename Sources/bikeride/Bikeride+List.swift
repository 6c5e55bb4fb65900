import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride list [--all] [--limit N] [--cursor C] [--search TEXT] [--json]`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the tracks in the library, newest first.",
            discussion: """
                Shows the newest 50 unless told otherwise: --all lists every track, --limit another number. With --json \
                the output is one page as the API gives it, {"tracks": [...], "nextCursor": "..."}: pass nextCursor to \
                --cursor for the next page; it is absent on the last page.
                """
        )

        @Flag(help: "Print a JSON object ({\"tracks\": [...], \"nextCursor\": ...}) instead of a table.")
        var json = false

        @Flag(help: "List every track (from --cursor on, when given).")
        var all = false

        @Option(help: "How many tracks at most (1–1000; default 50).")
        var limit: Int?

        @Option(help: "Start where a page of --json output left off: its nextCursor.")
        var cursor: String?

        @Option(help: "Only tracks whose name contains this text.")
        var search: String?

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        /// Tracks shown when neither --limit nor --all says otherwise: the API's page.
        static let defaultLimit = 50

        func validate() throws {
            if let limit, !(1...TrackQuery.maximumLimit).contains(limit) {
                throw ValidationError("--limit takes a number from 1 to \(TrackQuery.maximumLimit)")
            }
            if all && limit != nil { throw ValidationError("--all lists every track; leave out --limit") }
            if let cursor, cursor.isEmpty { throw ValidationError("--cursor takes the nextCursor of a page of --json output") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let page: TrackPage
            do {
                if all {
                    page = try await everyTrack(library)
                } else {
                    page = try await library.mine.tracks(query(limit: limit ?? Self.defaultLimit, cursor: cursor))
                }
            } catch RideStoreError.invalid(field: "cursor", _) {
                printError("bikeride: --cursor \(cursor ?? ""): not a cursor of this list; use the nextCursor of a page of --json output")
                throw ExitCode.failure
            }
            if page.tracks.isEmpty, cursor == nil, search == nil, let hint = await owner.otherUsersHint(library) {
                // On standard error: --json's output stays the page alone.
                printError(hint)
            }
            if json {
                print(try encodeJSON(page))
                return
            }
            guard !page.tracks.isEmpty else {
                printError(search.map { "no track matches '\($0)'" } ?? (cursor == nil ? "no tracks yet: bikeride import FILE.gpx" : "no more tracks"))
                return
            }
            var rows = [["ID", "START", "NAME", "KIND", "DISTANCE", "CLIMB", "MOVING", "POINTS"]]
            for track in page.tracks {
                rows.append([
                    track.id.rawValue, Figures.start(track), track.name, track.kind.rawValue,
                    UnitSystem.metric.formatDistance(meters: track.distanceMeters), UnitSystem.metric.formatElevation(meters: track.ascentMeters),
                    Figures.duration(track.movingSeconds), "\(track.pointCount)",
                ])
            }
            print(renderTable(rows, rightAligned: [4, 5, 6, 7]))
            if let next = page.nextCursor {
                // On standard error: the table on standard output stays the tracks alone.
                var shown = "\(page.tracks.count) shown, more follow"
                if search == nil && cursor == nil {
                    shown = "\(page.tracks.count) of \(try await library.mine.trackCount()) shown"
                }
                printError("\(shown), --all for all (--cursor \(next) for the next \(page.tracks.count))")
            }
        }

        func query(limit: Int, cursor: String?) -> TrackQuery {
            TrackQuery(search: search, limit: limit, cursor: cursor)
        }

        /// Every track from `cursor` on, walked a page of the most the store gives at a time.
        func everyTrack(_ library: TrackLibrary) async throws -> TrackPage {
            var tracks: [TrackSummary] = []
            var next = cursor
            repeat {
                let page = try await library.mine.tracks(query(limit: TrackQuery.maximumLimit, cursor: next))
                tracks += page.tracks
                next = page.nextCursor
            } while next != nil
            return TrackPage(tracks: tracks, nextCursor: nil)
        }
    }
}
