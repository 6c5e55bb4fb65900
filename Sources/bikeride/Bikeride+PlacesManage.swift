import ArgumentParser
import Foundation
import RideKit
import RideStore

// `bikeride places restore|label|share|import|export`: the rest of the Errands app on the command line (issue 10).

extension Bikeride.Places {
    struct RestorePlaces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "restore", abstract: "Bring back deleted places (within 30 days of the delete).")

        @Argument(help: "The places' ids.")
        var ids: [String]

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let placeIDs: [PlaceID] = try parseIDs(ids, kind: "place")
            let library = try await owner.scoped(library.open())
            let restored = try await library.mine.restorePlaces(ids: placeIDs)
            for id in restored { print("restored \(id)") }
            let missing = placeIDs.filter { !restored.contains($0) }
            for id in missing { printError("bikeride: no deleted place with id \(id)") }
            if !missing.isEmpty { throw ExitCode.failure }
        }
    }

    /// `bikeride places label list|add|delete|set`
    struct Labels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "label", abstract: "Labels (a name and a colour) that organise places.",
            subcommands: [ListLabels.self, AddLabel.self, DeleteLabels.self, SetLabels.self], defaultSubcommand: ListLabels.self)
    }

    struct SharePlace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "share",
            abstract: "Make a read-only link to a place (its notes and photos), or revoke one.",
            discussion: "The link works while `bikeride serve` runs; give --base-url to print it whole, e.g. https://ride.example.org.")

        @Argument(help: "The place's id (to make a link), or the token (with --revoke).")
        var id: String

        @Flag(help: "Revoke the link with this token: it shows nothing from then on.")
        var revoke = false

        @Option(help: "The server's address, printed before /share/TOKEN.")
        var baseUrl: String?

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            if revoke {
                let library = try await owner.scoped(library.open())
                guard try await library.mine.revokeShareLink(token: id) else {
                    printError("bikeride: no live share link with this token")
                    throw ExitCode.failure
                }
                print("revoked")
                return
            }
            let placeID: PlaceID = try parseIDs([id], kind: "place")[0]
            let library = try await owner.scoped(library.open())
            do {
                let link = try await library.mine.createShareLink(token: ShareLink.makeToken(), placeID: placeID)
                var base = baseUrl ?? ""
                while base.hasSuffix("/") { base.removeLast() }
                print("\(base)/share/\(link.token)")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }

    struct ImportPlaces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Make places of a GPX file's waypoints (name; cmt as the address; desc as a note), all or none.")

        @Argument(help: "The GPX file (- for standard input).")
        var file: String

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let document: GPXDocument
            do {
                let bytes = try TrackFileReader.readAll(file)
                guard bytes.count <= Self.maximumByteCount else {
                    throw FileError(file: TrackFileReader.displayName(file), message: "larger than \(Self.maximumByteCount >> 20) MiB; nothing was stored")
                }
                do {
                    document = try GPXReader.read(bytes: bytes)
                } catch {
                    throw FileError(file: TrackFileReader.displayName(file), error)
                }
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
            let library = try await owner.scoped(library.open())
            do {
                // One transaction: a waypoint that cannot be stored leaves nothing of the file.
                let places = try await library.importPlaces(from: document)
                for place in places { print("\(place.id)  \(place.name)") }
                printError("\(places.count) place\(places.count == 1 ? "" : "s") imported")
            } catch {
                printError("bikeride: \(TrackFileReader.displayName(file)): \(error)")
                throw ExitCode.failure
            }
        }

        /// The largest file taken: as the server's `POST /api/places/import`.
        static let maximumByteCount = 16 << 20
    }

    struct ExportPlaces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export", abstract: "Write places as GPX 1.1 waypoints (notes in desc, the address in cmt, labels in type).")

        @Flag(help: "GPX waypoints (the one format for now; required, so that other formats can come).")
        var gpx = false

        @Option(help: "Only the places with this label (its id or name).")
        var label: String?

        @Option(name: .shortAndLong, help: "The file to write (default: standard output).")
        var output: String?

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            if !gpx { throw ValidationError("say which format: --gpx (GPX 1.1 waypoints)") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            var ids: [PlaceID]?
            if let label {
                let found = try await LabelArgument.resolve([label], in: library)
                ids = try await library.mine.places(PlaceQuery(labelIDs: Set(found), order: .name, limit: .max)).map(\.id)
            }
            let document = try await library.placesDocument(ids)
            let data = GPXWriter.data(document, creator: document.creator)
            guard let output else {
                FileHandle.standardOutput.write(data)
                return
            }
            do {
                try data.write(to: URL(filePath: output), options: .atomic)
                printError("\(document.waypoints.count) places written to \(output)")
            } catch {
                printError("bikeride: cannot write \(output): \(error.localizedDescription)")
                throw ExitCode.failure
            }
        }
    }
}

extension Bikeride.Places.Labels {
    struct ListLabels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List labels by name.")

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let labels = try await library.mine.labels()
            guard !labels.isEmpty else {
                printError("no labels yet: bikeride places label add NAME --colour '#3A7BD5'")
                return
            }
            print(renderTable([["ID", "NAME", "COLOUR"]] + labels.map { [$0.id.rawValue, $0.name, $0.color] }, rightAligned: []))
        }
    }

    struct AddLabel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Make a label.")

        @Argument(help: "Its name.")
        var name: String

        @Option(help: "Its colour, #RRGGBB.")
        var colour = "#3A7BD5"

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the name cannot be empty") }
            if PlaceLabel.normalizedColor(colour) == nil { throw ValidationError("--colour must be # and six hex digits, e.g. #3A7BD5") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            do {
                let label = try await library.mine.createLabel(name: name, color: colour)
                print("\(label.id)  \(label.name)  \(label.color)")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }

    struct DeleteLabels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete labels (their places stay, without them).")

        @Argument(help: "The labels' ids or names.")
        var labels: [String]

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let library = try await owner.scoped(library.open())
            for id in try await LabelArgument.resolve(labels, in: library) {
                _ = try await library.mine.deleteLabel(id: id)
                print("deleted \(id)")
            }
        }
    }

    struct SetLabels: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set exactly which labels a place carries (none given: it carries none).")

        @Argument(help: "The place's id.")
        var place: String

        @Argument(help: "The labels' ids or names.")
        var labels: [String] = []

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let placeID: PlaceID = try parseIDs([place], kind: "place")[0]
            let library = try await owner.scoped(library.open())
            let ids = try await LabelArgument.resolve(labels, in: library)
            do {
                let updated = try await library.mine.setLabels(ids, placeID: placeID)
                print("\(updated.id)  \(updated.name)  \(updated.labels.map(\.name).joined(separator: ", "))")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }
}

/// Labels named on the command line by id or by name (a name is matched without regard to case).
enum LabelArgument {
    static func resolve(_ texts: [String], in library: TrackLibrary) async throws -> [LabelID] {
        guard !texts.isEmpty else { return [] }
        let labels = try await library.mine.labels()
        return try texts.map { text in
            if let id = LabelID(text), labels.contains(where: { $0.id == id }) { return id }
            if let label = labels.first(where: { $0.name.caseInsensitiveCompare(text) == .orderedSame }) { return label.id }
            throw ValidationError("no label '\(text)': see bikeride places label list")
        }
    }
}
