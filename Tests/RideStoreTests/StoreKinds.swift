import Foundation
import GRDB
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
import TestSupport
@testable import RideStorePostgres

/// The implementations the shared store tests run on: `@Test(arguments: StoreKind.allCases)` and
/// `withStore(kind) { store in … }`, so that one set of assertions holds for both.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// The PostgreSQL server the tests use: `BIKERIDE_TEST_DATABASE_URL`, which scripts/test.sh sets to a throwaway
/// cluster (scripts/lib/postgres.sh). Unset, the PostgreSQL cases are skipped and say why.
enum PostgresTestServer {
    static let variable = "BIKERIDE_TEST_DATABASE_URL"
    static let skipMessage =
        "PostgreSQL not tested: \(variable) is not set (scripts/test.sh starts a throwaway server and sets it; README, 'Tests on PostgreSQL')"

    static var url: PostgresDatabaseURL? {
        get throws {
            guard let text = ProcessInfo.processInfo.environment[variable], !text.isEmpty else { return nil }
            return try PostgresDatabaseURL(parsing: text)
        }
    }

    /// The server's URL, or the test case is skipped.
    static func requireURL() throws -> PostgresDatabaseURL {
        guard let url = try url else { try Test.cancel(Comment(rawValue: skipMessage)) }
        return url
    }

    static var logger: Logger {
        var logger = Logger(label: "bikeride.tests.postgres")
        logger.logLevel = .error
        return logger
    }

    /// A new, empty database on the server; `body` gets its URL; dropped afterwards, whatever happened.
    static func withDatabase<T>(_ body: (PostgresDatabaseURL) async throws -> T) async throws -> T {
        let server = try requireURL()
        return try await withPostgresTestSlot { try await withDatabase(on: server, body) }
    }

    private static func withDatabase<T>(on server: PostgresDatabaseURL, _ body: (PostgresDatabaseURL) async throws -> T) async throws -> T {
        // Lower-case hex: a name that needs no quoting; it is no value of the test's, so it may be SQL text.
        let name = "bikeride_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await administer(server, "CREATE DATABASE \(name)")
        var url = server
        url.database = name
        do {
            let result = try await body(url)
            try await administer(server, "DROP DATABASE \(name) WITH (FORCE)")
            return result
        } catch {
            try? await administer(server, "DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
    }

    /// Runs one statement on the server's own database, on a connection of its own.
    static func administer(_ server: PostgresDatabaseURL, _ sql: String) async throws {
        let connection = try await PostgresRideStore.connect(PostgresRideStore.Configuration(url: server), logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw PostgresRideStore.storeError(error)
        }
    }
}

/// Runs `body` with a fresh, empty store of `kind`: an SQLite file in a temporary folder, or a PostgreSQL store
/// on a database of its own (dropped afterwards).
func withStore<T>(_ kind: StoreKind, _ body: (any RideStore) async throws -> T) async throws -> T {
    switch kind {
    case .sqlite:
        let test = try TestStore()
        return try await body(test.store)
    case .postgres:
        return try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            do {
                let result = try await body(store)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }
}

/// Runs `body` with a way to open stores of `kind` on one fresh database: each call to `open` is a new instance on
/// the same data (a restarted server; on PostgreSQL, also another server beside the first). Closed afterwards.
func withReopenableStore<T>(_ kind: StoreKind, _ body: (_ open: () async throws -> any RideStore) async throws -> T) async throws -> T {
    switch kind {
    case .sqlite:
        let test = try TestStore()
        return try await body { try SQLiteRideStore(path: test.databasePath) }
    case .postgres:
        return try await PostgresTestServer.withDatabase { url in
            let opened = OpenedStores()
            do {
                let result = try await body {
                    let store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2), logger: PostgresTestServer.logger)
                    opened.add(store)
                    return store
                }
                await opened.closeAll()
                return result
            } catch {
                await opened.closeAll()
                throw error
            }
        }
    }
}

/// The PostgreSQL stores a test opened, to close when it ends.
final class OpenedStores: @unchecked Sendable {
    private let lock = NSLock()
    private var stores: [PostgresRideStore] = []

