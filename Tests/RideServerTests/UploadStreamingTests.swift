import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// A ride written by `Benchmarks/generate_ride.py` (the benchmarks' generator, with its own ground truth).
struct GeneratedRideFile {
    let url: URL
    let points: Int
    /// The generator's length of the path as laid out, on the ellipsoid.
    let trueDistanceMeters: Double

    init(points: Int, in folder: URL) throws {
        let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        url = folder.appending(path: "ride-\(points).gpx")
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", root.appending(path: "Benchmarks/generate_ride.py").path, String(points), url.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("{") }),
            let truth = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
            let distance = truth["trueDistanceMeters"] as? Double
        else { throw CocoaError(.fileReadCorruptFile) }
        self.points = points
        trueDistanceMeters = distance
    }
}

/// `POST /api/tracks` streams the body to a file as it arrives, then imports it: large files go through, an
/// oversize one is refused as soon as it passes the limit, a broken one is refused with where it broke, and
/// none of them leaves a file or a row behind.
@Suite struct UploadStreamingTests {
    /// A server on a real SQLite file whose library keeps uploads (and documents) in the store's folder.
    static func server(_ database: TemporaryStore) async throws -> (server: TestServer, library: TrackLibrary, uploads: URL) {
        let opened = try await database.open()
        let uploads = database.folder.appending(path: ".uploads")
        let library = TrackLibrary(
            store: opened.store, userID: opened.userID, documentsFolder: database.folder.appending(path: "Documents"), uploadsFolder: uploads)
        return (TestServer(library: library, database: database), library, uploads)
    }

    static func leftovers(_ folder: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    }

    @Test func aLargeRideStreamsInWhole() async throws {
        let database = try TemporaryStore()
        let ride = try GeneratedRideFile(points: 100_000, in: database.folder)
        let bytes = try Data(contentsOf: ride.url)
        #expect(bytes.count > 30 << 20)
        let (server, library, uploads) = try await Self.server(database)
        // On the router (the live client gives up after 20 s, which a debug build importing 33 MB on a busy
        // machine can take); bodies in pieces over a socket: the next test and Tests/browser/test_upload_memory.py.
        let id = try await server.run { client in
            let response = try await client.execute(
                uri: "/api/tracks?name=big.gpx", method: .post, headers: [.contentType: "application/gpx+xml"], body: ByteBuffer(data: bytes))
            #expect(response.status == .created)
            let tracks = try #require(try response.jsonObject()["tracks"] as? [[String: Any]])
            #expect(tracks.count == 1 && tracks[0]["pointCount"] as? Int == ride.points)
            let distance = try #require(tracks[0]["distanceMeters"] as? Double)
            // The stats' own error against the ellipsoid is far below this; GPS-like noise filtering is not.
            #expect(abs(distance - ride.trueDistanceMeters) / ride.trueDistanceMeters < 0.01)

            // The same file again: found by the hash taken while it arrived, not imported twice.
            let again = try await client.execute(uri: "/api/tracks?name=again.gpx", method: .post, body: ByteBuffer(data: bytes))
            #expect(again.status == .ok)
            #expect(try again.jsonObject()["duplicate"] as? Bool == true)
            return try #require(tracks[0]["id"] as? String)
        }
        #expect(Self.leftovers(uploads).isEmpty)
        #expect(try await library.store.trackCount(userID: library.userID) == 1)
        let storedID = try #require(TrackID(id))
        let stored = try #require(try await library.store.track(id: storedID, userID: library.userID))
        #expect(stored.content.trackPointCount == ride.points)
        // The documents folder's copy, written block by block, reads back with every point.
        let documents = Self.leftovers(database.folder.appending(path: "Documents"))
        #expect(documents.count == 1)
        let copy = try GPXReader.read(contentsOf: database.folder.appending(path: "Documents").appending(path: documents[0]))
        #expect(copy.tracks.first?.segments.first?.points.count == ride.points)
    }

    @Test func anOversizeUploadIs413AndLeavesNothing() async throws {
        let database = try TemporaryStore()
        let (server, library, uploads) = try await Self.server(database)
        let limit = TracksController<RideRequestContext>.uploadLimitBytes
        // A well-formed start, so that only the size can be the reason.
        let start = Array(zigzagGPX(name: "Endless").utf8.prefix(300))
        let text = start + [UInt8](repeating: UInt8(ascii: " "), count: limit + 1 - start.count)
        try await server.run(live: true) { client in
            let response = try await client.execute(uri: "/api/tracks?name=big.gpx", method: .post, body: ByteBuffer(bytes: text))
            #expect(response.status == .contentTooLarge)
            #expect(try response.errorCode() == "body_too_large")
        }
        try await server.run { client in
            // Without a length announced (the router hands the body over as it is): refused while it streams.
            let response = try await client.execute(uri: "/api/tracks?name=big.gpx", method: .post, body: ByteBuffer(bytes: text))
            #expect(response.status == .contentTooLarge)
            // Exactly at the limit is not too large (it is just not a GPX file that ends).
            let atLimit = try await client.execute(uri: "/api/tracks?name=big.gpx", method: .post, body: ByteBuffer(bytes: text.dropLast()))
            #expect(atLimit.status == .unprocessableContent)
        }
        #expect(Self.leftovers(uploads).isEmpty)
        #expect(try await library.store.trackCount(userID: library.userID) == 0)
    }

    @Test func aFileBrokenNearItsEndIs422WithTheLineAndStoresNothing() async throws {
        let database = try TemporaryStore()
        let ride = try GeneratedRideFile(points: 20_000, in: database.folder)
        var broken = try String(contentsOf: ride.url, encoding: .utf8)
        let range = try #require(broken.range(of: "</trkseg>", options: .backwards))
        broken.replaceSubrange(range, with: "</trksegment>")
        // Where the reader must say it broke: the line of the changed tag (1-based).
        let line = broken[..<range.lowerBound].reduce(1) { $1 == "\n" ? $0 + 1 : $0 }
        let text = broken
        let (server, library, uploads) = try await Self.server(database)
        try await server.run(live: true) { client in
            let response = try await client.execute(uri: "/api/tracks?name=broken.gpx", method: .post, body: ByteBuffer(string: text))
            #expect(response.status == .unprocessableContent)
            #expect(try response.errorCode() == "invalid_file")
            let message = try #require((try response.jsonObject()["error"] as? [String: Any])?["message"] as? String)
            #expect(message.hasPrefix("line \(line), column "))
        }
        #expect(Self.leftovers(uploads).isEmpty)
        #expect(try await library.store.trackCount(userID: library.userID) == 0)
    }
}
