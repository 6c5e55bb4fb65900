import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
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
        @OptionGroup var owner: UserOptions

        func run() async throws {
            // The ids are place ids with --places, track ids otherwise: two kinds, parsed apart.
            let placeIDs: [PlaceID] = places ? try parseIDs(ids, kind: "place") : []
            let trackIDs: [TrackID] = places ? [] : try parseIDs(ids, kind: "track")
            let library = try await owner.scoped(library.open())
            let destination = URL(filePath: to)
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: to, isDirectory: &isDirectory)
            let intoFolder = (exists && isDirectory.boolValue) || to.hasSuffix("/")
            let format = format ?? (intoFolder ? nil : TrackFileFormat(fileName: to)) ?? .gpx
            do {
                if places {
                    let document = try await library.placesDocument(placeIDs.isEmpty ? nil : placeIDs)
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
}
