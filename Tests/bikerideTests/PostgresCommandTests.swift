import Foundation
import TestSupport
import Testing

/// The library commands with `--database URL`, and `bikeride copy`, against the throwaway PostgreSQL server of the
/// tests (`BIKERIDE_TEST_DATABASE_URL`, scripts/lib/postgres.sh): each test makes a database of its own with
/// PostgreSQL's `createdb` and drops it after. Without the variable the tests are skipped and say why.
@Suite struct PostgresCommandTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-postgres-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// The test server's URL, or the test is skipped (before it builds a library for nothing).
    static func requireServer() throws -> URLComponents {
        guard let server = ProcessInfo.processInfo.environment["BIKERIDE_TEST_DATABASE_URL"], !server.isEmpty,
              let components = URLComponents(string: server), components.host != nil, components.user != nil
        else {
            try Test.cancel("PostgreSQL not tested: BIKERIDE_TEST_DATABASE_URL is not set (README, 'Tests on PostgreSQL')")
        }
        return components
    }

    /// A new database on the test server for `body` (its URL), dropped afterwards.
    static func withDatabase<T>(_ body: (String) throws -> T) throws -> T {
        let components = try requireServer()
        let host = components.host ?? "", user = components.user ?? ""
        let port = components.port ?? 5432
        let name = "bikeride_cli_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let connection = ["-h", host, "-p", "\(port)", "-U", user]
        try runProgram("createdb", connection + [name])
        defer { try? runProgram("dropdb", connection + ["--force", name]) }
        var url = components
        url.path = "/" + name
        return try body(try #require(url.string))
    }

    /// Runs one of PostgreSQL's programs (on PATH, or where Debian puts them), failing the test when it fails.
    static func runProgram(_ name: String, _ arguments: [String]) throws {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/\(name)" }
            + ((try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []).sorted().reversed()
            .map { "/usr/lib/postgresql/\($0)/bin/\(name)" }
        let program = try #require(candidates.first { FileManager.default.isExecutableFile(atPath: $0) }, "PostgreSQL's \(name) not found")
        let process = TestProcess()
        process.executableURL = URL(filePath: program)
        process.arguments = arguments
        let error = Pipe()
        process.standardError = error
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(name): \(message)")
    }

    /// The tracks of `list --json` (with the arguments that say which library).
    static func tracks(_ library: [String]) throws -> [[String: Any]] {
        let list = try CommandRun.run(["list", "--json", "--all"] + library)
        #expect(list.status == 0, "\(list.error)")
        let page = try #require(try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])
        return try #require(page["tracks"] as? [[String: Any]])
    }

    /// Until now `--database` was only tried by hand: import, list, show, places on a PostgreSQL database.
    @Test func libraryCommandsWorkOnADatabase() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.withDatabase { url in
            // The data directory only holds uploads in transit with --database.
            let library = ["--database", url, "--data-dir", folder.appending(path: "data").path]
            let imported = try CommandRun.run(["import", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")] + library)
            #expect(imported.status == 0, "\(imported.error)")
            let tracks = try Self.tracks(library)
            #expect(tracks.count == 1)
            #expect(tracks.first?["name"] as? String == "GPXTest-TrackPointOnly")
            #expect(tracks.first?["pointCount"] as? Int == 4142)
            let id = try #require(tracks.first?["id"] as? String)
            let show = try CommandRun.run(["show", id, "--json"] + library)
            let shown = try #require(try JSONSerialization.jsonObject(with: Data(show.output.utf8)) as? [String: Any])
            #expect((shown["stats"] as? [String: Any])?["pointCount"] as? Int == 4142)
            // The same file again is not a second track, on PostgreSQL as on SQLite.
            let again = try CommandRun.run(["import", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")] + library)
            #expect(again.output.contains("already imported as \(id)"), "\(again.output) \(again.error)")
            #expect(try CommandRun.run(["places", "add", "Bakery", "--at", "47.3769,8.5417"] + library).status == 0)
            #expect(try CommandRun.run(["places", "list"] + library).output.contains("Bakery"))
            // Nothing went to the data directory's SQLite file.
            #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "data/bikeride.sqlite").path))
        }
    }

    /// `sync --database`: the documents folder of the machine the command runs on, synced with the database —
    /// a track of the database written there, a file put there imported into the database, and nothing twice.
    @Test func syncWithADatabaseUsesThisMachinesDocumentsFolder() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.withDatabase { url in
            let data = folder.appending(path: "data")
            let library = ["--database", url, "--data-dir", data.path]
            #expect(try CommandRun.run(["import", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")] + library).status == 0)
            let documents = data.appending(path: "Documents")
            try FileManager.default.createDirectory(at: documents, withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                at: URL(filePath: CommandRun.fixture("gpx/gpxpy/cerknicko-jezero.gpx")), to: documents.appending(path: "dropped.gpx"))
            let first = try CommandRun.run(["sync"] + library)
            #expect(first.status == 0, "\(first.error)")
            #expect(first.error.contains("1 imported") && first.error.contains("1 written"), "\(first.error)")
            let written = try FileManager.default.contentsOfDirectory(atPath: documents.path).filter { $0 != "dropped.gpx" }
            #expect(written.count == 1 && written.first?.hasSuffix("GPXTest-TrackPointOnly.gpx") == true, "\(written)")
            #expect(try Self.tracks(library).count == 2)
            let second = try CommandRun.run(["sync"] + library)
            #expect(second.error.contains("0 imported, 0 updated, 0 written, 2 unchanged"), "\(second.error)")
            #expect(try Self.tracks(library).count == 2)
        }
    }

    @Test func copyMovesALibraryChecksItAndCopiesNothingTheSecondTime() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.requireServer()
        let source = ["--data-dir", folder.appending(path: "library").path]
        for fixture in ["gpx/coregpx/GPXTest-TrackPointOnly.gpx", "gpx/gpxpy/cerknicko-jezero.gpx", "gpx/gpxpy/route.gpx"] {
            let imported = try CommandRun.run(["import", CommandRun.fixture(fixture)] + source)
            #expect(imported.status == 0, "\(imported.error)")
        }
        #expect(try CommandRun.run(["places", "add", "Bakery", "--at", "47.3769,8.5417", "--note", "Best croissants"] + source).status == 0)
        let database = folder.appending(path: "library/bikeride.sqlite")
        let before = try Data(contentsOf: database)
        try Self.withDatabase { url in
            let copy = try CommandRun.run(["copy", "--from", folder.appending(path: "library").path, "--to", url, "--json"])
            #expect(copy.status == 0, "\(copy.error)")
            // The library was only read.
            #expect(try Data(contentsOf: database) == before)
            #expect(copy.error.contains("copying point_blocks"))
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(copy.output.utf8)) as? [String: Any])
            #expect(summary["same"] as? Bool == true)
            #expect(summary["differing"] as? [String] == [])
            let tables = try #require(summary["tables"] as? [[String: Any]])
            let tracksRow = try #require(tables.first { $0["table"] as? String == "tracks" })
            // One track in GPXTest-TrackPointOnly, seven in cerknicko-jezero, one route.
            #expect(tracksRow["sourceRows"] as? Int == 9 && tracksRow["targetRows"] as? Int == 9 && tracksRow["copiedRows"] as? Int == 9)
            #expect(tables.first { $0["table"] as? String == "notes" }?["targetRows"] as? Int == 1)

            // The database lists what the library lists, figures and ids alike.
            let target = ["--database", url, "--data-dir", folder.appending(path: "instance").path]
            let copied = try Self.tracks(target)
            let original = try Self.tracks(source)
            #expect(copied.count == 9)
            #expect(NSArray(array: copied).isEqual(to: original))
            #expect(try CommandRun.run(["places", "list"] + target).output.contains("Bakery"))

            // Again: nothing new, the same checksums, shown as a table.
            let again = try CommandRun.run(["copy", "--from", folder.appending(path: "library").path, "--to", url])
            #expect(again.status == 0, "\(again.error)")
            #expect(again.error.contains("copied 0 new rows"))
            #expect(again.output.contains("point_blocks") && again.output.contains("same") && !again.output.contains("DIFFERS"))
        }
    }

    /// `kill -9` while the point blocks are being copied (one a transaction), then the same command again: it
    /// finishes, and its counts and checksums are the library's.
    @Test func aCopyKilledMidwayIsFinishedByRunningItAgain() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.requireServer()
        let library = folder.appending(path: "library").path
        // 200,000 points: 196 blocks of 1,024.
        var gpx = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Long</name><trkseg>

            """
        for index in 0..<200_000 {
            gpx += "<trkpt lat=\"\(46 + Double(index) / 1_000_000)\" lon=\"6.6\"><ele>\(400 + index % 50)</ele></trkpt>\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let file = folder.appending(path: "long.gpx")
        try Data(gpx.utf8).write(to: file)
        let imported = try CommandRun.run(["import", file.path, "--data-dir", library])
        #expect(imported.status == 0, "\(imported.error)")
        try Self.withDatabase { url in
            let process = TestProcess()
            process.executableURL = CommandRun.executable
            process.arguments = ["copy", "--from", library, "--to", url, "--batch-size", "1"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            var seen = ""
            while !seen.contains("copying point_blocks") {
                let chunk = errors.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            // A few blocks in (each is a transaction of its own), as a crash would find it.
            Thread.sleep(forTimeInterval: 0.1)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal, "the copy ended before it was killed: \(seen)")

            let partial = try CommandRun.run(["copy", "--check-only", "--json", "--from", library, "--to", url])
            #expect(partial.status == 1)
            #expect(partial.error.contains("differs from the library in: point_blocks"), "\(partial.error)")
            let resumed = try CommandRun.run(["copy", "--json", "--from", library, "--to", url])
            #expect(resumed.status == 0, "\(resumed.error)")
            let summary = try #require(try JSONSerialization.jsonObject(with: Data(resumed.output.utf8)) as? [String: Any])
            let tables = try #require(summary["tables"] as? [[String: Any]])
            let blocks = try #require(tables.first { $0["table"] as? String == "point_blocks" })
            #expect(blocks["sourceRows"] as? Int == 196 && blocks["targetRows"] as? Int == 196)
            #expect((blocks["copiedRows"] as? Int ?? 0) > 0)
            // What the killed run had committed was kept, not copied again.
            #expect(tables.first { $0["table"] as? String == "tracks" }?["copiedRows"] as? Int == 0)
            let list = try CommandRun.run(["list", "--json", "--database", url, "--data-dir", folder.appending(path: "instance").path])
            #expect(list.output.contains("\"pointCount\":200000"))
        }
    }

    @Test func copyRefusesAnotherLibrarysDatabaseAndAMissingLibrary() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try Self.requireServer()
        let library = folder.appending(path: "library").path
        #expect(try CommandRun.run(["import", CommandRun.fixture("gpx/gpxpy/route.gpx"), "--data-dir", library]).status == 0)
        try Self.withDatabase { url in
            // A command on the database made its own local user there.
            #expect(try CommandRun.run(["list", "--database", url, "--data-dir", folder.appending(path: "other").path]).status == 0)
            let refused = try CommandRun.run(["copy", "--from", library, "--to", url])
            #expect(refused.status == 1)
            #expect(refused.error.contains("holds users that this library does not have: 'local'"), "\(refused.error)")
            #expect(refused.error.contains("new, empty database"))

            let missing = try CommandRun.run(["copy", "--from", folder.appending(path: "nothing").path, "--to", url])
            #expect(missing.status == 1)
            #expect(missing.error.contains("no bikeride library here"))
        }
        let noURL = try CommandRun.run(["copy", "--from", library])
        #expect(noURL.status != 0)
    }
}
