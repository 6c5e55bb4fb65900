import Foundation
import PostgresNIO
import RideKit
import RideStore

/// The `RideStore` on a PostgreSQL database (postgres-nio): for several `bikeride serve` instances on one
/// database (DESIGN 1, 5). A peer of the SQLite store: the same data model — points in packed blocks of 1,024,
/// every row owned by a user — in tables of its own schema (`PostgresRideStore+Schema`), and the same rules, which
/// live once in RideStore's `Core/` (`TrackRules`, `DeviceIngestRules`, …); this module only runs SQL.
///
/// - Connections come from postgres-nio's pool (`PostgresClient`), at most `Configuration.maximumConnections`.
/// - Each protocol call is one transaction on one pooled connection; reads that take several statements run
///   in `REPEATABLE READ`, so they see one snapshot.
/// - Every value goes to the server as a bound parameter; SQL text is never built from values.
/// - What two instances may do at once is decided by the database: unique constraints with `ON CONFLICT`, and
///   a row lock on the recording while fixes are appended, never an in-process lock.
///
/// Open with `open(_:)`, which checks that the database can be reached and brings its schema up to date (or
/// refuses a newer one), and `close()` when done. Errors are `RideStoreError`.
public final class PostgresRideStore: RideStore {
    public struct Configuration: Sendable {
        public var url: PostgresDatabaseURL
        /// Connections the pool opens at most (this instance; PostgreSQL's `max_connections` is for all of them).
        public var maximumConnections: Int
        /// How long opening a connection may take before it fails, seconds.
        public var connectTimeoutSeconds: Double
        /// How long one call's transaction may take, seconds, before its connection is given up and the call fails
        /// as `unavailable`: what ends a call whose database went silent (a network cut sends no reset, and
        /// TCP would wait many minutes). A bulk import gets `longTransactionFactor` times as long.
        public var transactionTimeoutSeconds: Double

        public init(
            url: PostgresDatabaseURL, maximumConnections: Int = 10, connectTimeoutSeconds: Double = 10,
            transactionTimeoutSeconds: Double = 30
        ) {
            self.url = url
            self.maximumConnections = maximumConnections
            self.connectTimeoutSeconds = connectTimeoutSeconds
            self.transactionTimeoutSeconds = transactionTimeoutSeconds
        }

        /// A bulk import's transaction may take this many times `transactionTimeoutSeconds`.
        public static let longTransactionFactor = 20.0
    }

    let client: PostgresClient
    let logger: Logger
    public let configuration: Configuration
    private let runTask: Task<Void, Never>

