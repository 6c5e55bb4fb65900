import Foundation
import PostgresNIO
import RideKit
import RideStore

// `bikeride copy`'s driver: the library's rows, read by `LibraryCopy.Source` (RideStore: the SQLite side, the column
// catalogue and the checksum), written into and checked against a PostgreSQL store (`PostgresRideStore+Copy`).
extension LibraryCopy {
    /// Copies the library of `directory` into the database of `store` (migrated by its `open`), then checks every
    /// table. Refuses a target that holds users the library does not have (another library), before writing.
    public static func copy(
        from directory: DataDirectory, to store: PostgresRideStore, options: Options = Options(),
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Report {
        let source = try Source(directory: directory)
        try await refuseAnotherLibrary(source: source, target: store)
        var copied: [String: Int] = [:]
        var batches = 0
        for table in CopyTable.all where table.name != "photo_bytes" {
            copied[table.name] = try await copyTable(table, source: source, target: store, options: options, batches: &batches, progress: progress)
        }
        try await store.copyResetSequences(tables: CopyTable.all.filter(\.hasSequence).map(\.name))
        copied["photo_bytes"] = copied["photos"]
        return try await check(source: source, target: store, copied: copied, progress: progress)
    }

    /// Counts and hashes every table on both sides (no copying).
    public static func check(
        from directory: DataDirectory, to store: PostgresRideStore, progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Report {
        try await check(source: try Source(directory: directory), target: store, copied: [:], progress: progress)
    }

    static func check(
        source: Source, target: PostgresRideStore, copied: [String: Int], progress: @escaping @Sendable (Progress) -> Void
    ) async throws -> Report {
        var reports: [TableReport] = []
        for table in CopyTable.all {
            progress(.checking(table: table.name))
            var sourceSum = RowChecksum()
            var after: [CopyValue]?
            while true {
                let rows = try await source.rows(table, after: after, limit: table.batchLimit(1000), photoBytes: 32 << 20)
                guard let last = rows.last else { break }
                for row in rows { sourceSum.add(row) }
                after = Array(last.prefix(table.keyCount))
            }
            let targetSum = try await target.copyChecksum(table)
            reports.append(
                TableReport(
                    table: table.name, sourceRows: sourceSum.count, targetRows: targetSum.count, copiedRows: copied[table.name] ?? 0,
                    sourceChecksum: sourceSum.hex, targetChecksum: targetSum.hex))
        }
        return Report(tables: reports)
    }

    /// Refuses a target whose users are not all the library's (same id, same name): it holds another library,
    /// whose rows could share ids with this one's. Cheap: users are few.
    static func refuseAnotherLibrary(source: Source, target: PostgresRideStore) async throws {
        let targetUsers = try await target.copyUsers()
        guard !targetUsers.isEmpty else { return }
        let sourceUsers = try await source.users()
        let foreign = targetUsers.filter { sourceUsers[$0.id] != $0.name }
        guard foreign.isEmpty else {
            let names = foreign.prefix(5).map { "'\($0.name)' (\($0.id))" }.joined(separator: ", ")
            throw RideStoreError.conflict(
                "the target database holds users that this library does not have: \(names)\(foreign.count > 5 ? " and \(foreign.count - 5) more" : ""). "
                    + "It holds another library (or `serve`/a command with --database made its own user there): copy into a new, empty database")
        }
    }

    static func copyTable(
        _ table: CopyTable, source: Source, target: PostgresRideStore, options: Options, batches: inout Int,
        progress: @escaping @Sendable (Progress) -> Void
    ) async throws -> Int {
        let total = try await source.count(table)
        var read = 0
        var copied = 0
        var after: [CopyValue]?
        progress(.copying(table: table.name, read: 0, total: total, copied: 0))
        while true {
            if let stop = options.stopAfterBatches, batches >= stop { throw Interrupted() }
            let limit = table.batchLimit(max(1, options.batchRows))
            let rows = try await source.rows(table, after: after, limit: limit, photoBytes: max(1, options.batchPhotoBytes))
            guard let last = rows.last else { break }
            after = Array(last.prefix(table.keyCount))
            read += rows.count
            if table.name == "photos" {
                // Only the photos the target lacks have their files read.
                let existing = try await target.copyExistingKeys(table, keys: rows.map { $0[0] })
                let missing = rows.filter { !existing.contains($0[0]) }
                let withBytes = try await source.photoBytesRows(keys: missing.map { $0[0] })
                copied += try await target.copyInsertPhotos(missing, bytes: withBytes)
            } else {
                copied += try await target.copyInsert(table, rows: rows)
            }
            batches += 1
            progress(.copying(table: table.name, read: read, total: total, copied: copied))
        }
        return copied
    }
}
