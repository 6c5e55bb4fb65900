import Foundation
import GRDB
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// One data model, three descriptions of it: the SQLite store's migrations, the PostgreSQL store's, and the copy's
/// column catalogue (`CopyTable.all`, which `bikeride copy` moves and checks). Read from live, freshly migrated
/// databases, so that a column added to one and not to the others fails here, not in a user's copy.
@Suite struct SchemaComparisonTests {
    /// Columns by table, in PostgreSQL's terms: `snake_case` columns, plural `snake_case` tables.
    typealias Schema = [String: Set<String>]

    /// What one side holds that the others need not, each with its reason. Anything else that differs fails.
    static let expected: [(side: String, table: String, columns: Set<String>?, reason: String)] = [
        ("postgres", PostgresRideStore.migrationsTable, nil, "each store records its migrations its own way (GRDB's grdb_migrations)"),
        ("sqlite", "grdb_migrations", nil, "GRDB's record of migrations"),
        ("postgres", "login_failures", nil, "failed logins counted in the database every instance shares; SQLite counts them in memory"),
        // Photos: SQLite keeps the bytes in files named in its `photo` row; PostgreSQL in `photo_bytes`.
        ("sqlite", "photos", ["bytes", "file_name", "thumbnail_file_name", "thumbnail"], "SQLite's photo bytes are files (or, before them, the row)"),
        ("postgres", "photo_bytes", nil, "PostgreSQL's photo bytes, beside the row (SQLite's are files)"),
        // The heatmap index is derived from the points: a copy leaves it behind and the target builds it on first use.
        ("postgres", "heatmap_states", nil, "the heatmap index (derived, rebuilt from the points; not copied)"),
        ("postgres", "heatmap_tracks", nil, "the heatmap index (derived, rebuilt from the points; not copied)"),
        ("postgres", "heatmap_pieces", nil, "the heatmap index (derived, rebuilt from the points; not copied)"),
        ("postgres", "heatmap_rasters", nil, "the heatmap index (derived, rebuilt from the points; not copied)"),
        ("sqlite", "heatmap_builds", nil, "SQLite's claim on a heatmap build; PostgreSQL takes an advisory lock, held by the building transaction"),
    ]

    @Test func theSQLiteSchemaThePostgreSQLSchemaAndTheCopyCatalogueHaveTheSameColumns() async throws {
        let sqlite = try await Self.sqliteSchema()
        let postgres = try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 1), logger: PostgresTestServer.logger)
            do {
                let schema = try await Self.postgresSchema(store)
                await store.close()
                return schema
            } catch {
                await store.close()
                throw error
            }
        }
        let catalogue = Self.catalogueSchema()

        var differences: [String] = []
        func compare(_ leftName: String, _ left: Schema, _ rightName: String, _ right: Schema) {
            for table in Set(left.keys).union(right.keys).sorted() {
                let leftColumns = left[table] ?? [], rightColumns = right[table] ?? []
                if left[table] == nil, !Self.isExpected(side: rightName, table: table, columns: nil) {
                    differences.append("table \(table): in \(rightName), not in \(leftName)")
                    continue
                }
                if right[table] == nil, !Self.isExpected(side: leftName, table: table, columns: nil) {
                    differences.append("table \(table): in \(leftName), not in \(rightName)")
                    continue
                }
                guard left[table] != nil, right[table] != nil else { continue }
                let onlyLeft = leftColumns.subtracting(rightColumns), onlyRight = rightColumns.subtracting(leftColumns)
                if !onlyLeft.isEmpty, !Self.isExpected(side: leftName, table: table, columns: onlyLeft) {
                    differences.append("\(table): \(onlyLeft.sorted()) in \(leftName), not in \(rightName)")
                }
                if !onlyRight.isEmpty, !Self.isExpected(side: rightName, table: table, columns: onlyRight) {
                    differences.append("\(table): \(onlyRight.sorted()) in \(rightName), not in \(leftName)")
                }
            }
        }
        compare("sqlite", sqlite, "postgres", postgres)
        // The catalogue names every table and column of PostgreSQL's that holds a library's data.
        compare("catalogue", catalogue, "postgres", postgres)
        #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
        // And it reads only what SQLite holds.
        for (table, columns) in catalogue where table != "photo_bytes" {
            let missing = columns.subtracting(sqlite[table] ?? [])
            #expect(missing.isEmpty, "the catalogue copies \(table).\(missing.sorted()), which SQLite does not have")
        }
    }

    static func isExpected(side: String, table: String, columns: Set<String>?) -> Bool {
        expected.contains { entry in
            entry.side == side && entry.table == table && (entry.columns == nil || (columns.map { $0.isSubset(of: entry.columns!) } ?? false))
        }
    }

    /// A SQLite table's name in PostgreSQL's terms: the copy's catalogue says it where it copies the table.
    static func postgresName(ofSQLiteTable table: String) -> String {
        if let copied = CopyTable.all.first(where: { $0.source == table && $0.name != "photo_bytes" }) { return copied.name }
        if table.hasPrefix("grdb_") { return table }
        let snake = CopyColumn.snakeCase(table)
        return snake.hasSuffix("x") || snake.hasSuffix("s") ? snake + "es" : snake + "s"
    }

    static func sqliteSchema() async throws -> Schema {
        let test = try TestStore()
        return try await test.sqlite.writer.read { db in
            var schema: Schema = [:]
            let tables = try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            for table in tables {
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))").map { $0["name"] as String }
                schema[postgresName(ofSQLiteTable: table)] = Set(columns.map(CopyColumn.snakeCase))
            }
            return schema
        }
    }

    static func postgresSchema(_ store: PostgresRideStore) async throws -> Schema {
        try await store.transaction(readOnly: true) { [logger = PostgresTestServer.logger] connection in
            let rows = try await connection.query(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()", logger: logger)
            var schema: Schema = [:]
            for try await (table, column) in rows.decode((String, String).self) { schema[table, default: []].insert(column) }
            return schema
        }
    }

    static func catalogueSchema() -> Schema {
        var schema: Schema = [:]
        for table in CopyTable.all { schema[table.name, default: []].formUnion(table.columns.map(\.target)) }
        return schema
    }
}
