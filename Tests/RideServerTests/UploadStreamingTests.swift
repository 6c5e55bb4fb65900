import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// A large ride written in Swift, laid out where its length is known exactly: along the equator (a geodesic of
/// the WGS-84 ellipsoid, whose length between two of its points is the equatorial radius times the longitude
/// between them), east for 1,000 fixes and back west for 400, 5 m apart at 1 Hz, each point carrying elevation,
/// time and a Garmin TrackPointExtension as a bike computer writes it. Made in the test's own process: a child
/// process per test raced other tests' threads (Foundation's `Process.run` crashed in the suite).
struct GeneratedRideFile {
    let url: URL
    let points: Int
    /// The path's length on the ellipsoid, from the longitudes as written (7 decimals).
    let trueDistanceMeters: Double

    init(points: Int, in folder: URL) throws {
        url = folder.appending(path: "ride-\(points).gpx")
        let equatorialRadius = 6_378_137.0
        let stepDegrees = 5 / equatorialRadius * 180 / .pi
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
        let file = try FileHandle(forWritingTo: url)
        defer { try? file.close() }
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx creator="bikeride tests" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1">
              <trk>
                <name>Generated</name>
                <trkseg>

            """
        var longitude = 0.0
        var previous: Double?
        var distance = 0.0
        for index in 0..<points {
            if index > 0 { longitude += (index - 1) % 1_400 < 1_000 ? stepDegrees : -stepDegrees }
            let written = (longitude * 1e7).rounded() / 1e7
            if let previous { distance += abs(written - previous) * .pi / 180 * equatorialRadius }
            previous = written
            let elevation = 100 + 20 * sin(Double(index) / 300)
            let time = GPXTime(secondsSince1970: 1_700_000_000 + Int64(index)).rfc3339
            text += """
                      <trkpt lat="0.0000000" lon="\(String(format: "%.7f", written))">
                        <ele>\(String(format: "%.1f", elevation))</ele>
                        <time>\(time)</time>
                        <extensions>
                          <gpxtpx:TrackPointExtension>
                            <gpxtpx:hr>\(120 + index % 40)</gpxtpx:hr>
                            <gpxtpx:cad>\(80 + index % 15)</gpxtpx:cad>
                            <gpxtpx:atemp>\(18 + index % 5)</gpxtpx:atemp>
                          </gpxtpx:TrackPointExtension>
                        </extensions>
                      </trkpt>

                """
            if text.utf8.count > 1 << 20 {
                file.write(Data(text.utf8))
                text = ""
            }
        }
        text += "    </trkseg>\n  </trk>\n</gpx>\n"
        file.write(Data(text.utf8))
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
            // A length announced past the limit is refused from the head, before the body: the client sends 300 bytes
            // of its 64 MiB and has its answer (sending all of it through the live client took longer than its 20 s
            // read timeout on a loaded machine, in a debug build).
            let port = try #require(client.port)
            let raw = try RawConnection(port: port)
            raw.send(
                "POST /api/tracks?name=big.gpx HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/gpx+xml\r\n"
                    + "Content-Length: \(limit + 1)\r\n\r\n" + String(decoding: start, as: UTF8.self))
            let answer = await raw.receive(seconds: 15).text
            #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer.prefix(300))")
            #expect(answer.contains("body_too_large"))
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
