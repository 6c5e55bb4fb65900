import Foundation
import PostgresNIO
import RideStore

// The PostgreSQL side of `LibraryCopy`: writing a batch of a table's rows as they are (keys and ids included), and
// reading a table back in key order for its checksum. Table and column names come from `CopyTable.all`, never
// from a value; every value is a bound parameter.
extension PostgresRideStore {
    /// The users of the database, (id, name).
    func copyUsers() async throws -> [(id: String, name: String)] {
        try await transaction(readOnly: true) { [logger] connection in
            var users: [(id: String, name: String)] = []
            for try await (id, name) in try await connection.query("SELECT id, name FROM users", logger: logger).decode((String, String).self) {
                users.append((id, name))
            }
            return users
        }
    }

    /// Which of `keys` (of a table with a one-column key) the table has.
    func copyExistingKeys(_ table: CopyTable, keys: [CopyValue]) async throws -> Set<CopyValue> {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.copyExistingKeys(table, keys: keys, connection, logger: logger)
        }
    }

    static func copyExistingKeys(_ table: CopyTable, keys: [CopyValue], _ connection: PostgresConnection, logger: Logger) async throws -> Set<CopyValue> {
        guard table.keyCount == 1, let key = table.columns.first, !keys.isEmpty else { return [] }
        var found: Set<CopyValue> = []
        switch key.kind {
        case .text:
            let texts = keys.compactMap { value -> String? in if case .text(let text) = value { text } else { nil } }
            let rows = try await connection.query(
                "SELECT \(unescaped: key.target) FROM \(unescaped: table.name) WHERE \(unescaped: key.target) = ANY(\(texts)::text[])", logger: logger)
            for try await text in rows.decode(String.self) { found.insert(.text(text)) }
        case .integer:
            let numbers = keys.compactMap { value -> Int64? in if case .integer(let number) = value { number } else { nil } }
            let rows = try await connection.query(
                "SELECT \(unescaped: key.target) FROM \(unescaped: table.name) WHERE \(unescaped: key.target) = ANY(\(numbers)::bigint[])",
                logger: logger)
            for try await number in rows.decode(Int64.self) { found.insert(.integer(number)) }
        default:
            return []
        }
        return found
    }

    /// Writes a batch of `table`'s rows (in its columns' order) in one transaction; rows whose key (or another
    /// unique key) is there already are left as they are. Returns how many rows were new.
    func copyInsert(_ table: CopyTable, rows: [[CopyValue]]) async throws -> Int {
        try await transaction { [logger] connection in
            let existing = try await Self.copyExistingKeys(table, keys: rows.map { $0[0] }, connection, logger: logger)
            let missing = table.keyCount == 1 ? rows.filter { !existing.contains($0[0]) } : rows
            return try await Self.copyInsert(table, rows: missing, connection, logger: logger)
        }
    }

    /// Writes photos' rows and their bytes' rows in one transaction (a photo is never there without its bytes).
    func copyInsertPhotos(_ photos: [[CopyValue]], bytes: [[CopyValue]]) async throws -> Int {
        guard let photosTable = CopyTable.all.first(where: { $0.name == "photos" }),
              let bytesTable = CopyTable.all.first(where: { $0.name == "photo_bytes" })
        else { return 0 }
        return try await transaction { [logger] connection in
            let copied = try await Self.copyInsert(photosTable, rows: photos, connection, logger: logger)
            _ = try await Self.copyInsert(bytesTable, rows: bytes, connection, logger: logger)
            return copied
        }
    }

    static func copyInsert(_ table: CopyTable, rows: [[CopyValue]], _ connection: PostgresConnection, logger: Logger) async throws -> Int {
        guard !rows.isEmpty else { return 0 }
        let names = table.columns.map(\.target).joined(separator: ", ")
        // PostgreSQL takes at most 65,535 parameters a statement.
        let rowsPerStatement = max(1, 30_000 / table.columns.count)
        var inserted = 0
        var start = 0
        while start < rows.count {
            let chunk = rows[start..<min(start + rowsPerStatement, rows.count)]
            var bindings = PostgresBindings(capacity: chunk.count * table.columns.count)
            var tuples: [String] = []
            tuples.reserveCapacity(chunk.count)
            for row in chunk {
                guard row.count == table.columns.count else { throw RideStoreError.damaged("a row of \(table.name) has \(row.count) values") }
                var placeholders: [String] = []
                for (value, column) in zip(row, table.columns) {
                    switch value {
                    case .null: bindings.appendNull()
                    case .integer(let number): bindings.append(number)
                    case .real(let number): bindings.append(number)
                    case .text(let text): bindings.append(text)
                    case .bytes(let data): bindings.append(ByteBuffer(bytes: data))
                    }
                    placeholders.append("$\(bindings.count)::\(column.targetType)")
                }
                tuples.append("(" + placeholders.joined(separator: ", ") + ")")
            }
            let sql = """
                INSERT INTO \(table.name) (\(names))\(table.identityAlways ? " OVERRIDING SYSTEM VALUE" : "")
                VALUES \(tuples.joined(separator: ", ")) ON CONFLICT DO NOTHING RETURNING 1
                """
            let result = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            inserted += try await result.collect().count
            start += chunk.count
        }
        return inserted
    }

    /// Sets each table's id sequence after the largest id, so that rows made later get new ids.
    func copyResetSequences(tables: [String]) async throws {
        try await transaction { [logger] connection in
            for table in tables {
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT setval(pg_get_serial_sequence('\(table)', 'id'), COALESCE(max(id), 0) + 1, false) FROM \(table)"),
                    logger: logger)
            }
        }
    }

    /// The rows of `table` and their checksum (`RowChecksum`), read in key order (text in byte order, as SQLite
    /// compares it) from one snapshot, streamed.
    func copyChecksum(_ table: CopyTable) async throws -> (count: Int, hex: String) {
        try await transaction(readOnly: true) { [logger] connection in
            let names = table.columns.map(\.target).joined(separator: ", ")
            let order = table.keyColumns.map { $0.kind == .text ? "\($0.target) COLLATE \"C\"" : $0.target }.joined(separator: ", ")
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT \(names) FROM \(table.name) ORDER BY \(order)"), logger: logger)
            var checksum = RowChecksum()
            for try await row in rows {
                var values: [CopyValue] = []
                values.reserveCapacity(table.columns.count)
                for (cell, column) in zip(row, table.columns) {
                    switch column.kind {
                    case .text: values.append(try cell.decode(String?.self).map(CopyValue.text) ?? .null)
                    case .integer: values.append(try cell.decode(Int64?.self).map(CopyValue.integer) ?? .null)
                    case .smallInteger: values.append(try cell.decode(Int16?.self).map { CopyValue.integer(Int64($0)) } ?? .null)
                    case .real: values.append(try cell.decode(Double?.self).map(CopyValue.real) ?? .null)
                    case .bytes: values.append(try cell.decode(ByteBuffer?.self).map { CopyValue.bytes(Data($0.readableBytesView)) } ?? .null)
                    }
                }
                checksum.add(values)
            }
            return (checksum.count, checksum.hex)
        }
    }
}
