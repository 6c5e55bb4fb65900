import Foundation
import GRDB
import RideKit

/// The `RideStore` on one SQLite file (GRDB): the embedded default, and what the tests run against.
///
/// - A file is opened as a `DatabasePool`: WAL journal, so readers (the list, an export) never wait for a
///   writer (an import) and the other way round; one writer at a time, other processes wait up to
///   `Configuration.busyTimeoutSeconds`.
/// - Foreign keys are on: deleting a track deletes its segments and point blocks, deleting a place its notes
///   and photos, deleting a user everything of theirs.
/// - The schema is created and upgraded by named migrations when the store opens (`SQLiteRideStore+Schema`).
/// - `synchronous` is chosen on purpose (`Durability`): by default `FULL`, so that what a call acknowledged
///   survives an application crash *and* a power cut; see `Durability` for the trade.
public final class SQLiteRideStore: RideStore {
    /// How hard each commit is pushed to the disk (SQLite's `synchronous`, in WAL mode).
    public enum Durability: String, Sendable, CaseIterable {
        /// `synchronous = FULL`: every commit waits until the WAL is flushed to the disk (`fsync`). An
        /// application crash (even SIGKILL) and a power cut or kernel crash lose nothing that was committed,
        /// as far as the disk honours flushes. Costs one flush per commit — negligible for imports (one
        /// commit per file), a few milliseconds per batch of fixes. The default: a phone deletes the fixes
        /// the server acknowledged, so an acknowledged fix must survive anything.
        case full
        /// `synchronous = NORMAL`: commits are not flushed; the WAL is flushed at checkpoints. An application
        /// crash still loses nothing committed (the OS has the data), but a power cut or kernel crash may
        /// roll back the last transactions committed since the last checkpoint (up to the last 10,000 pages, `wal_autocheckpoint`
        /// written). The database stays consistent either way.
        case normal

        var pragma: String { self == .full ? "FULL" : "NORMAL" }
    }

    /// How the store opens its database.
    public struct Configuration: Sendable {
        public var durability: Durability
        /// How long a write waits for another process holding the write lock before it fails, seconds.
        public var busyTimeoutSeconds: Double
        /// Readers that may run at once (file databases).
        public var maximumReaderCount: Int

        public init(durability: Durability = .full, busyTimeoutSeconds: Double = 10, maximumReaderCount: Int = 5) {
            self.durability = durability
            self.busyTimeoutSeconds = busyTimeoutSeconds
            self.maximumReaderCount = maximumReaderCount
        }
    }

    let writer: any DatabaseWriter
    /// Where the database is, or nil in memory.
    public let path: String?
    /// Where photos' bytes are kept: `Photos/` beside the database file; for a store in memory, a temporary
    /// folder removed with the store.
    public let photoFolder: PhotoFolder
    private let removesPhotoFolder: Bool

