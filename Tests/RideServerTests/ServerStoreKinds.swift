import Foundation
import PostgresNIO
import RideKit
@testable import RideServer
@testable import RideStore
@testable import RideStorePostgres
import TestSupport
import Testing

/// The stores the server's tests that hold for both run on: `@Test(arguments: StoreKind.allCases)` with
/// `withServer(kind) { server, library in … }`. PostgreSQL needs `BIKERIDE_TEST_DATABASE_URL` (scripts/test.sh sets
/// it); without it those cases are skipped and say why.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }
}

/// A test server on a fresh store of `kind` (SQLite in a temporary folder, or PostgreSQL on a database of its own,
/// dropped afterwards), and its library.
func withServer<T>(_ kind: StoreKind, _ body: (TestServer, TrackLibrary) async throws -> T) async throws -> T {
    switch kind {
    case .sqlite:
        let (server, library) = try await TemporaryStore().server()
        return try await body(server, library)
    case .postgres:
        return try await withPostgresTestDatabase { url in
            var logger = Logger(label: "bikeride.tests.postgres")
            logger.logLevel = .error
            let store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: logger)
            do {
                let library = TrackLibrary(store: store, userID: try await store.localUser().id)
                let result = try await body(TestServer(library: library), library)
                await store.close()
                return result
            } catch {
                await store.close()
                throw error
            }
        }
    }
}

/// A PostgreSQL database of its own on the test server (`BIKERIDE_TEST_DATABASE_URL`), holding one of its slots,
/// dropped afterwards whatever happened; the test is skipped without a server.
func withPostgresTestDatabase<T>(_ body: (PostgresDatabaseURL) async throws -> T) async throws -> T {
    guard let text = ProcessInfo.processInfo.environment["BIKERIDE_TEST_DATABASE_URL"], !text.isEmpty else {
        try Test.cancel("PostgreSQL not tested: BIKERIDE_TEST_DATABASE_URL is not set (scripts/test.sh sets it; README, 'Tests on PostgreSQL')")
    }
    let server = try PostgresDatabaseURL(parsing: text)
    var logger = Logger(label: "bikeride.tests.postgres")
    logger.logLevel = .error
    // Made here of hex digits: no outside value reaches the SQL text.
    let name = "bikeride_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    func administer(_ sql: String) async throws {
        let connection = try await PostgresRideStore.connect(.init(url: server), logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }
    return try await withPostgresTestSlot {
        try await administer("CREATE DATABASE \(name)")
        var url = server
        url.database = name
        do {
            let result = try await body(url)
            try await administer("DROP DATABASE \(name) WITH (FORCE)")
            return result
        } catch {
            try? await administer("DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
    }
}
