import Foundation
import RideKit
@testable import RideStore
import Testing

/// Issue 21: a server that stopped mid-import left its job "running" and its archive in the uploads folder. The sweep
/// a server runs when it starts (`ImportJobSweeper`) marks such jobs interrupted for good and removes their files,
/// on both stores, and leaves alone what belongs to imports still running or to another store.
@Suite struct ImportJobSweepTests {
    @Test(arguments: StoreKind.allCases) func jobsLeftRunningByAStoppedServerAreInterruptedAndTheirFilesRemoved(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let folder = FileManager.default.temporaryDirectory.appending(path: "sweep-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            func file(_ name: String, age: TimeInterval = 0) throws -> URL {
                let url = folder.appending(path: name)
                try Data("PK".utf8).write(to: url)
                try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: url.path)
                return url
            }
            func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

            // The stopped server's job, 40 of 100 files done; then the server starts again.
            let dead = try await store.createImportJob(fileName: "export.zip", userID: user)
            try await store.updateImportJob(id: dead.id, userID: user, filesDone: 40, filesTotal: 100)
            let finished = try await store.createImportJob(fileName: "old.zip", userID: user)
            try await store.finishImportJob(id: finished.id, userID: user, outcome: .failed("not a zip"))
            try await Task.sleep(for: .milliseconds(20))
            let restart = Date()
            try await Task.sleep(for: .milliseconds(20))
            // An import started after the restart is running.
            let live = try await store.createImportJob(fileName: "new.zip", userID: user)
            let deadFile = try file(ImportJobRules.archiveFileName(dead.id)), liveFile = try file(ImportJobRules.archiveFileName(live.id))
            let finishedFile = try file(ImportJobRules.archiveFileName(finished.id))
            let foreignFile = try file(ImportJobRules.archiveFileName(.random()))  // another store's job: not ours to judge
            let abandonedUpload = try file("upload-\(UUID().uuidString).part", age: ImportJobRules.staleSeconds + 60)
            let arrivingUpload = try file("upload-\(UUID().uuidString).part")

            #expect(try await store.importJob(id: dead.id, userID: user)?.state == .running, "within the stale time it still reads as running")
            let interrupted = try await TrackLibrary.sweepImportJobs(store: store, uploadsFolder: folder, updatedBefore: restart)
            #expect(interrupted == [dead.id])
            let job = try #require(try await store.importJob(id: dead.id, userID: user))
            #expect(job.state == .interrupted && job.filesDone == 40 && job.filesTotal == 100 && job.finishedAt != nil)
            #expect(job.message?.contains("40 of 100 files") == true && job.message?.contains("upload the archive again") == true)
            #expect(try await store.importJob(id: live.id, userID: user)?.state == .running)
            #expect(try await store.importJob(id: finished.id, userID: user)?.state == .failed)
            #expect(!exists(deadFile) && !exists(finishedFile) && !exists(abandonedUpload))
            #expect(exists(liveFile) && exists(foreignFile) && exists(arrivingUpload))

            // Idempotent: nothing more to do. Once the live job ends, its file goes too.
            #expect(try await TrackLibrary.sweepImportJobs(store: store, uploadsFolder: folder, updatedBefore: restart).isEmpty)
            try await store.finishImportJob(id: live.id, userID: user, outcome: .failed("stopped by the test"))
            _ = try await TrackLibrary.sweepImportJobs(store: store, uploadsFolder: folder, updatedBefore: restart)
            #expect(!exists(liveFile) && exists(foreignFile))
        }
    }
}
