import Foundation
import TestSupport
import RideKit
import Testing

/// `bikeride simulate`, run as a user would, against a real `bikeride serve` on a free loopback port.
@Suite struct SimulateCommandTests {
    /// A running server on its own data directory.
    final class Server {
        let process = TestProcess()
        let dataDirectory = NSTemporaryDirectory() + "bikeride-simulate-\(UUID().uuidString)"
        private(set) var url = ""

        init() throws {
            process.executableURL = CommandRun.executable
            process.arguments = ["serve", "--port", "0", "--data-dir", dataDirectory]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while !text.contains("data directory") && Date() < deadline {
                text += String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            }
            let address = try #require(text.split(separator: "\n").first { $0.contains("serving http://") })
            url = String(try #require(address.split(separator: " ").last { $0.hasPrefix("http://") }))
            while url.hasSuffix("/") { url.removeLast() }
        }

        deinit {
            process.terminate()
            process.waitUntilExit()
            try? FileManager.default.removeItem(atPath: dataDirectory)
        }
    }

    /// An L: 400 m north-east, a right turn of 90°, 300 m on; a point every 25 m. Its length, independently.
    static func lRoute() throws -> (path: String, lengthMeters: Double) {
        var position = Coordinate(latitude: 52.52, longitude: 13.405)
        var points = [position]
        for (legMeters, bearing) in [(400.0, 45.0), (300.0, 135.0)] {
            for _ in 0..<Int(legMeters / 25) {
                position = position.destination(distanceMeters: 25, bearingDegrees: bearing)
                points.append(position)
            }
        }
        let path = try CuesCommandTests.writeGPX(points, asRoute: false)
        return (path, 700)
    }

    static func tracks(_ server: Server) throws -> [[String: Any]] {
        let run = try CommandRun.run(["list", "--all", "--json", "--data-dir", server.dataDirectory])
        let page = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any], "\(run.error)")
        return try #require(page["tracks"] as? [[String: Any]])
    }

    @Test func aRideAlongARouteIsRecordedAndSavedWithTheRoutesLength() throws {
        let server = try Server()
        let (path, length) = try Self.lRoute()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try CommandRun.run(["simulate", path, "--server", server.url, "--speed", "36", "--interval", "1", "--batch", "20", "--name", "Demo L"])
        #expect(run.status == 0, "\(run.error)")
        #expect(run.output.contains("saved track"), "\(run.output)")
        let tracks = try Self.tracks(server)
        try #require(tracks.count == 1)
        #expect(tracks[0]["name"] as? String == "Demo L")
        #expect(tracks[0]["source"] as? String == "recording")
        let distance = try #require(tracks[0]["distanceMeters"] as? Double)
        // The simulator cuts no corner and has no scatter; the stats' smoothing may round the one corner.
        #expect(abs(distance - length) / length < 0.02, "\(distance)")
        // 10 m/s: 70 s of riding, a fix a second.
        let moving = try #require(tracks[0]["movingSeconds"] as? Double)
        #expect(abs(moving - 70) <= 3, "\(moving)")
    }

    @Test func followingASavedRouteAnnouncesItsTurn() throws {
        let server = try Server()
        let (path, _) = try Self.lRoute()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let imported = try CommandRun.run(["import", path, "--data-dir", server.dataDirectory])
        #expect(imported.status == 0, "\(imported.error)")
        let routeID = try #require(try Self.tracks(server).first?["id"] as? String)
        let run = try CommandRun.run(["simulate", path, "--server", server.url, "--speed", "18", "--follow", routeID, "--units", "imperial"])
        #expect(run.status == 0, "\(run.error)")
        // The one corner is a right turn; the distance to it is said in feet or miles.
        #expect(run.output.contains("Turn right in"), "\(run.output)")
        #expect(run.output.contains(" mi") || run.output.contains(" feet"), "\(run.output)")
        #expect(try Self.tracks(server).count == 2)
    }

    @Test func aServerThatCannotBeReachedOrAnUnknownRouteIsSaidInWords() throws {
        let (path, _) = try Self.lRoute()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let unreachable = try CommandRun.run(["simulate", path, "--server", "http://127.0.0.1:1"])
        #expect(unreachable.status != 0)
        #expect(unreachable.error.contains("cannot reach http://127.0.0.1:1"), "\(unreachable.error)")

        let server = try Server()
        let unknown = try CommandRun.run(["simulate", path, "--server", server.url, "--follow", "ZZZZZZZZ"])
        #expect(unknown.status != 0)
        #expect(unknown.error.contains("404") && unknown.error.contains("ZZZZZZZZ"), "\(unknown.error)")
        #expect(try Self.tracks(server).isEmpty)

        let badSpeed = try CommandRun.run(["simulate", path, "--server", server.url, "--speed", "0"])
        #expect(badSpeed.status != 0)
        #expect(badSpeed.error.contains("--speed must be from 1 to 200"))
        let badServer = try CommandRun.run(["simulate", path, "--server", "ftp://x"])
        #expect(badServer.status != 0)
        #expect(badServer.error.contains("--server must be an http://"))
    }
}
