import Foundation
import Testing
import TestSupport

/// `bikeride export-all` and `bikeride import` of its zip, as a user runs them: the counts and the checksums are
/// printed (and `sha256sum`'s own checksums of the unzipped files agree), a second library gets the same tracks, and
/// the same zip again adds nothing and says so; `--user` exports that user's library only.
@Suite struct ExportAllCommandTests {
    @Test func exportedLibraryComesBackInAnotherDataDirectory() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-export-all-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = folder.appending(path: "source").path, target = folder.appending(path: "target").path
        let zip = folder.appending(path: "library.zip").path

        let fixtures = ["gpx/gpxpy/route.gpx", "gpx/gpxpy/gpx1.1_with_all_fields.gpx", "fit/python-fitparse/garmin-edge-820-bike.fit"]
        #expect(try CommandRun.run(["import", "--data-dir", source] + fixtures.map(CommandRun.fixture)).status == 0)
        #expect(try CommandRun.run(["places", "add", "Bakery", "--at", "47.3769,8.5417", "--note", "Best croissants", "--data-dir", source]).status == 0)
        let listed = try CommandRun.run(["list", "--data-dir", source])
        let trackCount = listed.output.split(separator: "\n").count - 1
        #expect(trackCount >= 3)

        let exported = try CommandRun.run(["export-all", "--out", zip, "--data-dir", source])
        #expect(exported.status == 0, "\(exported.error)")
        #expect(exported.output.contains("exported \(trackCount) tracks"))
        #expect(exported.output.contains("1 places (1 notes, 0 photos)"))

        // The printed checksums are those of the files, as sha256sum computes them after unzip unpacks the zip.
        let unpacked = folder.appending(path: "unpacked")
        let unzip = TestProcess()
        unzip.executableURL = URL(filePath: "/usr/bin/unzip")
        unzip.arguments = ["-q", zip, "-d", unpacked.path]
        try unzip.run()
        unzip.waitUntilExit()
        #expect(unzip.terminationStatus == 0)
        let printed = exported.output.split(separator: "\n").filter { $0.count > 66 && $0.dropFirst(64).hasPrefix("  ") }
        #expect(printed.count >= trackCount + 5)
        let check = TestProcess()
        check.executableURL = URL(filePath: "/usr/bin/env")
        check.arguments = ["sha256sum", "--check", "--strict", "-"]
        check.currentDirectoryURL = unpacked
        let input = Pipe(), output = Pipe()
        check.standardInput = input
        check.standardOutput = output
        try check.run()
        input.fileHandleForWriting.write(Data((printed.joined(separator: "\n") + "\n").utf8))
        try input.fileHandleForWriting.close()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        check.waitUntilExit()
        #expect(check.terminationStatus == 0, "sha256sum disagrees with the printed checksums")

        let imported = try CommandRun.run(["import", zip, "--data-dir", target])
        #expect(imported.status == 0, "\(imported.error)")
        #expect(imported.output.contains("a bikeride export of \(trackCount) tracks"))
        #expect(imported.error.contains("\(trackCount) tracks, 1 places (1 notes, 0 photos)"))
        let targetList = try CommandRun.run(["list", "--data-dir", target])
        #expect(targetList.output.split(separator: "\n").count - 1 == trackCount)
        #expect(try CommandRun.run(["places", "list", "--data-dir", target]).output.contains("Bakery"))

        let again = try CommandRun.run(["import", zip, "--data-dir", target])
        #expect(again.status == 0, "\(again.error)")
        #expect(again.error.contains("nothing new"))
        #expect(try CommandRun.run(["list", "--data-dir", target]).output == targetList.output)
    }
}
