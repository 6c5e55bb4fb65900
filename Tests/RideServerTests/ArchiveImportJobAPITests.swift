import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import TestSupport
import Testing
import ZIPFoundation

/// `POST /api/tracks` with a zip answers 202 with an import job at once; `GET /api/imports/{id}` says how far it is
/// and, at the end, what it made. The job lives in the database: on PostgreSQL, an instance that did not run the
/// import answers for it.
@Suite struct ArchiveImportJobAPITests {
    /// A zip of `entries` (path, bytes), deflated.
    static func archive(_ entries: [(String, [UInt8])]) throws -> Data {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appending(path: "export.zip")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, bytes) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
        return try Data(contentsOf: url)
    }

    /// Uploads `body` through `client`, checks the 202 and its job, then polls the job through `poll` until it is
    /// no longer running (checking on the way that `filesDone` only grows, within `filesTotal`); the last answer.
    static func importToTheEnd(
        _ body: Data, client: any TestClientProtocol, poll: any TestClientProtocol, name: String = "export.zip"
    ) async throws -> [String: Any] {
        let started = try await client.execute(uri: "/api/tracks?name=\(name)", method: .post, body: ByteBuffer(data: body))
        #expect(started.status == .accepted, "\(started.text)")
        let job = try started.jsonObject()
        let id = try #require(job["id"] as? String)
        #expect(started.headers[.location] == "/api/imports/\(id)")
        #expect(job["fileName"] as? String == name)
        #expect(["running", "done"].contains(job["state"] as? String))
        var last = job
        var done = 0
        let deadline = ContinuousClock.now + .seconds(60)
        while last["state"] as? String == "running", ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            let answer = try await poll.get("/api/imports/\(id)")
            #expect(answer.status == .ok, "\(answer.text)")
            last = try answer.jsonObject()
            let now = last["filesDone"] as? Int ?? -1
            #expect(now >= done && now <= last["filesTotal"] as? Int ?? -1, "\(last)")
            done = now
        }
        #expect(last["state"] as? String != "running", "the import did not end within 60 s")
        return last
    }

    static func entries(good: Int, tag: String) throws -> [(String, [UInt8])] {
        var csv = "Activity ID,Activity Name,Activity Type,Filename\n"
        var entries: [(String, [UInt8])] = []
        // Six different files (the same content twice would be imported once).
        let fixtures = [
            "garmin-fenix-5-bike.fit", "garmin-fenix-5-run.fit", "garmin-fenix-5-walk.fit", "2015-10-13-08-43-15.fit", "2013-02-06-12-11-14.fit",
            "sample-activity-indoor-trainer.fit",
        ]
        precondition(good <= fixtures.count)
        for index in 0..<good {
            csv += "\(index),Ride \(index) \(tag),Ride,activities/\(index).fit\n"
            entries.append(("activities/\(index).fit", try Fixtures.bytes("fit/python-fitparse/\(fixtures[index % fixtures.count])")))
        }
        entries.append(("activities/broken.gpx", Array(#"<gpx version="1.1" creator="x"><trk><trkseg><trkpt lat="1""#.utf8)))
        entries.append(("activities.csv", Array(csv.utf8)))
        return entries
    }

    @Test func theUploadAnswers202AndTheJobReportsProgressThenTheOutcome() async throws {
        let body = try Self.archive(try Self.entries(good: 4, tag: "a"))
        let server = try await TestServer()
        try await server.run { client in
            let done = try await Self.importToTheEnd(body, client: client, poll: client)
            #expect(done["state"] as? String == "done", "\(done)")
            #expect(done["filesTotal"] as? Int == 5 && done["filesDone"] as? Int == 5)
            #expect(done["imported"] as? Int == 4 && done["failureCount"] as? Int == 1)
            #expect((done["failures"] as? [String])?.first?.hasPrefix("activities/broken.gpx: ") == true, "\(done)")
            #expect(done["message"] as? String == "4 imported, 1 failed")
            let ids = try #require(done["trackIds"] as? [String])
            #expect(ids.count == 4)
            for id in ids { #expect(try await client.get("/api/tracks/\(id)").status == .ok) }
            // The same archive again: nothing added, and said so.
            let again = try await Self.importToTheEnd(body, client: client, poll: client)
            #expect(again["message"] as? String == "4 already imported, 1 failed")
            #expect(try await server.library.store.trackCount(userID: server.library.userID) == 4)
        }
    }

    @Test func aDamagedArchiveEndsAsFailedAndUnknownJobsAre404() async throws {
        let server = try await TestServer()
        try await server.run { client in
            // A zip signature and then nothing a zip needs.
            let junk = Data([0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 7, count: 200))
            let failed = try await Self.importToTheEnd(junk, client: client, poll: client, name: "junk.zip")
            #expect(failed["state"] as? String == "failed")
            #expect((failed["message"] as? String)?.contains("not a zip archive") == true, "\(failed)")
            for id in [ShortID.random().rawValue, "nonsense", "../../etc"] {
                let answer = try await client.get("/api/imports/\(id)")
                #expect(answer.status == .notFound)
                #expect(try answer.errorCode() == "not_found")
            }
        }
    }

    /// Two instances on one PostgreSQL database: the upload goes to one, every poll to the other.
    @Test func anotherInstanceAnswersForTheJob() async throws {
        let body = try Self.archive(try Self.entries(good: 6, tag: "b"))
        try await PostgresServerTests.withTwoInstances { first, second in
            try await RecordingAcrossInstancesTests.withLongLivedClients(first, second) { clientA, clientB in
                let done = try await Self.importToTheEnd(body, client: clientA, poll: clientB)
                #expect(done["state"] as? String == "done" && done["imported"] as? Int == 6, "\(done)")
                #expect(done["failureCount"] as? Int == 1)
            }
        }
    }
}
