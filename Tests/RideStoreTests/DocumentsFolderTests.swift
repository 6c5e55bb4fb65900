import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// The documents folder: saved tracks are written there, new or changed files are imported from there, and
/// names of any kind stay inside it.
@Suite struct DocumentsFolderTests {
    @Test(arguments: StoreKind.allCases) func savedTracksAreWrittenAndNewFilesImported(_ kind: StoreKind) async throws {
        try await withDocuments(kind) { test in
            let library = try await test.library(documents: true)
            let outcome = try await library.importFile(at: Fixtures.url("gpx/opentracks/gpx_timezone.gpx"))
            let track = try #require(outcome.tracks.first)
            let summary = try #require(try await test.store.trackSummary(id: track.id, userID: library.userID))
            let name = try #require(summary.documentName)
            // Named from the track's date in its own offset, and its name.
            #expect(name.hasPrefix(String(track.startTime!.rfc3339.prefix(10)) + " "))
            #expect(name.hasSuffix(".gpx"))
            let written = try GPXReader.read(contentsOf: test.documents.appending(path: name))
            #expect(written.tracks == (try await library.document(for: [track.id])).tracks)

            // A sync right after finds nothing to do.
            var report = try await library.sync()
            #expect(report.imported.isEmpty && report.updated.isEmpty && report.written.isEmpty && report.failures.isEmpty)
            #expect(report.unchangedCount == 1)

            // A new file dropped in (in a subfolder, with a .gpx436 beside it) is imported as one track each.
            let sub = test.documents.appending(path: "From phone")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: Fixtures.url("gpx/ruby-gpx/tracks.gpx"), to: sub.appending(path: "several tracks.gpx"))
            try JSONTrackFormat.encode(GeneratedRide.document(points: 50)).write(to: test.documents.appending(path: "brief.gpx436"))
            try Data("<gpx".utf8).write(to: test.documents.appending(path: "broken.gpx"))
            try Data("ignored".utf8).write(to: test.documents.appending(path: "readme.txt"))
            report = try await library.sync()
            #expect(Set(report.imported.map(\.path)) == ["From phone/several tracks.gpx", "brief.gpx436"])
            #expect(report.failures.map(\.path) == ["broken.gpx"])
            #expect(report.written.isEmpty)
            let several = try #require(report.imported.first { $0.path.hasPrefix("From phone") }?.track)
            expectSameDocument(
                try await library.document(for: [several.id]), try GPXReader.read(contentsOf: Fixtures.url("gpx/ruby-gpx/tracks.gpx")), "one file, one track")
            #expect(try await test.store.trackCount(userID: library.userID) == 3)

            // Touched but not changed: not imported again. Changed: the same track gets the new content.
            let file = test.documents.appending(path: name)
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: file.path)
            report = try await library.sync()
            #expect(report.imported.isEmpty && report.updated.isEmpty)
            var changed = written
            changed.tracks[0].name = "Edited elsewhere"
            changed.tracks[0].segments[0].points.removeLast()
            try GPXWriter.data(changed).write(to: file)
            report = try await library.sync()
            #expect(report.updated.map(\.track.id) == [track.id])
            let updated = try #require(try await test.store.track(id: track.id, userID: library.userID))
            #expect(try updated.content.document().tracks == changed.tracks)
            #expect(updated.summary.pointCount == written.tracks[0].segments[0].points.count - 1)
            #expect(try await test.store.trackCount(userID: library.userID) == 3)

