import ArgumentParser
import Foundation
import RideKit
import RideStore

extension Bikeride {
    /// `bikeride family add|list|remove`: share a user's live position with other users of the same server (issue 23).
    struct Family: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Share your live position with other users of this server (their Live tab and OwnTracks friends).",
            discussion: """
                Needs accounts (`bikeride users add`). `--user` is the user who shares (default: the local user). \
                Positions inside the sharer's privacy zones are never shown.
                """,
            subcommands: [AddMember.self, ListMembers.self, RemoveMember.self],
            defaultSubcommand: ListMembers.self
        )
    }
}

extension Bikeride.Family {
    struct AddMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Share with the user NAME, for --hours or until removed.")

        @Argument(help: "The user who will see the position.")
        var name: String
        @Option(help: "For how many hours (1 to 8760); without it, until `bikeride family remove`.")
        var hours: Double?
        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func validate() throws {
            if let problem = FamilyShareRules.problem(hours: hours) { throw ValidationError(problem) }
        }

        func run() async throws {
            let library = try await library.open()
            let now = Date()
            do {
                let share = try await library.store.shareFamily(
                    with: name, userID: try await owner.userID(library), expiresAt: try FamilyShareRules.expiresAt(hours: hours, now: now), now: now)
                print("\(share.sharerName) shares their position with \(share.viewerName) " + Self.until(share.expiresAt))
            } catch RideStoreError.notFound(kind: "user", _) {
                printError("bikeride family add: no user named \(name) (bikeride users list)")
                throw ExitCode.failure
            } catch let error as RideStoreError {
                printError("bikeride family add: \(error)")
                throw ExitCode.failure
            }
        }

        static func until(_ date: Date?) -> String {
            date.map { "until \(GPXTime(date: $0).rfc3339)" } ?? "until removed"
        }
    }

    struct ListMembers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "Whom you share with, and who shares with you.")

        @Flag(help: "Print JSON: {\"sharing\": [{\"user\", \"expiresAt\"}], \"sharedWithMe\": [{\"user\", \"expiresAt\"}]}.")
        var json = false
        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            let circle = try await library.store.familyCircle(userID: try await owner.userID(library), now: Date())
            struct Entry: Encodable { var user: String; var expiresAt: String? }
            let sharing = circle.sharing.map { Entry(user: $0.viewerName, expiresAt: $0.expiresAt.map { GPXTime(date: $0).rfc3339 }) }
            let sharedWithMe = circle.sharedWithMe.map { Entry(user: $0.sharerName, expiresAt: $0.expiresAt.map { GPXTime(date: $0).rfc3339 }) }
            if json {
                struct Output: Encodable { var sharing: [Entry]; var sharedWithMe: [Entry] }
                print(try encodeJSON(Output(sharing: sharing, sharedWithMe: sharedWithMe)))
                return
            }
            print(sharing.isEmpty ? "you share your position with no one" : "you share your position with:")
            for entry in sharing { print("  \(entry.user)  \(entry.expiresAt.map { "until \($0)" } ?? "until removed")") }
            print(sharedWithMe.isEmpty ? "no one shares their position with you" : "sharing their position with you:")
            for entry in sharedWithMe { print("  \(entry.user)  \(entry.expiresAt.map { "until \($0)" } ?? "until removed")") }
        }
    }

    struct RemoveMember: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop sharing with the user NAME (at once).")

        @Argument(help: "The user who sees the position now.")
        var name: String
        @OptionGroup var owner: UserOptions
        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            guard try await library.store.revokeFamilyShare(viewerName: name, userID: try await owner.userID(library)) else {
                printError("bikeride family remove: you do not share your position with \(name)")
                throw ExitCode.failure
            }
            print("stopped sharing your position with \(name)")
        }
    }
}
