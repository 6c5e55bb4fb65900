import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride places list|add|note|delete|restore|label|share|import|export`
    struct Places: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Places: pins with notes, kept beside the tracks.",
            subcommands: [
                ListPlaces.self, AddPlace.self, AddNote.self, DeletePlaces.self, RestorePlaces.self, Labels.self, SharePlace.self,
                ImportPlaces.self, ExportPlaces.self,
            ],
            defaultSubcommand: ListPlaces.self
        )
    }
}

/// "LAT,LON" as typed by a person, checked.
struct CoordinateArgument: ExpressibleByArgument {
    var coordinate: Coordinate

    init?(argument: String) {
        let parts = argument.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let latitude = DecimalText.parse(parts[0]), let longitude = DecimalText.parse(parts[1]) else {
            return nil
        }
        coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid else { return nil }
    }

    static var defaultValueDescription: String { "LAT,LON" }
}

/// Decimal numbers from the command line, finite only (no nan, inf or hex).
enum DecimalText {
    static func parse(_ text: String) -> Double? {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }), let value = Double(text),
            value.isFinite
        else { return nil }
        return value
    }
}

extension Bikeride.Places {
    struct ListPlaces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List places (newest first, or nearest first with --near).")

        @Option(help: "Only places whose name, address or notes contain this text.")
        var search: String?

        @Option(help: "Sort by distance from this position (LAT,LON).")
        var near: CoordinateArgument?

        @Flag(help: "Print JSON.")
        var json = false

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let library = try await owner.scoped(library.open())
            let order: PlaceQuery.Order = near.map { .distance(from: $0.coordinate) } ?? .createdAt
            let places = try await library.mine.places(PlaceQuery(search: search, order: order))
            if json {
                let objects = places.map { place in
                    [
                        "id": place.id.rawValue, "name": place.name, "latitude": place.latitude, "longitude": place.longitude,
                        "address": place.address as Any? ?? NSNull(), "labels": place.labels.map(\.name),
                    ] as [String: Any]
                }
                let data = try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys, .withoutEscapingSlashes])
                print(String(decoding: data, as: UTF8.self))
                return
            }
            guard !places.isEmpty else {
                printError("no places yet: bikeride places add NAME --at LAT,LON")
                return
            }
            var rows = [["ID", "NAME", "POSITION", "DISTANCE", "LABELS"]]
            for place in places {
                let distance = near.map { String(format: "%.2f km", $0.coordinate.distanceMeters(to: place.coordinate) / 1000) } ?? ""
                rows.append([
                    place.id.rawValue, place.name, String(format: "%.6f,%.6f", place.latitude, place.longitude), distance,
                    place.labels.map(\.name).joined(separator: ", "),
                ])
            }
            print(renderTable(rows, rightAligned: [3]))
        }
    }

    struct AddPlace: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Pin a place.")

        @Argument(help: "Its name.")
        var name: String

        @Option(help: "Where it is: LAT,LON in degrees, e.g. 47.3769,8.5417.")
        var at: CoordinateArgument

        @Option(help: "Its address.")
        var address: String?

        @Option(help: "A first note.")
        var note: String?

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func validate() throws {
            if name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the name cannot be empty") }
        }

        func run() async throws {
            let library = try await owner.scoped(library.open())
            do {
                let place = try await library.mine.createPlace(
                    NewPlace(latitude: at.coordinate.latitude, longitude: at.coordinate.longitude, name: name, address: address, note: note))
                print("\(place.id)  \(place.name)")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }

    struct AddNote: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "note", abstract: "Add a note to a place.")

        @Argument(help: "The place's id.")
        var id: String

        @Argument(help: "The note.")
        var text: String

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let placeID: PlaceID = try parseIDs([id], kind: "place")[0]
            let library = try await owner.scoped(library.open())
            do {
                let note = try await library.mine.addNote(placeID: placeID, body: text)
                print("\(note.id)  added to \(placeID)")
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
        }
    }

    struct DeletePlaces: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete places with their notes and photos (`places restore` brings them back within 30 days).")

        @Argument(help: "The places' ids.")
        var ids: [String]

        @OptionGroup var library: LibraryOptions
        @OptionGroup var owner: UserOptions

        func run() async throws {
            let placeIDs: [PlaceID] = try parseIDs(ids, kind: "place")
            let library = try await owner.scoped(library.open())
            let deleted = try await library.deletePlaces(placeIDs)
            for id in deleted { print("deleted \(id)") }
            let missing = placeIDs.filter { !deleted.contains($0) }
            for id in missing { printError("bikeride: no place with id \(id)") }
            if !missing.isEmpty { throw ExitCode.failure }
        }
    }
}
