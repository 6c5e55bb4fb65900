import Foundation
import RideKit
@testable import RideStore
import TestSupport
import Testing
import ZIPFoundation
import Logging
@testable import RideStorePostgres

/// Zip archives in one go: a Strava bulk export named by its `activities.csv`, idempotence, and hostile archives
/// (names that climb out, symlinks, a bomb, too many entries) — on both stores.
@Suite struct ArchiveImportTests {
    /// A zip in a temporary folder with `entries` (path → bytes), plus symlinks (path → target).
    static func zip(_ entries: [(String, [UInt8])], symlinks: [(String, String)] = [], in folder: URL) throws -> URL {
        let url = folder.appending(path: "export-\(UUID().uuidString).zip")
        let archive = try Archive(url: url, accessMode: .create)
        for (path, bytes) in entries {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(bytes.count), compressionMethod: .deflate) { position, size in
                Data(bytes[Int(position)..<Int(position) + size])
            }
        }
        for (path, target) in symlinks {
            let data = Data(target.utf8)
            try archive.addEntry(with: path, type: .symlink, uncompressedSize: Int64(data.count)) { position, size in
                data.subdata(in: Int(position)..<Int(position) + size)
            }
        }
        return url
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-archive-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Strava's columns as its export writes them (the summary's first; some names twice), with a description
    /// holding quotes, commas and a line break, and a manual activity without a file.
    static let activitiesCSV = """
        Activity ID,Activity Date,Activity Name,Activity Type,Activity Description,Elapsed Time,Distance,Filename,Elapsed Time,Distance
        101,"Jun 12, 2017, 4:09:22 PM",Morning Ride,Ride,"Coffee stop, then ""the"" hill
        and home",60,0.46,activities/101.fit.gz,60.363,459.5
        102,"Jul 16, 2022, 4:08:25 PM",Paddle,Stand Up Paddling,,966,1.0,activities/102.tcx.gz,966,1000
        103,"Jun 11, 2017, 2:34:09 PM","Run, easy",Run,,56,0.15,activities/103.fit,56.887,157.56
        104,"Jan 1, 2020, 9:00:00 AM",Treadmill (manual),Run,,1800,5.0,,1800,5000
        """

    static func stravaExport(in folder: URL) throws -> URL {
        try zip(
            [
                ("activities.csv", Array(activitiesCSV.utf8)),
                ("activities/101.fit.gz", StoredGzip.encode(try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-bike.fit"))),
                ("activities/102.tcx.gz", StoredGzip.encode(try Fixtures.bytes("tcx/tcxreader/sup_activity_1.tcx"))),
                ("activities/103.fit", try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-run.fit")),
                ("profile.csv", Array("Email\nann@example.org\n".utf8)),
            ], in: folder)
    }

    @Test(arguments: StoreKind.allCases)
    func aStravaExportImportsWithItsNamesKindsAndDescriptionsOnce(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = try Self.stravaExport(in: folder)
            let seen = ProgressLog()
            let report = try await library.importArchive(at: url) { seen.append($0) }
            #expect(report.filesTotal == 3 && report.imported == 3 && report.failures.isEmpty, "\(report.failures)")
            #expect(report.message == "3 imported")
            #expect(seen.values.last == ArchiveProgress(filesDone: 3, filesTotal: 3))
            let byName = Dictionary(report.tracks.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            #expect(byName["Morning Ride"]?.kind == .ride)
            #expect(byName["Run, easy"]?.kind == .run)
            // "Stand Up Paddling" is no kind bikeride knows: the file's (TCX Sport "Other": none), so a ride.
            #expect(byName["Paddle"] != nil)
            let ride = try #require(byName["Morning Ride"])
            let stored = try #require(try await library.store.track(id: ride.id, userID: library.userID))
            #expect(stored.content.tracks.first?.header.description == "Coffee stop, then \"the\" hill\nand home")
            #expect(stored.summary.pointCount == 19)

            let again = try await library.importArchive(at: url)
            #expect(again.imported == 0 && again.alreadyImported == 3)
            #expect(again.message == "3 already imported")
            #expect(try await library.store.trackCount(userID: library.userID) == 3)
        }
    }

    /// Entries are parsed ahead while the one before is saved: the same file twice in a row (and again after
    /// others) still makes one track, failures stay with their entries, and progress counts every entry once, in order.
    @Test(arguments: StoreKind.allCases)
    func theSameFileTwiceInOneArchiveImportsOnce(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let run = try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-run.fit")
            let walk = try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-walk.fit")
            let url = try Self.zip(
                [
                    ("a/run.fit", run), ("b/run-copy.fit", run), ("broken.gpx", Array("<gpx version=\"1.1\"><trk><trkseg><trkpt".utf8)),
                    ("walk.fit", walk), ("c/run-again.fit", run),
                ], in: folder)
            let seen = ProgressLog()
            let report = try await library.importArchive(at: url) { seen.append($0) }
            #expect(report.imported == 2 && report.alreadyImported == 2, "\(report)")
            #expect(report.failures.count == 1 && report.failures.first?.hasPrefix("broken.gpx: ") == true, "\(report.failures)")
            #expect(seen.values.map(\.filesDone) == Array(0...5))
            #expect(try await library.store.trackCount(userID: library.userID) == 2)
        }
    }

    /// With a documents folder, every track an archive imports gets its own GPX there (written beside the next
    /// entry's save), also when two tracks would take the same name; the folder then syncs as unchanged.
    @Test(arguments: StoreKind.allCases)
    func anArchiveFillsTheDocumentsFolderOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let documents = folder.appending(path: "documents")
            let library = TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: documents)
            let names = ["garmin-fenix-5-run.fit", "garmin-fenix-5-walk.fit", "garmin-fenix-5-bike.fit"]
            var entries: [(String, [UInt8])] = []
            for name in names { entries.append(("activities/\(name)", try Fixtures.bytes("fit/python-fitparse/\(name)"))) }
            // The same names in another folder with other content (a gzipped copy is other bytes): same track names.
            for name in names { entries.append(("again/\(name).gz", StoredGzip.encode(try Fixtures.bytes("fit/python-fitparse/\(name)")))) }
            let report = try await library.importArchive(at: try Self.zip(entries, in: folder))
            #expect(report.imported == 6, "\(report.failures)")
            let files = try FileManager.default.contentsOfDirectory(atPath: documents.path).filter { $0.hasSuffix(".gpx") }
            #expect(files.count == 6, "\(files)")
            #expect(Set(files.map { $0.lowercased() }).count == 6)
            let stored = try await store.documentFiles(userID: library.userID)
            #expect(Set(stored.map(\.path)) == Set(files))
            #expect(Set(stored.compactMap(\.trackID)) == Set(report.tracks.map(\.id)))
        }
    }

    /// After a bulk import the PostgreSQL planner gets statistics at once: without them (a new database, before
    /// autovacuum's first pass) the records query over 3,000 new tracks ran past the 30 s deadline.
    @Test func refreshingThePlannerStatisticsAnalyzesTheTracksAndEfforts() async throws {
        try await withStore(.postgres) { store in
            let postgres = try #require(store as? PostgresRideStore)
            try await postgres.refreshPlannerStatistics()
            let analyzed = try await postgres.statement { connection in
                var names: Set<String> = []
                let rows = try await connection.query(
                    "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL", logger: Logger(label: "test"))
                for try await name in rows.decode(String.self) { names.insert(name) }
                return names
            }
            #expect(analyzed.isSuperset(of: ["tracks", "track_efforts", "segments", "point_blocks"]), "\(analyzed)")
            // SQLite has nothing to do, and says so by not failing.
            try await withStore(.sqlite) { try await $0.refreshPlannerStatistics() }
        }
    }

    /// Entry names that climb out of any folder reach no file (entries are read into memory, never written by
    /// name); symlinks are skipped; a bomb fails alone; the rest imports.
    @Test(arguments: StoreKind.allCases)
    func hostileEntriesFailAloneAndWriteNothingOutside(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let walk = try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-walk.fit")
            // 64 MiB of one byte: deflates to about 64 KiB, a thousandfold.
            let bomb = [UInt8](repeating: UInt8(ascii: " "), count: 64 << 20)
            let url = try Self.zip(
                [
                    ("../../escaped.fit", walk),
                    ("/etc/absolute.tcx", try Fixtures.bytes("tcx/tcxreader/sup_activity_1.tcx")),
                    ("bomb.gpx", Array("<gpx version=\"1.1\" creator=\"x\">".utf8) + bomb),
                ],
                symlinks: [("link.gpx", "/etc/passwd")], in: folder)
            let report = try await library.importArchive(at: url)
            #expect(report.imported == 2, "\(report.failures)")
            #expect(report.failures.count == 1)
            #expect(report.failures.first?.hasPrefix("bomb.gpx: inflates to more than") == true, "\(report.failures)")
            #expect(report.skippedEntries == 1)
            #expect(!FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().deletingLastPathComponent().appending(path: "escaped.fit").path))
            #expect(!FileManager.default.fileExists(atPath: "/etc/absolute.tcx"))
        }
    }

    @Test func tooManyEntriesAreRefusedWhole() async throws {
        try await withLibrary(.sqlite) { library in
            let folder = try Self.folder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let url = try Self.zip((0..<12).map { ("empty-\($0).txt", []) }, in: folder)
            var limits = ArchiveLimits()
            limits.maximumEntries = 10
            await #expect(throws: RideStoreError.self) { try await library.importArchive(at: url, limits: limits) }
            #expect(try await library.store.trackCount(userID: library.userID) == 0)
            // Not a zip at all.
            let text = folder.appending(path: "not.zip")
            try Data("hello".utf8).write(to: text)
            await #expect(throws: RideStoreError.self) { try await library.importArchive(at: text) }
        }
    }
}

/// Progress reports as they come (from the import's task).
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [ArchiveProgress] = []

    func append(_ progress: ArchiveProgress) {
        lock.lock()
        items.append(progress)
        lock.unlock()
    }

    var values: [ArchiveProgress] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
