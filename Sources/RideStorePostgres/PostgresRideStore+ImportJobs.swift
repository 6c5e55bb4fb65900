import Foundation
import Logging
import PostgresNIO
import RideKit
import RideStore

extension PostgresRideStore {
    public func createImportJob(fileName: String, userID: UserID) async throws -> ImportJob {
        let now = Self.now()
        let job = ImportJob(id: .random(), fileName: ImportJobRules.fileName(fileName), createdAt: now, updatedAt: now)
        let retainedSince = Self.milliseconds(now.addingTimeInterval(-ImportJobRules.retentionSeconds))
        return try await transaction { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            try await connection.query(
                "DELETE FROM import_jobs WHERE user_id = \(userID.rawValue) AND state <> 'running' AND updated_at < \(retainedSince)",
                logger: logger)
            try await connection.query(
                """
                INSERT INTO import_jobs (id, user_id, file_name, state, files_done, files_total, imported, already_imported, failure_count,
                                         failures, track_ids, created_at, updated_at)
                VALUES (\(job.id.rawValue), \(userID.rawValue), \(job.fileName), 'running', 0, 0, 0, 0, 0, '[]', '[]',
                        \(Self.milliseconds(now)), \(Self.milliseconds(now)))
                """, logger: logger)
            return job
        }
    }

    public func updateImportJob(id: ImportJobID, userID: UserID, filesDone: Int, filesTotal: Int) async throws {
        let now = Self.milliseconds(Self.now())
        _ = try await transaction { [logger] connection in
            try await connection.query(
                """
                UPDATE import_jobs SET files_done = \(filesDone), files_total = \(filesTotal), updated_at = \(now)
                WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue) AND state = 'running'
                """, logger: logger)
        }
    }

    public func finishImportJob(id: ImportJobID, userID: UserID, outcome: ImportJobOutcome) async throws {
        let stored = ImportJobRules.stored(outcome)
        let now = Self.milliseconds(Self.now())
        _ = try await transaction { [logger] connection in
            try await connection.query(
                """
                UPDATE import_jobs SET state = \(stored.state.rawValue), files_done = \(stored.filesDone), files_total = \(stored.filesTotal),
                    imported = \(stored.imported), already_imported = \(stored.alreadyImported), failure_count = \(stored.failureCount),
                    failures = \(stored.failuresJSON), track_ids = \(stored.trackIDsJSON), message = \(stored.message), updated_at = \(now),
                    finished_at = \(now)
                WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue)
                """, logger: logger)
        }
    }

    public func importJob(id: ImportJobID, userID: UserID) async throws -> ImportJob? {
        let job = try await transaction(readOnly: true) { [logger] connection -> ImportJob? in
            var counts: (Int, Int, Int, Int, Int)?
            var texts: (String, String, String, String, String?)?
            var times: (Int64, Int64, Int64?)?
            for try await (fileName, state, failures, trackIDs, message) in try await connection.query(
                "SELECT file_name, state, failures, track_ids, message FROM import_jobs WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue)",
                logger: logger
            ).decode((String, String, String, String, String?).self) { texts = (fileName, state, failures, trackIDs, message) }
            guard let texts else { return nil }
            for try await row in try await connection.query(
                """
                SELECT files_done, files_total, imported, already_imported, failure_count, created_at, updated_at, finished_at
                FROM import_jobs WHERE id = \(id.rawValue) AND user_id = \(userID.rawValue)
                """, logger: logger
            ).decode((Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64?).self) {
                counts = (Int(row.0), Int(row.1), Int(row.2), Int(row.3), Int(row.4))
                times = (row.5, row.6, row.7)
            }
            guard let counts, let times else { return nil }
            return ImportJob(
                id: id, fileName: texts.0, state: ImportJob.State(rawValue: texts.1) ?? .failed, filesDone: counts.0, filesTotal: counts.1,
                imported: counts.2, alreadyImported: counts.3, failures: ImportJobRules.decodeStrings(texts.2), failureCount: counts.4,
                trackIDs: ImportJobRules.decodeTrackIDs(texts.3), message: texts.4, createdAt: Self.date(times.0), updatedAt: Self.date(times.1),
                finishedAt: times.2.map(Self.date))
        }
        return job.map { ImportJobRules.resolve($0, now: Self.now()) }
    }

    public func interruptImportJobs(updatedBefore: Date) async throws -> [ImportJobID] {
        let cutoff = Self.milliseconds(updatedBefore), now = Self.milliseconds(Self.now())
        let interrupted = ImportJob.State.interrupted.rawValue
        return try await transaction { [logger] connection in
            var stale: [(String, Int64, Int64)] = []
            let rows = try await connection.query(
                "SELECT id, files_done, files_total FROM import_jobs WHERE state = 'running' AND updated_at < \(cutoff) FOR UPDATE",
                logger: logger)
            for try await row in rows.decode((String, Int64, Int64).self) { stale.append(row) }
            var ids: [ImportJobID] = []
            for (id, done, total) in stale {
                let message = ImportJobRules.interruptedMessage(filesDone: Int(done), filesTotal: Int(total))
                try await connection.query(
                    """
                    UPDATE import_jobs SET state = \(interrupted), message = \(message), updated_at = \(now), finished_at = \(now)
                    WHERE id = \(id) AND state = 'running'
                    """, logger: logger)
                ids.append(try Self.shortID(id, column: "import_jobs.id"))
            }
            return ids
        }
    }

    public func importJobStates(ids: [ImportJobID]) async throws -> [ImportJobID: ImportJob.State] {
        guard !ids.isEmpty else { return [:] }
        return try await transaction(readOnly: true) { [logger] connection in
            var states: [ImportJobID: ImportJob.State] = [:]
            let rows = try await connection.query(
                "SELECT id, state FROM import_jobs WHERE id = ANY(\(ids.map(\.rawValue))::text[])", logger: logger)
            for try await (id, state) in rows.decode((String, String).self) {
                states[try Self.shortID(id, column: "import_jobs.id")] = ImportJob.State(rawValue: state) ?? .failed
            }
            return states
        }
    }
}
