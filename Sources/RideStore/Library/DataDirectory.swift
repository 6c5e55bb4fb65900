import Foundation

/// Where bikeride keeps a user's data: the database and the documents folder, side by side.
///
///     <data directory>/bikeride.sqlite      (+ -wal and -shm beside it while in use)
///     <data directory>/Documents/           every saved track as a .gpx file; drop files here to import them
///     <data directory>/.uploads/            uploads while they arrive, removed once imported
///     <data directory>/Photos/              photos of place notes and their thumbnails, a file each (`PhotoFolder`)
///
/// The directory is, in order: the one given (`--data-dir`), `BIKERIDE_DATA_DIR`, then the platform's place
/// for application data: `$XDG_DATA_HOME/bikeride` or `~/.local/share/bikeride` on Linux,
/// `~/Library/Application Support/bikeride` on macOS.
public struct DataDirectory: Sendable, Hashable {
    public let url: URL

    public init(url: URL) { self.url = url }

    /// The directory to use when none is given: `BIKERIDE_DATA_DIR`, else the platform's default.
    public static func `default`(environment: [String: String] = ProcessInfo.processInfo.environment) -> DataDirectory {
        if let given = environment["BIKERIDE_DATA_DIR"], !given.isEmpty {
            return DataDirectory(url: URL(filePath: given, directoryHint: .isDirectory))
        }
        #if os(macOS) || os(iOS)
        let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)[0]
        #else
        let home = environment["HOME"].map { URL(filePath: $0, directoryHint: .isDirectory) } ?? FileManager.default.homeDirectoryForCurrentUser
        let base = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(filePath: $0, directoryHint: .isDirectory) }
            ?? home.appending(path: ".local/share", directoryHint: .isDirectory)
        #endif
        return DataDirectory(url: base.appending(path: "bikeride", directoryHint: .isDirectory))
    }

    /// The SQLite database.
    public var databaseURL: URL { url.appending(path: "bikeride.sqlite") }
    /// The documents folder.
    public var documentsURL: URL { url.appending(path: "Documents", directoryHint: .isDirectory) }
    /// Uploads being received (the server writes each to a file here before importing it, then removes it).
    public var uploadsURL: URL { url.appending(path: ".uploads", directoryHint: .isDirectory) }
    /// Photos of place notes: the store keeps them beside its database (`SQLiteRideStore.photoFolder`).
    public var photosURL: URL { url.appending(path: "Photos", directoryHint: .isDirectory) }

    /// Opens (creating if needed) the embedded store and the local user's library.
    public func openLibrary(configuration: SQLiteRideStore.Configuration = .init()) async throws -> TrackLibrary {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw RideStoreError.io(path: url.path, reason: "cannot create the data directory: \(TrackLibrary.describe(error))")
        }
        let store = try SQLiteRideStore(path: databaseURL.path, configuration: configuration)
        UploadSpool.removeLeftovers(in: uploadsURL)
        return TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: documentsURL, uploadsFolder: uploadsURL)
    }
}