    private init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        var clientConfiguration = PostgresClient.Configuration(
            host: configuration.url.host, port: configuration.url.port, username: configuration.url.user,
            password: configuration.url.password, database: configuration.url.database, tls: Self.clientTLS(configuration.url.tls))
        clientConfiguration.options.maximumConnections = configuration.maximumConnections
        clientConfiguration.options.minimumConnections = 0
        clientConfiguration.options.connectTimeout = .milliseconds(Int64(configuration.connectTimeoutSeconds * 1000))
        // The database's side of a network cut: a transaction whose client went silent (its connection given up
        // at the deadline, but no reset reached the server) would hold its row locks, and with them the
        // device's or the recording's next posts, until TCP noticed, hours later. PostgreSQL ends a session
        // idle inside a transaction for that long.
        clientConfiguration.options.additionalStartupParameters = [
            ("idle_in_transaction_session_timeout", String(Int64(configuration.transactionTimeoutSeconds * 1000)))
        ]
        let client = PostgresClient(configuration: clientConfiguration, backgroundLogger: logger)
        self.client = client
        runTask = Task { await client.run() }
    }

    deinit { runTask.cancel() }

    /// Connects (failing clearly when the database cannot be reached), applies the migrations this version
    /// knows and the database lacks, and refuses a database whose schema is newer than this version.
    public static func open(_ configuration: Configuration, logger: Logger = Logger(label: "bikeride.postgres")) async throws -> PostgresRideStore {
        guard (1...1000).contains(configuration.maximumConnections) else {
            throw RideStoreError.invalid(field: "maximumConnections", reason: "must be between 1 and 1,000")
        }
        try await migrate(configuration, logger: logger)
        return PostgresRideStore(configuration: configuration, logger: logger)
    }

    /// Stops the pool; the store answers no call after it.
    public func close() async {
        runTask.cancel()
        _ = await runTask.value
    }

    // MARK: Connections

    static func clientTLS(_ mode: PostgresDatabaseURL.TLSMode) -> PostgresClient.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(.makeClientConfiguration())
        case .require: return .require(.makeClientConfiguration())
        }
    }

    static func connectionTLS(_ mode: PostgresDatabaseURL.TLSMode) throws -> PostgresConnection.Configuration.TLS {
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: return .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }

    /// One connection outside the pool (migrations): fails within the connect timeout when nothing answers.
    static func connect(_ configuration: Configuration, logger: Logger) async throws -> PostgresConnection {
        let url = configuration.url
        do {
            var connection = PostgresConnection.Configuration(
                host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
                tls: try connectionTLS(url.tls))
            connection.options.connectTimeout = .milliseconds(Int64(configuration.connectTimeoutSeconds * 1000))
            return try await PostgresConnection.connect(configuration: connection, id: 1, logger: logger)
        } catch {
            throw RideStoreError.database("cannot reach PostgreSQL at \(url): \(describe(error))")
        }
    }

    /// Runs `body` in one transaction on a pooled connection: committed when it returns, rolled back when it
    /// throws. `readOnly` reads take one snapshot for all their statements.
    ///
    /// Both waits are bounded, so that while the database is down or out of reach the server answers 503 (and
    /// the phone retries) rather than hanging:
    /// - for a connection, `connectTimeoutSeconds` (at least 5 s): postgres-nio's pool keeps trying to connect
    ///   and would hold the call forever;
    /// - for the transaction, `transactionTimeoutSeconds` (`long`: a bulk import, 20 times that): past it the
    ///   connection is closed, which fails the statement waiting on it, and the call fails as `unavailable`.
    ///   PostgreSQL rolls back what the closed connection had not committed; a COMMIT whose answer was lost may
    ///   have happened, which is why every write a client retries is deduplicated by the database.
    func transaction<T: Sendable>(
        readOnly: Bool = false, long: Bool = false, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection(deadlineFactor: long ? Configuration.longTransactionFactor : 1) { [logger] connection, expired in
            try await connection.query(
                PostgresQuery(unsafeSQL: readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN"), logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                if !expired.isSet && !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: logger) }
                throw error
            }
        }
    }

    /// `ANALYZE` of the tables a bulk import fills and the across-rides queries plan over (see the protocol).
    public func refreshPlannerStatistics() async throws {
        try await withConnection(deadlineFactor: Configuration.longTransactionFactor) { [logger] connection, _ in
            try await connection.query("ANALYZE tracks, track_efforts, segments, point_blocks", logger: logger)
        }
    }

    /// Runs one statement outside a transaction block (PostgreSQL runs a lone statement as its own transaction,
    /// on one snapshot): a lookup on a hot path — a device's token on every phone post — in one round trip
    /// instead of three. The same bounded waits as `transaction`.
    func statement<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await withConnection(deadlineFactor: 1) { connection, _ in try await body(connection) }
    }

    /// A pooled connection for `body`, with both waits bounded (see `transaction`); `expired` is set once the
    /// deadline has closed the connection.
    ///
    /// The call ends when its first bound passes, whatever the work is doing: the work runs in a task of its
    /// own and the caller waits on a one-shot answer that the work, the connection wait or the deadline gives.
    /// A task group would not do: it waits for all of its children, and a statement on a connection the server
    /// dropped (an immediate shutdown) or the ROLLBACK after it can hang in postgres-nio even once the
    /// connection is closed; every request for that recording then queued behind it for ever.
    private func withConnection<T: Sendable>(
        deadlineFactor: Double, _ body: @escaping @Sendable (PostgresConnection, AcquiredFlag) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        let client = self.client
        let acquired = AcquiredFlag()
        let expired = AcquiredFlag()
        let wait = max(5, configuration.connectTimeoutSeconds)
        let deadline = configuration.transactionTimeoutSeconds * deadlineFactor
        let url = configuration.url
        let answer = OneAnswer<T>()
        let work = Task {
            do {
                let value = try await client.withConnection { connection in
                    acquired.set()
                    let timer = Task {
                        try await Task.sleep(for: .milliseconds(Int64(deadline * 1000)))
                        expired.set()
                        logger.warning("a PostgreSQL transaction took over \(deadline) s: its connection is closed")
                        answer.give(.failure(RideStoreError.unavailable(
                            "PostgreSQL at \(url) did not answer within \(Self.seconds(deadline))")))
                        try? await connection.close()
                    }
                    defer { timer.cancel() }
                    return try await body(connection, expired)
                }
                answer.give(.success(value))
            } catch let error as RideStoreError {
                answer.give(.failure(error))
            } catch where !acquired.isSet && !(error is CancellationError) {
                // No connection could be made (the database refuses them, is starting, or is out of reach): whatever
                // the pool's reason, the database is unavailable, and the request may be sent again.
                answer.give(.failure(RideStoreError.unavailable(Self.describe(error))))
            } catch {
                answer.give(.failure(Self.storeError(error)))
            }
        }
        let connectionWait = Task {
            try await Task.sleep(for: .milliseconds(Int64(wait * 1000)))
            guard !acquired.isSet else { return }
            answer.give(.failure(RideStoreError.unavailable(
                "no connection to PostgreSQL at \(url) within \(Self.seconds(wait)) (is the server up?)")))
        }
        answer.whenGiven { work.cancel(); connectionWait.cancel() }
        return try await withTaskCancellationHandler {
            try await answer.value()
        } onCancel: {
            answer.give(.failure(CancellationError()))
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// postgres-nio's errors as `RideStoreError`: constraint violations are conflicts, the rest database errors
    /// with the server's message (never the query's values).
    static func storeError(_ error: any Error) -> any Error {
        switch error {
        case is RideStoreError, is CancellationError, is ClientIDTaken, is RecordingChangedError: return error
        case let error as PSQLError:
            if let state = error.serverInfo?[.sqlState], state.hasPrefix("23") {
                return RideStoreError.conflict(error.serverInfo?[.message] ?? "a constraint of the database was violated")
            }
            // Data exceptions (a NUL in text, a number out of range …): the value, not the database, is at fault.
            if let state = error.serverInfo?[.sqlState], state.hasPrefix("22") {
                return RideStoreError.invalid(field: "value", reason: error.serverInfo?[.message] ?? "cannot be stored")
            }
            if isUnavailable(error) { return RideStoreError.unavailable(describe(error)) }
            return RideStoreError.database(describe(error))
        case let error as PointBlockError: return RideStoreError.damaged(error.description)
        case let error as PostgresDecodingError:
            return RideStoreError.damaged("a column of type \(error.postgresType) could not be read as \(error.targetType)")
        default: return RideStoreError.database(describe(error))
        }
    }

    /// True when the database, not the request, is away: the connection failed or was closed, or the server is
    /// shutting down or starting (SQLSTATE class 08, 57P01–57P03). A retry later will work.
    static func isUnavailable(_ error: PSQLError) -> Bool {
        if let state = error.serverInfo?[.sqlState] {
            return state.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(state)
        }
        switch error.code {
        case .connectionError, .serverClosedConnection, .clientClosedConnection: return true
        default: return false
        }
    }

    /// What went wrong, from the server's message or the kind of failure; postgres-nio's own description hides
    /// both on purpose (it may hold a query's values).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            let state = error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? ""
            return message + state
        }
        switch error.code {
        case .connectionError: return "the connection failed\(error.underlying.map { ": \($0)" } ?? "")"
        case .serverClosedConnection: return "the server closed the connection"
        case .clientClosedConnection, .poolClosed: return "the store is closed"
        case .sslUnsupported: return "the server does not support TLS (sslmode=require)"
        case .authMechanismRequiresPassword: return "the server asks for a password: give it in the URL or PGPASSWORD"
        case .unsupportedAuthMechanism: return "the server asks for an authentication method postgres-nio does not support"
        case .queryCancelled: return "the query was cancelled"
        default: return "\(error.code)"
        }
    }

    // MARK: Values

    /// Now, to the millisecond: dates are stored as milliseconds since 1970 (BIGINT), as in the SQLite store.
    static func now() -> Date { StoreClock.now() }

    static func milliseconds(_ date: Date) -> Int64 { StoreClock.milliseconds(date) }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    static func shortID(_ text: String, column: String) throws -> ShortID {
        guard let id = ShortID(text) else { throw RideStoreError.damaged("\(column) '\(text)' is not an id") }
        return id
    }

    /// A typed id read from `column`; its kind comes from where it goes.
    static func shortID<Kind>(_ text: String, column: String) throws -> ID<Kind> {
        ID(try shortID(text, column: column) as ShortID)
    }


    // MARK: Users

    public func localUser() async throws -> User {
        try await transaction { [logger] connection in
            let id = UserID.random().rawValue
            let now = Self.milliseconds(Self.now())
            try await connection.query(
                "INSERT INTO users (id, name, created_at) VALUES (\(id), \(User.localName), \(now)) ON CONFLICT (name) DO NOTHING",
                logger: logger)
            guard let user = try await Self.user(connection, named: User.localName, logger: logger) else {
                throw RideStoreError.damaged("the local user vanished")
            }
            return user
        }
    }

    public func createUser(name: String, passwordHash: String?) async throws -> User {
        let name = try UserRules.name(name)
        return try await transaction { [logger] connection in
            let user = User(id: .random(), name: name, passwordHash: passwordHash, createdAt: Self.now())
            let rows = try await connection.query(
                """
                INSERT INTO users (id, name, password_hash, created_at)
                VALUES (\(user.id.rawValue), \(name), \(passwordHash), \(Self.milliseconds(user.createdAt)))
                ON CONFLICT (name) DO NOTHING RETURNING id
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.conflict("the user name '\(name)' is taken") }
            return user
        }
    }

    public func user(id: UserID) async throws -> User? {
        try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                "SELECT id, name, password_hash, created_at FROM users WHERE id = \(id.rawValue)", logger: logger)
            return try await Self.users(rows).first
        }
    }

    public func user(named name: String) async throws -> User? {
        try await transaction(readOnly: true) { [logger] connection in try await Self.user(connection, named: name, logger: logger) }
    }

    static func user(_ connection: PostgresConnection, named name: String, logger: Logger) async throws -> User? {
        let rows = try await connection.query("SELECT id, name, password_hash, created_at FROM users WHERE name = \(name)", logger: logger)
        return try await users(rows).first
    }

    static func users(_ rows: PostgresRowSequence) async throws -> [User] {
        var users: [User] = []
        for try await row in rows { users.append(try user(row)) }
        return users
    }

    /// A row of id, name, password_hash, created_at.
    static func user(_ row: PostgresRow) throws -> User {
        let (id, name, passwordHash, createdAt) = try row.decode((String, String, String?, Int64).self)
        return User(id: try shortID(id, column: "users.id"), name: name, passwordHash: passwordHash, createdAt: date(createdAt))
    }

    static func requireUser(_ connection: PostgresConnection, _ userID: UserID, logger: Logger) async throws {
        let rows = try await connection.query("SELECT 1 FROM users WHERE id = \(userID.rawValue)", logger: logger)
        guard try await rows.collect().count == 1 else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
    }

    // MARK: Devices

    public func createDevice(_ device: NewDevice, userID: UserID) async throws -> Device {
        guard !device.tokenHash.isEmpty else { throw RideStoreError.invalid(field: "tokenHash", reason: "must not be empty") }
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            let stored = Device(
                id: .random(), userID: userID, name: device.name, tokenHash: device.tokenHash, protocolName: device.protocolName,
                createdAt: Self.now(), lastSeenAt: nil)
            let rows = try await connection.query(
                """
                INSERT INTO devices (id, user_id, name, token_hash, protocol, created_at)
                VALUES (\(stored.id.rawValue), \(userID.rawValue), \(device.name), \(device.tokenHash), \(device.protocolName),
                        \(Self.milliseconds(stored.createdAt)))
                ON CONFLICT (token_hash) DO NOTHING RETURNING id
                """, logger: logger)
            guard try await rows.collect().count == 1 else { throw RideStoreError.conflict("the device token is taken") }
            return stored
        }
    }

    public func devices(userID: UserID) async throws -> [Device] {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.devices(
                connection.query(
                    "SELECT \(unescaped: Self.deviceColumns) FROM devices WHERE user_id = \(userID.rawValue) ORDER BY created_at, id",
                    logger: logger))
        }
    }

    public func device(tokenHash: String) async throws -> Device? {
        try await statement { [logger] connection in
            try await connection.execute(DeviceByToken(tokenHash: tokenHash), logger: logger).first { _ in true }
        }
    }

    public func markDeviceSeen(id: DeviceID, at date: Date) async throws {
        try await transaction { [logger] connection in
            _ = try await connection.query(
                "UPDATE devices SET last_seen_at = \(Self.milliseconds(date)) WHERE id = \(id.rawValue)", logger: logger)
        }
    }

    public func deleteDevice(id: DeviceID, userID: UserID) async throws -> Bool {
        try await transaction { [logger] connection in
            // The user's row, then the device's, locked as a batch of posts locks them (users before devices): a post
            // of this device on another instance waits for the delete, and then finds no device.
            try await connection.query("SELECT id FROM users WHERE id = \(userID.rawValue) FOR NO KEY UPDATE", logger: logger)
            let owned = try await connection.query(
                "SELECT id FROM devices WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue) FOR UPDATE", logger: logger)
            guard try await owned.collect().count == 1 else { return false }
            // Its ride in progress is finished first, with its figures (as on SQLite): it stays among the user's
            // tracks, complete, instead of recording for ever.
            let live = try await connection.query(
                """
                SELECT id FROM recordings
                WHERE device_id = \(id.rawValue) AND user_id = \(userID.rawValue) AND state <> \(RecordingState.stopped.rawValue)
                ORDER BY id FOR UPDATE
                """, logger: logger)
            var recordingIDs: [RecordingID] = []
            for try await text in live.decode(String.self) { recordingIDs.append(try Self.shortID(text, column: "recordings.id")) }
            for recordingID in recordingIDs {
                guard let recording = try await Self.recording(connection, id: recordingID, userID: userID, logger: logger) else { continue }
                try await Self.finishDeviceTrack(recording, connection, logger: logger)
            }
            let rows = try await connection.query(
                "DELETE FROM devices WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue) RETURNING id", logger: logger)
            return try await rows.collect().count > 0
        }
    }

    static let deviceColumns = "id, user_id, name, token_hash, protocol, created_at, last_seen_at"

    static func devices(_ rows: PostgresRowSequence) async throws -> [Device] {
        var devices: [Device] = []
        for try await row in rows { devices.append(try device(row)) }
        return devices
    }

    /// A row of `deviceColumns`.
    static func device(_ row: PostgresRow) throws -> Device {
        let (id, userID, name, tokenHash, protocolName, createdAt, lastSeenAt) = try row.decode(
            (String, String, String, String, String, Int64, Int64?).self)
        return Device(
            id: try shortID(id, column: "devices.id"), userID: try shortID(userID, column: "devices.user_id"), name: name,
            tokenHash: tokenHash, protocolName: protocolName, createdAt: date(createdAt), lastSeenAt: lastSeenAt.map(date))
    }
}

/// The device a phone app's post names by its token: asked on every post, so prepared once per connection.
struct DeviceByToken: PostgresPreparedStatement {
    static let sql = "SELECT \(PostgresRideStore.deviceColumns) FROM devices WHERE token_hash = $1"
    typealias Row = Device
    var tokenHash: String

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(tokenHash)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Device { try PostgresRideStore.device(row) }
}

extension DataDirectory {
    /// The local user's library on a PostgreSQL store. Uploads are spooled in this directory (one request's
    /// file, on the instance that takes the request). The documents folder is a folder of one machine: a server
    /// on PostgreSQL keeps none (its instances do not share a disk; the database is the library), and
    /// `documents: true` (what `bikeride sync --database` asks) syncs this directory's `Documents/` with the
    /// database, on the machine the command runs on.
    public func openLibrary(on store: PostgresRideStore, documents: Bool = false) async throws -> TrackLibrary {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            if documents { try FileManager.default.createDirectory(at: documentsURL, withIntermediateDirectories: true) }
        } catch {
            throw RideStoreError.io(path: url.path, reason: "cannot create the data directory: \(TrackLibrary.describe(error))")
        }
        UploadSpool.removeLeftovers(in: uploadsURL)
        return TrackLibrary(
            store: store, userID: try await store.localUser().id, documentsFolder: documents ? documentsURL : nil, uploadsFolder: uploadsURL)
    }
}

extension PostgresRideStore {
    /// Applies the migrations the database lacks (`bikeride migrate`) and returns every one it has, in order;
    /// refuses a newer schema like `open`.
    public static func migrateDatabase(_ configuration: Configuration, logger: Logger = Logger(label: "bikeride.postgres")) async throws -> (applied: [String], all: [String]) {
        let before = try await appliedMigrations(configuration, logger: logger)
        try await migrate(configuration, logger: logger)
        let after = try await appliedMigrations(configuration, logger: logger)
        return (after.filter { !before.contains($0) }, after)
    }
}

/// Whether a call got its connection (set once, read by the timer that bounds the wait).
final class AcquiredFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// The answer to one call, given once by whichever comes first of the work, its connection wait and its deadline
/// (later ones are dropped), and waited for by the caller.
final class OneAnswer<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var waiter: CheckedContinuation<T, any Error>?
    private var ready: Result<T, any Error>?
    private var given = false
    private var actions: [@Sendable () -> Void] = []

    /// Runs `action` once the answer is given (at once when it already is).
    func whenGiven(_ action: @escaping @Sendable () -> Void) {
        let now = lock.withLock {
            if !given { actions.append(action) }
            return given
        }
        if now { action() }
    }

    func give(_ result: Result<T, any Error>) {
        let taken: (CheckedContinuation<T, any Error>?, [@Sendable () -> Void])? = lock.withLock {
            guard !given else { return nil }
            given = true
            defer { waiter = nil; actions = [] }
            if waiter == nil { ready = result }
            return (waiter, actions)
        }
        guard let (waiter, actions) = taken else { return }
        waiter?.resume(with: result)
        actions.forEach { $0() }
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let early: Result<T, any Error>? = lock.withLock {
                if let ready { self.ready = nil; return ready }
                waiter = continuation
                return nil
            }
            if let early { continuation.resume(with: early) }
        }
    }
}