            // Deleting a track for good removes its file; a file removed by hand is forgotten, not written again.
            _ = try await library.delete([track.id], permanently: true)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            try FileManager.default.removeItem(at: test.documents.appending(path: "brief.gpx436"))
            report = try await library.sync()
            #expect(report.imported.isEmpty && report.written.isEmpty)
            #expect(try await test.store.documentFiles(userID: library.userID).map(\.path).sorted() == ["From phone/several tracks.gpx"])
        }
    }

    @Test(arguments: StoreKind.allCases) func tracksImportedWithoutTheFolderAreWrittenOnSync(_ kind: StoreKind) async throws {
        try await withDocuments(kind) { test in
            let without = try await test.library(documents: false)
            let outcome = try await without.importFile(at: Fixtures.url("gpx/gpxpy/cerknicko-jezero.gpx"))
            let report = try await test.library(documents: true).sync()
            #expect(Set(report.written.map(\.trackID)) == Set(outcome.tracks.map(\.id)))
            #expect(FileManager.default.fileExists(atPath: test.documents.appending(path: report.written[0].path).path))
            // An exported copy dropped into the folder is recognised as that track, not imported twice.
            try await without.export(outcome.tracks.map(\.id), as: .gpx, to: test.folder.appending(path: "copy.gpx"))
            try FileManager.default.copyItem(at: Fixtures.url("gpx/gpxpy/cerknicko-jezero.gpx"), to: test.documents.appending(path: "copy of original.gpx"))
            let second = try await test.library(documents: true).sync()
            #expect(second.linked.map(\.trackID) == [outcome.tracks[0].id])
            #expect(try await test.store.trackCount(userID: without.userID) == outcome.tracks.count)
        }
    }

    @Test(arguments: StoreKind.allCases, [
        "../../etc/passwd", "/absolute/path", "..", ".", ".hidden", "...", "a/b\\c:d*e?f\"g<h>i|j", "line\nbreak\ttab", "nul\u{0}byte",
        "\u{202E}gpx.exe", "   ", "", String(repeating: "ü", count: 300), "con", "Ride.gpx",
    ])
    func hostileTrackNamesStayInsideTheFolder(_ kind: StoreKind, _ name: String) async throws {
        let test = try TestStore(inMemory: true)
        try await withStore(kind) { store in
            let library = TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: test.documents)
            let document = GeneratedRide.document(points: 10, name: name)
            let data = GPXWriter.data(document)
            let outcome = try await library.importData(data, fileName: name.isEmpty ? nil : name + ".gpx")
            let track = try #require(outcome.tracks.first)
            let file = try #require(try await store.trackSummary(id: track.id, userID: library.userID)?.documentName)
            #expect(!file.contains("/") && !file.contains("\\") && !file.hasPrefix(".") && !file.contains("\0"))
            #expect(file.utf8.count <= 11 + SafeFileName.maximumNameBytes + 10)
            #expect(file.hasSuffix(".gpx"))
            let contents = try FileManager.default.contentsOfDirectory(atPath: test.documents.path)
            #expect(contents == [file])
            // The same name twice gives two files.
            let again = try await library.importData(data, fileName: "x.gpx", options: ImportOptions(allowsDuplicates: true))
            let second = try #require(try await store.trackSummary(id: again.tracks[0].id, userID: library.userID)?.documentName)
            #expect(second != file)
            #expect(try FileManager.default.contentsOfDirectory(atPath: test.documents.path).count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func oddFileNamesInTheFolderImportAndLinksAreNotFollowed(_ kind: StoreKind) async throws {
        try await withDocuments(kind) { test in
            let library = try await test.library(documents: true)
            try FileManager.default.createDirectory(at: test.documents, withIntermediateDirectories: true)
            let names = ["-rf.gpx", "..gpx", "ü ñ 日本.gpx", "with\nnewline.gpx", "UPPER.GPX"]
            for (index, name) in names.enumerated() {
                try GeneratedRide.write(points: 10 + index, name: "t\(index)", to: test.documents.appending(path: name))
            }
            let outside = test.folder.appending(path: "outside.gpx")
            try GeneratedRide.write(points: 5, to: outside)
            try FileManager.default.createSymbolicLink(at: test.documents.appending(path: "link.gpx"), withDestinationURL: outside)
            let report = try await library.sync()
            #expect(Set(report.imported.map(\.path)) == Set(names.filter { !$0.hasPrefix(".") }))
            #expect(report.failures.isEmpty)
            #expect(!report.imported.contains { $0.path == "link.gpx" })
        }
    }

    @Test func safeNamesExamples() {
        #expect(SafeFileName.make(date: "2024-05-04", name: "Morning ride", extension: "gpx", taken: []) == "2024-05-04 Morning ride.gpx")
        #expect(SafeFileName.make(date: "2024-05-04", name: "../../etc/passwd", extension: "gpx", taken: []) == "2024-05-04 etc passwd.gpx")
        #expect(
            SafeFileName.make(date: "2024-05-04", name: "Morning ride", extension: "gpx", taken: ["2024-05-04 morning ride.gpx"])
                == "2024-05-04 Morning ride (2).gpx")
        #expect(SafeFileName.clean("...") == "Track")
        #expect(SafeFileName.clean(" trailing dots... ") == "trailing dots")
    }
}

@Suite struct DataDirectoryTests {
    @Test func defaultsFollowTheEnvironment() {
        #expect(DataDirectory.default(environment: ["BIKERIDE_DATA_DIR": "/srv/ride"]).url.path == "/srv/ride")
        #if os(Linux)
        #expect(DataDirectory.default(environment: ["HOME": "/home/a"]).url.path == "/home/a/.local/share/bikeride")
        #expect(DataDirectory.default(environment: ["HOME": "/home/a", "XDG_DATA_HOME": "/x"]).url.path == "/x/bikeride")
        #endif
    }

    @Test func openingCreatesTheDatabaseAndTheLocalUser() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "ridestore-data-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let directory = DataDirectory(url: folder.appending(path: "nested/data"))
        let library = try await directory.openLibrary()
        #expect(FileManager.default.fileExists(atPath: directory.databaseURL.path))
        let again = try await directory.openLibrary()
        #expect(again.userID == library.userID)
        #expect(library.documentsFolder == directory.documentsURL)
    }
}

/// A store of `kind` (`withStore`) and a temporary folder for its documents folder and what a test puts beside it.
struct DocumentsSetup {
    let store: any RideStore
    let folder: URL
    var documents: URL { folder.appending(path: "Documents") }

    func library(documents: Bool = false) async throws -> TrackLibrary {
        TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: documents ? self.documents : nil)
    }
}

func withDocuments<T>(_ kind: StoreKind, _ body: (DocumentsSetup) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appending(path: "ridestore-documents-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try await withStore(kind) { store in try await body(DocumentsSetup(store: store, folder: folder)) }
}
