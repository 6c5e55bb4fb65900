import Foundation
import GRDB
import RideKit

extension SQLiteRideStore {
    /// Migration "v11 import jobs": an archive import running in the background, its progress and outcome
    /// (`ImportJob`), as PostgreSQL's `import_jobs`.
    static func registerImportJobsMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11 import jobs") { db in
            try db.create(table: "importJob") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("fileName", .text).notNull()
                t.column("state", .text).notNull()
                t.column("filesDone", .integer).notNull()
                t.column("filesTotal", .integer).notNull()
                t.column("imported", .integer).notNull()
                t.column("alreadyImported", .integer).notNull()
                t.column("failureCount", .integer).notNull()
                t.column("failures", .text).notNull()
                t.column("trackIds", .text).notNull()
                t.column("message", .text)
                t.column("createdAt", .integer).notNull()
                t.column("updatedAt", .integer).notNull()
                t.column("finishedAt", .integer)
            }
        }
    }

    public func createImportJob(fileName: String, userID: UserID) async throws -> ImportJob {
        let now = StoreClock.now()
        let job = ImportJob(id: .random(), fileName: ImportJobRules.fileName(fileName), createdAt: now, updatedAt: now)
        return try await write { db in
            guard try Self.userExists(db, userID) else { throw RideStoreError.notFound(kind: "user", id: userID.rawValue) }
            try db.execute(
                sql: "DELETE FROM importJob WHERE userId = ? AND state <> 'running' AND updatedAt < ?",
                arguments: [userID, StoreClock.milliseconds(now.addingTimeInterval(-ImportJobRules.retentionSeconds))])
            try db.execute(
                sql: """
                    INSERT INTO importJob (id, userId, fileName, state, filesDone, filesTotal, imported, alreadyImported, failureCount,
                                           failures, trackIds, createdAt, updatedAt)
                    VALUES (?, ?, ?, 'running', 0, 0, 0, 0, 0, '[]', '[]', ?, ?)
                    """,
                arguments: [job.id, userID, job.fileName, StoreClock.milliseconds(now), StoreClock.milliseconds(now)])
            return job
        }
    }

    public func updateImportJob(id: ImportJobID, userID: UserID, filesDone: Int, filesTotal: Int) async throws {
        let now = StoreClock.milliseconds(StoreClock.now())
        try await write { db in
            try db.execute(
                sql: "UPDATE importJob SET filesDone = ?, filesTotal = ?, updatedAt = ? WHERE id = ? AND userId = ? AND state = 'running'",
                arguments: [filesDone, filesTotal, now, id, userID])
        }
    }

    public func finishImportJob(id: ImportJobID, userID: UserID, outcome: ImportJobOutcome) async throws {
        let stored = ImportJobRules.stored(outcome)
        let now = StoreClock.milliseconds(StoreClock.now())
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE importJob SET state = ?, filesDone = ?, filesTotal = ?, imported = ?, alreadyImported = ?, failureCount = ?,
                                         failures = ?, trackIds = ?, message = ?, updatedAt = ?, finishedAt = ?
                    WHERE id = ? AND userId = ?
                    """,
                arguments: [
                    stored.state.rawValue, stored.filesDone, stored.filesTotal, stored.imported, stored.alreadyImported, stored.failureCount,
                    stored.failuresJSON, stored.trackIDsJSON, stored.message, now, now, id, userID,
                ])
        }
    }

    public func importJob(id: ImportJobID, userID: UserID) async throws -> ImportJob? {
        let job = try await read { db -> ImportJob? in
            guard let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT id, fileName, state, filesDone, filesTotal, imported, alreadyImported, failures, failureCount, trackIds, message,
                           createdAt, updatedAt, finishedAt
                    FROM importJob WHERE id = ? AND userId = ?
                    """,
                arguments: [id, userID]),
                let jobID = ImportJobID.fromDatabaseValue(row[0])
            else { return nil }
            let finishedAt: Int64? = row[13]
            return ImportJob(
                id: jobID, fileName: row[1], state: ImportJob.State(rawValue: row[2]) ?? .failed, filesDone: row[3], filesTotal: row[4],
                imported: row[5], alreadyImported: row[6], failures: ImportJobRules.decodeStrings(row[7]), failureCount: row[8],
                trackIDs: ImportJobRules.decodeTrackIDs(row[9]), message: row[10], createdAt: Self.date(row[11]), updatedAt: Self.date(row[12]),
                finishedAt: finishedAt.map(Self.date))
        }
        return job.map { ImportJobRules.resolve($0, now: StoreClock.now()) }
    }

    public func interruptImportJobs(updatedBefore: Date) async throws -> [ImportJobID] {
        let cutoff = StoreClock.milliseconds(updatedBefore), now = StoreClock.milliseconds(StoreClock.now())
        return try await write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT id, filesDone, filesTotal FROM importJob WHERE state = 'running' AND updatedAt < ?", arguments: [cutoff])
            var ids: [ImportJobID] = []
            for row in rows {
                guard let id = ImportJobID.fromDatabaseValue(row[0]) else { continue }
                try db.execute(
                    sql: "UPDATE importJob SET state = ?, message = ?, updatedAt = ?, finishedAt = ? WHERE id = ? AND state = 'running'",
                    arguments: [
                        ImportJob.State.interrupted.rawValue, ImportJobRules.interruptedMessage(filesDone: row[1], filesTotal: row[2]), now, now, id,
                    ])
                ids.append(id)
            }
            return ids
        }
    }

    public func importJobStates(ids: [ImportJobID]) async throws -> [ImportJobID: ImportJob.State] {
        try await read { db in
            var states: [ImportJobID: ImportJob.State] = [:]
            for id in ids {
                if let text = try String.fetchOne(db, sql: "SELECT state FROM importJob WHERE id = ?", arguments: [id]) {
                    states[id] = ImportJob.State(rawValue: text) ?? .failed
                }
            }
            return states
        }
    }
}