    /// Opens (creating if needed) the database file at `path` and brings its schema up to date.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        do {
            let directory = URL(filePath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // Everyone's rides and password hashes: readable by this user only, as photos are (SQLite gives the
            // -wal and -shm files the database's mode).
            if !FileManager.default.fileExists(atPath: path) {
                FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            let pool = try DatabasePool(path: path, configuration: Self.grdbConfiguration(configuration))
            // GRDB sets `synchronous = NORMAL` on the pool's writer when it turns WAL on, after
            // `prepareDatabase` ran: the durability chosen is set again here, on the one connection that writes.
            // The WAL is folded into the database every 10,000 pages (about 40 MB) instead of SQLite's 1,000: under
            // many phone-app posts a group commit wrote ~600 pages, so every other commit also ran a checkpoint, and
            // pages written again and again (a device's row, its live track's) went to the database file each time
            // (measured: 6,300-6,600 -> 7,100-7,200 single-fix posts/s, Benchmarks/README.md).
            try pool.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA synchronous = \(configuration.durability.pragma)")
                try db.execute(sql: "PRAGMA wal_autocheckpoint = 10000")
            }
            writer = pool
        } catch {
            throw Self.storeError(error)
        }
        self.path = path
        photoFolder = PhotoFolder(url: URL(filePath: path).deletingLastPathComponent().appending(path: "Photos", directoryHint: .isDirectory))
        removesPhotoFolder = false
        try migrate()
        try preparePhotoFolder()
    }

    /// A fresh database in memory, gone when the store is (tests).
    public init(inMemory configuration: Configuration = Configuration()) throws {
        do {
            writer = try DatabaseQueue(configuration: Self.grdbConfiguration(configuration))
        } catch {
            throw Self.storeError(error)
        }
        path = nil
        photoFolder = PhotoFolder(
            url: FileManager.default.temporaryDirectory.appending(path: "bikeride-photos-\(UUID().uuidString)", directoryHint: .isDirectory))
        removesPhotoFolder = true
        try migrate()
        try preparePhotoFolder()
    }

    deinit {
        if removesPhotoFolder { try? FileManager.default.removeItem(at: photoFolder.url) }
    }

    static func grdbConfiguration(_ configuration: Configuration) -> GRDB.Configuration {
        var grdb = GRDB.Configuration()
        grdb.foreignKeysEnabled = true
        grdb.busyMode = .timeout(configuration.busyTimeoutSeconds)
        grdb.maximumReaderCount = configuration.maximumReaderCount
        grdb.label = "bikeride"
        let durability = configuration.durability
        grdb.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = \(durability.pragma)")
            // Statement journals (what a savepoint needs to roll one post of a group commit back) in memory: on
            // disk, SQLite spilled them to a temporary file past 64 KiB, and those writes were 80 % of a busy
            // server's writes (strace), for data thrown away at each RELEASE.
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        return grdb
    }

    /// SQLite's `synchronous` on the connection that writes: 2 for `.full`, 1 for `.normal`.
    func synchronousSetting() async throws -> Int {
        try await writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    private func migrate() throws {
        do {
            try Self.migrator.migrate(writer)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Folds the WAL into the database file and empties it (SQLite's `wal_checkpoint(TRUNCATE)`): after it,
    /// the database file alone holds everything (a plain copy of it is a backup), and its size is the data's.
    public func checkpoint() async throws {
        do {
            try await writer.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
            throw Self.storeError(error)
        }
    }

    // MARK: Access

    /// Runs `body` in a write transaction; GRDB's errors become `RideStoreError`.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writer.write(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` with a consistent snapshot for reading.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writer.read(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    static func storeError(_ error: any Error) -> any Error {
        switch error {
        case is RideStoreError, is CancellationError, is RecordingChangedError: return error
        case let error as DatabaseError:
            if error.resultCode == .SQLITE_CONSTRAINT {
                return RideStoreError.conflict(error.message ?? "a constraint of the database was violated")
            }
            return RideStoreError.database("\(error.message ?? "\(error.resultCode)") (\(error.resultCode))")
        case let error as PointBlockError: return RideStoreError.damaged(error.description)
        default: return RideStoreError.database("\(error)")
        }
    }

    /// A random id that `table` does not use yet.
    static func freshID<Kind>(_ db: Database, table: String) throws -> ID<Kind> {
        while true {
            let id = ID<Kind>.random()
            let taken = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ?)", arguments: [id]) ?? false
            if !taken { return id }
        }
    }

    // MARK: Users

    public func localUser() async throws -> User {
        try await write { db in
            if let existing = try UserRecord.filter(UserRecord.Columns.name == User.localName).fetchOne(db) {
                return existing.user
            }
            let record = UserRecord(id: try Self.freshID(db, table: "user"), name: User.localName, createdAt: StoreClock.now())
            try record.insert(db)
            return record.user
        }
    }

    public func createUser(name: String, passwordHash: String?) async throws -> User {
        let name = try UserRules.name(name)
        return try await write { db in
            guard try UserRecord.filter(UserRecord.Columns.name == name).fetchCount(db) == 0 else {
                throw RideStoreError.conflict("the user name '\(name)' is taken")
            }
            let record = UserRecord(id: try Self.freshID(db, table: "user"), name: name, passwordHash: passwordHash, createdAt: StoreClock.now())
            try record.insert(db)
            return record.user
        }
    }

    public func user(id: UserID) async throws -> User? {
        // Prepared once per connection: every OwnTracks post asks (the user named in its Basic auth).
        try await read { db in try UserRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE id = ?"), arguments: [id])?.user }
    }

    public func user(named name: String) async throws -> User? {
        try await read { db in try UserRecord.filter(UserRecord.Columns.name == name).fetchOne(db)?.user }
    }

    // MARK: Devices

    public func createDevice(_ device: NewDevice, userID: UserID) async throws -> Device {
        guard !device.tokenHash.isEmpty else { throw RideStoreError.invalid(field: "tokenHash", reason: "must not be empty") }
        return try await write { db in
            try Self.requireUser(db, userID)
            let record = DeviceRecord(
                id: try Self.freshID(db, table: "device"), userId: userID, name: device.name, tokenHash: device.tokenHash,
                protocol: device.protocolName, createdAt: StoreClock.now())
            try record.insert(db)
            return record.device
        }
    }

    public func devices(userID: UserID) async throws -> [Device] {
        try await read { db in
            try DeviceRecord.filter(DeviceRecord.Columns.userId == userID).order(DeviceRecord.Columns.createdAt).fetchAll(db).map(\.device)
        }
    }

    public func device(tokenHash: String) async throws -> Device? {
        // Prepared once per connection: every phone-app post asks.
        try await read { db in
            try DeviceRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM device WHERE tokenHash = ?"), arguments: [tokenHash])?.device
        }
    }

    public func markDeviceSeen(id: DeviceID, at date: Date) async throws {
        try await write { db in
            _ = try DeviceRecord.filter(key: id).updateAll(db, DeviceRecord.Columns.lastSeenAt.set(to: StoreClock.milliseconds(date)))
        }
    }

    public func deleteDevice(id: DeviceID, userID: UserID) async throws -> Bool {
        try await write { db in
            guard try DeviceRecord.filter(key: id).filter(DeviceRecord.Columns.userId == userID).fetchCount(db) > 0 else { return false }
            // Its ride in progress is finished first, packed with its figures: the device's fixes go with it, and
            // a live track's latest points are read from them until then. It stays among the user's tracks.
            let live = try RecordingRecord.fetchAll(
                db, sql: "SELECT * FROM recording WHERE deviceId = ? AND userId = ? AND state != ?", arguments: [id, userID, RecordingState.stopped])
            for recording in live { try Self.finishDeviceTrack(recording, db) }
            return try DeviceRecord.filter(key: id).filter(DeviceRecord.Columns.userId == userID).deleteAll(db) > 0
        }
    }

    static func requireUser(_ db: Database, _ userID: UserID) throws {
        guard try UserRecord.exists(db, key: userID) else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
    }
}
