import ArgumentParser
import Foundation
import RideKit
import RideStore
import RideStorePostgres

/// The library the library commands work on: the data directory's SQLite file, or a PostgreSQL database.
struct LibraryOptions: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Where bikeride keeps its database and documents folder (default: \(DataDirectory.default().url.path); or set BIKERIDE_DATA_DIR).",
            valueName: "DIR"))
    var dataDirectory: String?

    @Option(
        help: ArgumentHelp(
            "The PostgreSQL database of `serve --database` instead of the data directory's SQLite file: postgres://USER@HOST:PORT/DB (or set BIKERIDE_DATABASE_URL).",
            valueName: "URL"))
    var database: String?

    @Option(
        help: ArgumentHelp(
            "A file holding the database's password (or set BIKERIDE_DATABASE_PASSWORD_FILE); used when the URL has none, before PGPASSWORD.",
            valueName: "FILE"))
    var databasePasswordFile: String?

    var directory: DataDirectory {
        dataDirectory.map { DataDirectory(url: URL(filePath: $0, directoryHint: .isDirectory)) } ?? DataDirectory.default()
    }

    /// Opens the library, or exits with a message that says what went wrong. On PostgreSQL the library has the
    /// data directory's documents folder only with `documents` (the `sync` command).
    func open(documents: Bool = false) async throws -> TrackLibrary {
        let url: PostgresDatabaseURL?
        do {
            url = try PostgresDatabaseURL.configured(option: database, passwordFile: databasePasswordFile)
        } catch {
            printError("bikeride: --database: \(error)")
            throw ExitCode.failure
        }
        do {
            guard let url else { return try await directory.openLibrary() }
            // One command at a time: two connections are plenty.
            let store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2))
            return try await directory.openLibrary(on: store, documents: documents)
        } catch {
            printError("bikeride: cannot open the library in \(url.map { "\($0)" } ?? directory.url.path): \(error)")
            throw ExitCode.failure
        }
    }
}

/// The user a library command acts for once there are accounts: `--user NAME`, else the local user (whose
/// library the embedded default has). Without it, a server whose rides belong to a user would show none.
struct UserOptions: ParsableArguments {
    @Option(help: "The user whose tracks, places and devices this acts on (default: the local user).")
    var user: String?

    func userID(_ library: TrackLibrary) async throws -> UserID {
        guard let user else { return library.userID }
        guard let found = try await library.store.user(named: user) else {
            printError("bikeride: no user named \(user) (bikeride users list)")
            throw ExitCode.failure
        }
        return found.id
    }

    /// Without `--user`, on a library whose users have accounts: a line saying whose data this was and how to name
    /// another user (an empty list of the local user's is otherwise read as "the server has no rides").
    func otherUsersHint(_ library: TrackLibrary) async -> String? {
        guard user == nil, let users = try? await library.store.users() else { return nil }
        let others = users.filter { $0.id != library.userID && $0.passwordHash != nil }.map(\.name)
        guard !others.isEmpty else { return nil }
        return "bikeride: these are the local user's; this library has users with accounts ("
            + others.prefix(5).joined(separator: ", ") + (others.count > 5 ? ", …" : "") + "): add --user NAME for theirs"
    }

    /// `library` for `--user`'s user (without the local user's documents folder), or itself.
    func scoped(_ library: TrackLibrary) async throws -> TrackLibrary {
        let id = try await userID(library)
        if id == library.userID { return library }
        return TrackLibrary(store: library.store, userID: id, documentsFolder: nil, uploadsFolder: library.uploadsFolder, limits: library.limits)
    }
}

/// Track and place IDs typed by a person: checked before anything is done.
func parseIDs<Kind>(_ texts: [String], kind: String) throws -> [ID<Kind>] {
    try texts.map { text in
        guard let id = ID<Kind>(text) else {
            throw ValidationError("'\(text)' is not a \(kind) id: ids are 8 letters and digits, as `bikeride list` shows them")
        }
        return id
    }
}

/// Human figures shared by the list and show commands.
enum Figures {
    static let dateFormatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter
    }()

    /// The local date and time a track started, in the offset its file used, else its creation date in UTC.
    static func start(_ summary: TrackSummary) -> String {
        if let start = summary.startTime {
            let local = GPXTime(
                secondsSince1970: start.secondsSince1970 + Int64(start.offsetMinutes * 60), nanoseconds: 0, offset: .unspecified)
            return dateFormatter.string(from: local.date)
        }
        return dateFormatter.string(from: summary.createdAt)
    }

    /// A duration as `UnitSystem` writes it, or "-" for none.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "-" }
        return UnitSystem.formatDuration(seconds: seconds)
    }
}

/// A table with columns padded to their widest cell; figures right-aligned.
func renderTable(_ rows: [[String]], rightAligned: Set<Int>) -> String {
    guard let header = rows.first else { return "" }
    let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
        row.enumerated().map { column, cell in
            let padding = String(repeating: " ", count: widths[column] - cell.count)
            return rightAligned.contains(column) ? padding + cell : cell + padding
        }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n")
}

/// JSON as the `--json` options print it: keys sorted, slashes as they are.
func encodeJSON<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}
