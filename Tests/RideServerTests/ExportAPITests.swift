import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import ZIPFoundation

/// `GET /api/export` (issue 23): the signed-in user's library as one zip, streamed, offered as a download; nothing of
/// another user's in it; a session needed with accounts on; and the zip uploaded to `POST /api/tracks` of another
/// server gives the library back.
@Suite struct ExportAPITests {
    static func gpx(_ name: String, latitude: Double) -> String {
        """
        <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>\(name)</name><trkseg>
        <trkpt lat="\(latitude)" lon="6.6"><time>2024-05-01T10:00:00Z</time></trkpt><trkpt lat="\(latitude + 0.001)" lon="6.6"><time>2024-05-01T10:01:00Z</time></trkpt>
        </trkseg></trk></gpx>
        """
    }

    /// The zip's entries by name, read with ZIPFoundation.
    static func entries(_ bytes: Data) throws -> [String: Data] {
        let archive = try Archive(data: bytes, accessMode: .read)
        var result: [String: Data] = [:]
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            result[entry.path] = data
        }
        return result
    }

    @Test func theExportIsTheSignedInUsersOwnAndStreams() async throws {
        let server = try await TestServer.withAccounts()
        let zip = try await server.run(live: true) { client in
            #expect(try await client.get("/api/export").status == .unauthorized)
            let anna = try await Session.login(client, "anna")
            let bob = try await Session.login(client, "bob")
            for (session, name, latitude) in [(anna, "Anna's ride", 46.5), (bob, "Bob's ride", 47.5)] {
                let upload = try await client.execute(
                    uri: "/api/tracks", method: .post,
                    headers: [.cookie: session.cookie, .origin: Session.origin, .contentType: "application/gpx+xml"],
                    body: ByteBuffer(string: Self.gpx(name, latitude: latitude)))
                #expect(upload.status == .created)
            }
            #expect(try await bob.post("/api/places", json: #"{"name":"Bob's home","latitude":47.5,"longitude":6.6}"#).status == .created)
            #expect(try await anna.post("/api/places", json: #"{"name":"Anna's bakery","latitude":46.5,"longitude":6.6}"#).status == .created)

            let response = try await anna.get("/api/export")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/zip")
            let disposition = try #require(response.headers[.contentDisposition])
            #expect(disposition.hasPrefix("attachment; filename=\"bikeride-export-") && disposition.hasSuffix(".zip\""))
            // Streamed: no length known before the body is written.
            #expect(response.headers[.contentLength] == nil)
            #expect(response.headers[.transferEncoding] == "chunked")
            return Data(buffer: response.body)
        }
        let entries = try Self.entries(zip)
        let manifest = try JSONDecoder().decode(LibraryExportManifest.self, from: try #require(entries["manifest.json"]))
        #expect(manifest.user == "anna")
        #expect(manifest.counts.tracks == 1 && manifest.counts.places == 1)
        let text = entries.values.map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(text.contains("Anna's ride") && text.contains("Anna's bakery"))
        #expect(!text.contains("Bob"))

        // Uploaded to another server: the same library, and again: nothing added.
        let other = try await TestServer()
        try await other.run { client in
            // A zip upload is an import job (202, then polled to its end); the second adds nothing.
            for _ in 0..<2 {
                let job = try await ArchiveImportJobAPITests.importToTheEnd(zip, client: client, poll: client)
                #expect(job["state"] as? String == "done", "\(job)")
            }
            let places = try await client.get("/api/places")
            #expect(places.text.contains("Anna's bakery"))
        }
        let tracks = try await other.library.store.tracks(TrackQuery(), userID: other.library.userID).tracks
        #expect(tracks.map(\.name) == ["Anna's ride"])
    }

    @Test func withoutAccountsItIsTheWholeLibrary() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let upload = try await client.execute(
                uri: "/api/tracks", method: .post, headers: [.contentType: "application/gpx+xml"], body: ByteBuffer(string: Self.gpx("Solo", latitude: 40)))
            #expect(upload.status == .created)
            let response = try await client.get("/api/export")
            #expect(response.status == .ok)
            let entries = try Self.entries(Data(buffer: response.body))
            let manifest = try JSONDecoder().decode(LibraryExportManifest.self, from: try #require(entries["manifest.json"]))
            #expect(manifest.counts.tracks == 1)
            #expect(entries.keys.contains { $0.hasPrefix("tracks/") && $0.hasSuffix(".gpx") })
        }
    }
}
