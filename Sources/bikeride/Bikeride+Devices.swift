import ArgumentParser
import Foundation
import RideStore

extension Bikeride {
    /// `bikeride devices add|list|revoke|rotate`: the phone apps that post positions (OwnTracks, Overland,
    /// Traccar Client / OsmAnd, GPSLogger), each with its own token.
    struct Devices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Phone apps that post positions, each with its own token.",
            subcommands: [AddDevice.self, ListDevices.self, RevokeDevice.self, RotateDevice.self],
            defaultSubcommand: ListDevices.self
        )
    }
}

extension Bikeride.Devices {
    struct AddDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add a device; prints its token once (only its hash is kept).")

        @Argument(help: "A name for the device (\"Anna's phone\").")
        var name: String

        @OptionGroup var owner: UserOptions

        @Option(help: "The server's address as the phone reaches it, for the setup lines (default http://HOST:8080).")
        var serverUrl: String = "http://HOST:8080"

        @Flag(help: "Print JSON: {\"id\", \"name\", \"token\", \"user\", \"setup\"}.")
        var json = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            let userID = try await owner.userID(library)
            let token = SecretToken.make()
            let device = try await library.store.createDevice(
                NewDevice(name: name, tokenHash: SecretToken.hash(token), protocolName: "any"), userID: userID)
            let userName = try await library.store.user(id: userID)?.name ?? ""
            let base = serverUrl.hasSuffix("/") ? String(serverUrl.dropLast()) : serverUrl
            let setup: [String: String] = [
                "owntracks": "Mode HTTP, URL \(base)/ingest/owntracks, UserID \(userName), Password \(token)",
                "overland": "\(base)/ingest/overland?token=\(token)",
                "osmand": "Server URL \(base)/ingest/osmand, Device identifier \(token)",
                "gpslogger": "\(base)/ingest/gpslogger?token=\(token)&lat=%LAT&lon=%LON&time=%TIME&alt=%ALT&spd=%SPD&dir=%DIR&acc=%ACC&batt=%BATT",
            ]
            if json {
                struct Output: Encodable { var id: String; var name: String; var token: String; var user: String; var setup: [String: String] }
                print(try encodeJSON(Output(id: device.id.rawValue, name: device.name, token: token, user: userName, setup: setup)))
                return
            }
            print("added device \(device.name) (\(device.id)) for \(userName)")
            print("token (shown once): \(token)")
            for (app, line) in setup.sorted(by: { $0.key < $1.key }) { print("  \(app): \(line)") }
        }
    }

    struct ListDevices: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List a user's devices.")

        @OptionGroup var owner: UserOptions

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            let devices = try await library.store.devices(userID: try await owner.userID(library))
            var rows = [["ID", "NAME", "CREATED", "LAST SEEN"]]
            for device in devices {
                rows.append([
                    device.id.rawValue, device.name, Figures.dateFormatter.string(from: device.createdAt),
                    device.lastSeenAt.map { Figures.dateFormatter.string(from: $0) } ?? "never",
                ])
            }
            print(renderTable(rows, rightAligned: []))
        }
    }

    struct RevokeDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "revoke", abstract: "Remove a device: its token stops working.")

        @Argument(help: "The device's id (bikeride devices list).")
        var id: String

        @OptionGroup var owner: UserOptions

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            guard let deviceID = DeviceID(id), try await library.store.deleteDevice(id: deviceID, userID: try await owner.userID(library)) else {
                printError("bikeride devices revoke: no device \(id) of this user")
                throw ExitCode.failure
            }
            print("revoked device \(id)")
        }
    }

    struct RotateDevice: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "rotate", abstract: "Give a device a new token (the old one stops working).")

        @Argument(help: "The device's id.")
        var id: String

        @OptionGroup var owner: UserOptions

        @Flag(help: "Print JSON.")
        var json = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            guard let deviceID = DeviceID(id) else {
                printError("bikeride devices rotate: '\(id)' is not a device id")
                throw ExitCode.failure
            }
            let token = SecretToken.make()
            do {
                let device = try await library.store.replaceDeviceToken(id: deviceID, userID: try await owner.userID(library), tokenHash: SecretToken.hash(token))
                if json {
                    print(try encodeJSON(["id": device.id.rawValue, "name": device.name, "token": token]))
                } else {
                    print("new token for \(device.name) (shown once): \(token)")
                }
            } catch RideStoreError.notFound {
                printError("bikeride devices rotate: no device \(id) of this user")
                throw ExitCode.failure
            }
        }
    }
}