    func add(_ store: PostgresRideStore) { lock.withLock { stores.append(store) } }

    func closeAll() async {
        for store in lock.withLock({ stores }) { await store.close() }
    }
}

/// Runs `body` with the local user's library on a fresh store of `kind` (`withStore`).
func withLibrary<T>(_ kind: StoreKind, _ body: (TrackLibrary) async throws -> T) async throws -> T {
    try await withStore(kind) { store in try await body(TrackLibrary(store: store, userID: try await store.localUser().id)) }
}

/// The point counts of a track's blocks in position order (its segments in order), whichever the store.
func pointBlockSizes(_ store: any RideStore, trackID: TrackID) async throws -> [Int] {
    switch store {
    case let sqlite as SQLiteRideStore:
        return try await sqlite.writer.read { db in
            try Int.fetchAll(db, sql: """
                SELECT pointBlock.pointCount FROM pointBlock JOIN segment ON segment.id = pointBlock.segmentId
                WHERE segment.trackId = ? ORDER BY segment.role, segment.part, segment.position, pointBlock.position
                """, arguments: [trackID])
        }
    case let postgres as PostgresRideStore:
        return try await postgres.transaction(readOnly: true) { connection in
            var sizes: [Int] = []
            let rows = try await connection.query(
                """
                SELECT point_blocks.point_count FROM point_blocks JOIN segments ON segments.id = point_blocks.segment_id
                WHERE segments.track_id = \(trackID.rawValue)
                ORDER BY segments.role, segments.part, segments.position, point_blocks.position
                """, logger: PostgresTestServer.logger)
            for try await size in rows.decode(Int64.self) { sizes.append(Int(size)) }
            return sizes
        }
    default:
        Issue.record("unknown store \(type(of: store))")
        return []
    }
}

/// Rows of the point tables, whichever the store: for "a purge leaves no points behind".
func storedPointRows(_ store: any RideStore) async throws -> (segments: Int, blocks: Int) {
    switch store {
    case let sqlite as SQLiteRideStore:
        return try await sqlite.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM segment") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pointBlock") ?? -1
            )
        }
    case let postgres as PostgresRideStore:
        return (try await postgres.rowCount(table: "segments"), try await postgres.rowCount(table: "point_blocks"))
    default:
        Issue.record("unknown store \(type(of: store))")
        return (-1, -1)
    }
}

/// Rows of the place tables, whichever the store: for "a purge leaves nothing behind".
func storedPlaceRows(_ store: any RideStore) async throws -> (places: Int, notes: Int, placeLabels: Int) {
    switch store {
    case let sqlite as SQLiteRideStore:
        return try await sqlite.writer.read { db in
            (
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM place") ?? -1, try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM note") ?? -1,
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM placeLabel") ?? -1
            )
        }
    case let postgres as PostgresRideStore:
        return (
            try await postgres.rowCount(table: "places"), try await postgres.rowCount(table: "notes"),
            try await postgres.rowCount(table: "place_labels")
        )
    default:
        Issue.record("unknown store \(type(of: store))")
        return (-1, -1, -1)
    }
}

/// Runs a statement the store itself would never run, to damage or inspect its rows: `sqlite` on an SQLite store,
/// `postgres` on a PostgreSQL one (each the same change in its own dialect). Test text, no values of users.
func executeRaw(_ store: any RideStore, sqlite: String, postgres: String) async throws {
    switch store {
    case let store as SQLiteRideStore:
        try await store.writer.write { db in try db.execute(sql: sqlite) }
    case let store as PostgresRideStore:
        _ = try await store.transaction { [logger = PostgresTestServer.logger] connection in
            try await connection.query(PostgresQuery(unsafeSQL: postgres), logger: logger)
        }
    default:
        Issue.record("unknown store \(type(of: store))")
    }
}
