import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride privacy-zones add|list|remove|hide-ends`: the circles (and the first and last metres of every ride)
    /// that nothing shared ever shows (issue 23).
    struct PrivacyZones: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "privacy-zones",
            abstract: "Places (circles of 100 m - 2 km) that shared rides and live links never show.",
            subcommands: [AddZone.self, ListZones.self, RemoveZone.self, HideEnds.self],
            defaultSubcommand: ListZones.self
        )
    }
}

extension Bikeride.PrivacyZones {
    struct AddZone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a zone: its centre and radius.")

        // Options, not arguments, so that a negative value (south, west) is a value and not a flag.
        @Option(parsing: .unconditional, help: "Latitude of the centre, degrees (-90...90).")
        var latitude: Double
        @Option(parsing: .unconditional, help: "Longitude of the centre, degrees (-180...180).")
        var longitude: Double
        @Option(help: "Radius in metres, 100 to 2000.")
        var radius: Double = 300
        @Option(help: "A name for yourself (\"Home\").")
        var name: String?

        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if let problem = PrivacyZone.problem(latitude: latitude, longitude: longitude, radiusMeters: radius) { throw ValidationError(problem) }
        }

        func run() async throws {
            let library = try await library.open()
            let zone = try await library.store.addPrivacyZone(
                PrivacyZone(center: Coordinate(latitude: latitude, longitude: longitude), radiusMeters: radius), name: name,
                userID: try await owner.userID(library))
            print("added privacy zone \(zone.id): \(latitude), \(longitude), radius \(Int(radius)) m")
        }
    }

    struct ListZones: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the zones and the hidden ends.")

        @Flag(help: "Print JSON: {\"zones\": [{\"id\", \"latitude\", \"longitude\", \"radiusMeters\", \"name\"}], \"hideEndsMeters\"}.")
        var json = false
        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            let settings = try await library.store.privacySettings(userID: try await owner.userID(library))
            if json {
                struct Zone: Encodable { var id: String; var latitude: Double; var longitude: Double; var radiusMeters: Double; var name: String? }
                struct Output: Encodable { var zones: [Zone]; var hideEndsMeters: Double }
                print(try encodeJSON(Output(
                    zones: settings.zones.map {
                        Zone(id: $0.id.rawValue, latitude: $0.zone.center.latitude, longitude: $0.zone.center.longitude, radiusMeters: $0.zone.radiusMeters, name: $0.name)
                    }, hideEndsMeters: settings.hiddenEndMeters)))
                return
            }
            for stored in settings.zones {
                print("\(stored.id)  \(stored.zone.center.latitude), \(stored.zone.center.longitude)  \(Int(stored.zone.radiusMeters)) m  \(stored.name ?? "")")
            }
            if settings.zones.isEmpty { print("no privacy zones") }
            print("first and last \(Int(settings.hiddenEndMeters)) m of every ride hidden")
        }
    }

    struct RemoveZone: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove a zone by its id.")

        @Argument(help: "The zone's id (bikeride privacy-zones list).")
        var id: String
        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            guard let zoneID = PrivacyZoneID(id), try await library.store.deletePrivacyZone(id: zoneID, userID: try await owner.userID(library)) else {
                printError("bikeride privacy-zones remove: no zone with id \(id)")
                throw ExitCode.failure
            }
            print("removed privacy zone \(zoneID)")
        }
    }

    struct HideEnds: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "hide-ends", abstract: "Hide the first and last METRES of every shared ride (0 - 1600).")

        @Argument(help: "Metres, 0 to 1600.")
        var meters: Double
        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if let problem = PrivacyRules.problem(hiddenEndMeters: meters) { throw ValidationError(problem) }
        }

        func run() async throws {
            let library = try await library.open()
            _ = try await library.store.setHiddenEndMeters(meters, userID: try await owner.userID(library))
            print("the first and last \(Int(meters)) m of every shared ride are hidden")
        }
    }
}
