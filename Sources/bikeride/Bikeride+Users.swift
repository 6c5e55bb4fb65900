import ArgumentParser
import Foundation
import RideStore

extension Bikeride {
    /// `bikeride users add|list|passwd|delete`: the accounts of a server shared by several people.
    struct Users: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accounts: who may log in to a server that others can reach.",
            discussion: """
                A server on 127.0.0.1 needs no login (the one local user, whose data `import` and the other commands use). \
                `serve --host 0.0.0.0` (or --accounts) asks every browser to log in: add a user first. The local user is \
                called "local"; `bikeride users passwd local` gives it a password, so that the data kept so far can be \
                reached after logging in.
                """,
            subcommands: [AddUser.self, ListUsers.self, SetPassword.self, DeleteUser.self],
            defaultSubcommand: ListUsers.self
        )
    }
}

/// The password from standard input (`--password-stdin`), or typed at a prompt without echo.
func readPassword(fromStandardInput: Bool, prompt: String) throws -> String {
    let text: String
    if fromStandardInput {
        var data = Data()
        while let chunk = try FileHandle.standardInput.read(upToCount: 4096), !chunk.isEmpty {
            data.append(chunk)
            guard data.count <= PasswordHasher.maximumPasswordBytes + 2 else { throw ValidationError("the password is too long") }
        }
        guard let decoded = String(data: data, encoding: .utf8) else { throw ValidationError("the password is not UTF-8 text") }
        // One trailing newline, as `echo` and `docker login --password-stdin` users type it.
        text = decoded.hasSuffix("\r\n") ? String(decoded.dropLast(2)) : decoded.hasSuffix("\n") ? String(decoded.dropLast()) : decoded
    } else {
        guard let typed = getpass(prompt) else { throw ValidationError("no password given (use --password-stdin)") }
        text = String(cString: typed)
    }
    if let problem = PasswordHasher.problem(with: text) { throw ValidationError(problem) }
    return text
}

extension Bikeride.Users {
    struct AddUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a user with a password.")

        @Argument(help: "The user's name (what they type to log in).")
        var name: String

        @Flag(help: "Read the password from standard input (as `docker login --password-stdin`).")
        var passwordStdin = false

        @OptionGroup var library: LibraryOptions

        func validate() throws {
            let name = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !name.isEmpty, name.count <= 100, !name.contains(":") else {
                throw ValidationError("a user name has 1 to 100 characters and no ':' (OwnTracks sends it in Basic authentication)")
            }
        }

        func run() async throws {
            let password = try readPassword(fromStandardInput: passwordStdin, prompt: "Password for \(name): ")
            let library = try await library.open()
            let hash = try PasswordHasher().hash(password)
            do {
                let user = try await library.store.createUser(name: name, passwordHash: hash)
                print("added user \(user.name) (\(user.id))")
            } catch let error as RideStoreError {
                printError("bikeride users add: \(error)")
                throw ExitCode.failure
            }
        }
    }

    struct ListUsers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List the users.")

        @Flag(help: "Print JSON.")
        var json = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            let users = try await library.store.users()
            if json {
                struct Row: Encodable { var id: String; var name: String; var hasPassword: Bool; var createdAt: Date }
                print(try encodeJSON(users.map { Row(id: $0.id.rawValue, name: $0.name, hasPassword: $0.passwordHash != nil, createdAt: $0.createdAt) }))
                return
            }
            var rows = [["ID", "NAME", "PASSWORD", "CREATED"]]
            for user in users {
                rows.append([user.id.rawValue, user.name, user.passwordHash == nil ? "none" : "set", Figures.dateFormatter.string(from: user.createdAt)])
            }
            print(renderTable(rows, rightAligned: []))
        }
    }

    struct SetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "passwd", abstract: "Set a user's password (their sessions end).")

        @Argument(help: "The user's name.")
        var name: String

        @Flag(help: "Read the password from standard input.")
        var passwordStdin = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let password = try readPassword(fromStandardInput: passwordStdin, prompt: "New password for \(name): ")
            let library = try await library.open()
            guard let user = try await library.store.user(named: name) else {
                printError("bikeride users passwd: no user named \(name) (bikeride users list)")
                throw ExitCode.failure
            }
            try await library.store.setPasswordHash(try PasswordHasher().hash(password), userID: user.id)
            print("password of \(user.name) changed")
        }
    }

    struct DeleteUser: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "delete", abstract: "Delete a user and all their data.")

        @Argument(help: "The user's name.")
        var name: String

        @Flag(help: "Really delete: tracks, places, devices and all.")
        var yes = false

        @OptionGroup var library: LibraryOptions

        func run() async throws {
            let library = try await library.open()
            guard let user = try await library.store.user(named: name) else {
                printError("bikeride users delete: no user named \(name)")
                throw ExitCode.failure
            }
            guard yes else {
                printError("this deletes \(name) with every track, place and device of theirs; add --yes to do it")
                throw ExitCode.failure
            }
            _ = try await library.store.deleteUser(id: user.id)
            print("deleted user \(name)")
        }
    }
}
