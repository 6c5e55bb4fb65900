import Foundation
import RideKit
@testable import RideStore
import Testing

/// Archive import jobs (`ImportJobStore`), on both stores: created running, moved on, finished with the archive's
/// report; seen only by their owner; a job nobody moved on for `ImportJobRules.staleSeconds` reads as interrupted.
@Suite struct ImportJobStoreTests {
    @Test(arguments: StoreKind.allCases) func aJobRunsThenEndsWithItsReport(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let other = try await store.createUser(name: "other", passwordHash: nil).id
            let job = try await store.createImportJob(fileName: " export\u{7}.zip ", userID: user)
            #expect(job.fileName == "export.zip" && job.state == .running && job.filesDone == 0 && job.filesTotal == 0)
            #expect(try await store.importJob(id: job.id, userID: user) == job)
            // Another user's job is no job at all, and so is an id that never existed.
            #expect(try await store.importJob(id: job.id, userID: other) == nil)
            #expect(try await store.importJob(id: .random(), userID: user) == nil)

            try await store.updateImportJob(id: job.id, userID: user, filesDone: 312, filesTotal: 2_041)
            try await store.updateImportJob(id: job.id, userID: other, filesDone: 1, filesTotal: 1)  // not theirs: no change
            let moved = try #require(try await store.importJob(id: job.id, userID: user))
            #expect(moved.filesDone == 312 && moved.filesTotal == 2_041 && moved.state == .running)
            #expect(moved.updatedAt >= job.updatedAt)

            var report = ArchiveImportReport()
            report.filesTotal = 2_041
            report.imported = 2_000
            report.alreadyImported = 30
            report.failures = (0..<11).map { "activities/\($0).gpx: the file ends early" } + ["x/" + String(repeating: "é", count: 900)]
            try await store.finishImportJob(id: job.id, userID: user, outcome: .done(report))
            let done = try #require(try await store.importJob(id: job.id, userID: user))
            #expect(done.state == .done && done.filesDone == 2_041 && done.filesTotal == 2_041)
            #expect(done.imported == 2_000 && done.alreadyImported == 30 && done.failureCount == 12)
            #expect(done.failures.count == 12 && done.failures[0] == "activities/0.gpx: the file ends early")
            #expect(done.failures[11].count == ImportJobRules.maximumFailureLength)
            #expect(done.message == "2,000 imported, 30 already imported, 12 failed")
            #expect(done.finishedAt != nil)
            // A finished job is not moved on by a late progress report.
            try await store.updateImportJob(id: job.id, userID: user, filesDone: 5, filesTotal: 2_041)
            #expect(try await store.importJob(id: job.id, userID: user)?.filesDone == 2_041)
        }
    }

    @Test(arguments: StoreKind.allCases) func failuresBeyondTheCapAreCountedNotKept(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let job = try await store.createImportJob(fileName: "many.zip", userID: user)
            var report = ArchiveImportReport()
            report.filesTotal = 5_000
            report.failures = (0..<5_000).map { "activities/\($0).fit: not a FIT file" }
            try await store.finishImportJob(id: job.id, userID: user, outcome: .done(report))
            let done = try #require(try await store.importJob(id: job.id, userID: user))
            #expect(done.failureCount == 5_000 && done.failures.count == ImportJobRules.maximumStoredFailures)
            #expect(done.failures.last == "activities/\(ImportJobRules.maximumStoredFailures - 1).fit: not a FIT file")

            let broken = try await store.createImportJob(fileName: "broken.zip", userID: user)
            try await store.finishImportJob(id: broken.id, userID: user, outcome: .failed("not a zip archive, or a damaged one"))
            let failed = try #require(try await store.importJob(id: broken.id, userID: user))
            #expect(failed.state == .failed && failed.message == "not a zip archive, or a damaged one" && failed.imported == 0)
        }
    }

    /// The rule both stores apply on reading: a running job whose row stopped moving was left by a stopped instance.
    @Test func aRunningJobLeftAloneReadsAsInterrupted() {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let job = ImportJob(id: .random(), fileName: "a.zip", filesDone: 312, filesTotal: 2_041, createdAt: start, updatedAt: start)
        #expect(ImportJobRules.resolve(job, now: start.addingTimeInterval(ImportJobRules.staleSeconds)).state == .running)
        let late = ImportJobRules.resolve(job, now: start.addingTimeInterval(ImportJobRules.staleSeconds + 1))
        #expect(late.state == .interrupted)
        #expect(late.message?.contains("312 of 2,041") == true)
        var done = job
        done.state = .done
        #expect(ImportJobRules.resolve(done, now: start.addingTimeInterval(86_400)).state == .done)
    }
}
