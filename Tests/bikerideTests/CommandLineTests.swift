import Foundation
import TestSupport
import Testing

/// Runs the real `bikeride` executable, as a user would.
struct CommandRun {
    var status: Int32
    var output: String
    var error: String

    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = packageRoot.deletingLastPathComponent().appending(path: "shared/fixtures")

    static var executable: URL {
        let candidates = [".build/debug/bikeride", ".build/release/bikeride"].map { packageRoot.appending(path: $0) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    static func run(_ arguments: [String], input: Data? = nil) throws -> CommandRun {
        let process = TestProcess()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = Pipe()
        process.standardInput = inputPipe
        try process.run()
        if let input { inputPipe.fileHandleForWriting.write(input) }
        try inputPipe.fileHandleForWriting.close()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandRun(
            status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
            error: String(decoding: errorData, as: UTF8.self))
    }

    static func fixture(_ path: String) -> String { fixtures.appending(path: path).path }
}

@Suite struct CommandLineTests {
    @Test func statsJSONHasTheAgreedKeys() throws {
        let run = try CommandRun.run(["stats", "--json", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")])
        #expect(run.status == 0, "\(run.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        for key in [
            "file", "tracks", "segments", "points", "waypoints", "routes", "distanceMeters", "ascentMeters", "descentMeters",
            "elapsedSeconds", "movingSeconds", "maxSpeedMetersPerSecond", "averageSpeedMetersPerSecond", "startTime", "endTime", "bounds",
        ] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["points"] as? Int == 4142)
        #expect(object["startTime"] as? String == "2018-11-29T01:48:58Z")
        let bounds = try #require(object["bounds"] as? [String: Double])
        #expect(Set(bounds.keys) == ["minLatitude", "minLongitude", "maxLatitude", "maxLongitude"])
    }

    @Test func aBadFileIsNamedWithLineAndColumnAndTheOthersStillCount() throws {
        let run = try CommandRun.run([
            "stats", "--json", CommandRun.fixture("gpx/malformed/coregpx__wptError.gpx"), CommandRun.fixture("gpx/gpxpy/route.gpx"),
        ])
        #expect(run.status == 1)
        #expect(run.error.contains("coregpx__wptError.gpx:3:2: invalid lat '91.38389'"))
        let lines = run.output.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("route.gpx") == true)
    }

    @Test func standardInputIsReadWithADash() throws {
        let data = try Data(contentsOf: URL(filePath: CommandRun.fixture("gpx/gpxpy/route.gpx")))
        let run = try CommandRun.run(["stats", "--json", "-"], input: data)
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("\"routes\":1"))
    }

    @Test func lenientFlagDropsAndSays() throws {
        let run = try CommandRun.run(["stats", "--lenient", CommandRun.fixture("gpx/malformed/coregpx__wptError.gpx")])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.error.contains("dropped"))
    }

    @Test func missingFileAndFolderHaveClearMessages() throws {
        let run = try CommandRun.run(["stats", "/nonexistent/ride.gpx", CommandRun.fixtures.path])
        #expect(run.status == 1)
        #expect(run.error.contains("/nonexistent/ride.gpx: no such file"))
        #expect(run.error.contains("is a folder"))
    }

    @Test func tableIsReadable() throws {
        let run = try CommandRun.run(["stats", CommandRun.fixture("gpx/gpxpy/track-with-empty-segment.gpx")])
        #expect(run.status == 0)
        #expect(run.output.hasPrefix("FILE"))
        #expect(run.output.contains(" km"))
    }

    @Test func badArgumentsExitNonZeroWithHelp() throws {
        let run = try CommandRun.run(["stats", "--activity", "swim", CommandRun.fixture("gpx/gpxpy/route.gpx")])
        #expect(run.status != 0)
        #expect(run.error.contains("swim"))
        let convert = try CommandRun.run(["convert", "a.gpx", "b.txt"])
        #expect(convert.status != 0)
        #expect(convert.error.contains("--to"))
    }

    @Test(arguments: ["gpx436", "geojson", "gpx"])
    func convertWritesEachFormatAndReadsItBack(_ format: String) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appending(path: "out.\(format)").path
        let input = CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")
        let run = try CommandRun.run(["convert", input, output])
        #expect(run.status == 0, "\(run.error)")
        let before = try CommandRun.run(["stats", "--json", input])
        let after = try CommandRun.run(["stats", "--json", output])
        #expect(after.status == 0, "\(after.error)")
        let a = try #require(try JSONSerialization.jsonObject(with: Data(before.output.utf8)) as? [String: Any])
        let b = try #require(try JSONSerialization.jsonObject(with: Data(after.output.utf8)) as? [String: Any])
        #expect(a["points"] as? Int == b["points"] as? Int)
        let distanceBefore = try #require(a["distanceMeters"] as? Double)
        let distanceAfter = try #require(b["distanceMeters"] as? Double)
        #expect(abs(distanceBefore - distanceAfter) < 0.001)
    }

    @Test func simplifyKeepsTheShapeWithFewerPoints() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appending(path: "small.geojson").path
        let run = try CommandRun.run(["convert", "--simplify", "10", CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx"), output])
        #expect(run.status == 0, "\(run.error)")
        let stats = try CommandRun.run(["stats", "--json", output])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(stats.output.utf8)) as? [String: Any])
        let points = try #require(object["points"] as? Int)
        #expect(points > 10 && points < 4142)
        let bad = try CommandRun.run(["convert", "--simplify", "-3", CommandRun.fixture("gpx/gpxpy/route.gpx"), output])
        #expect(bad.status != 0)
    }

    @Test func convertOfABrokenFileWritesNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appending(path: "out.gpx").path
        let run = try CommandRun.run(["convert", CommandRun.fixture("gpx/malformed/jpx__GPX_invalid_extensions.gpx"), output])
        #expect(run.status == 1)
        #expect(run.error.contains("mismatched"))
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
