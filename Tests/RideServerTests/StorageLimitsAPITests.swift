import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// An upload over the server's limits (`--max-track-points`, `--max-user-points`) is refused with 413
/// `limit_exceeded` and a sentence that says what to do; nothing is stored. A gzip of a few kilobytes that
/// inflates to more points than a track may have is refused the same way, its points never all held.
@Suite struct StorageLimitsAPITests {
    static func gpx(points: Int) -> String {
        var text = "<gpx version=\"1.1\" creator=\"limits\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>"
        for point in 0..<points { text += "<trkpt lat=\"\(46.0 + Double(point) * 0.00001)\" lon=\"7\"/>" }
        return text + "</trkseg></trk></gpx>"
    }

    @Test func uploadsOverTheLimitsAreRefusedAndNothingIsStored() async throws {
        var server = try await TestServer()
        server.configuration.storageLimits = StorageLimits(maximumTrackPoints: 1_000, maximumUserPoints: 1_500)
        try await server.run { client in
            let fine = try await client.execute(uri: "/api/tracks?name=fine.gpx", method: .post, body: ByteBuffer(string: Self.gpx(points: 1_000)))
            #expect(fine.status == .created, "\(fine.text)")

            let long = try await client.execute(uri: "/api/tracks?name=long.gpx", method: .post, body: ByteBuffer(string: Self.gpx(points: 1_001)))
            #expect(long.status == .contentTooLarge)
            let error = try #require(try long.jsonObject()["error"] as? [String: Any])
            #expect(error["code"] as? String == "limit_exceeded")
            #expect((error["message"] as? String)?.contains("1001 points") == true, "\(long.text)")

            // 1,000 stored; 600 more would make 1,600 of 1,500.
            let more = try await client.execute(uri: "/api/tracks?name=more.gpx", method: .post, body: ByteBuffer(string: Self.gpx(points: 600)))
            #expect(more.status == .contentTooLarge)
            let refusal = try #require(try more.jsonObject()["error"] as? [String: Any])
            #expect((refusal["message"] as? String)?.contains("--max-user-points") == true, "\(more.text)")

            let list = try await client.get("/api/tracks").jsonObject()
            #expect((list["tracks"] as? [Any])?.count == 1)
        }
    }

    /// A live recording's batch past the track's cap is refused with 413 `limit_exceeded` and what to do (the web
    /// app shows the message); nothing of it is stored, and the ride so far is saved as it was.
    @Test func aRecordingBatchPastTheTrackCapIsRefusedAndTheRideKeepsWhatCameBefore() async throws {
        var server = try await TestServer()
        server.configuration.storageLimits = StorageLimits(maximumTrackPoints: 20, maximumUserPoints: nil)
        try await server.run { client in
            let recording = try await client.post("/api/recordings", json: "{}")
            let id = try #require(try recording.jsonObject()["id"] as? String)
            #expect(try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...15)).status == .ok)
            let over = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(16...30))
            #expect(over.status == .contentTooLarge, "\(over.text)")
            let error = try #require(try over.jsonObject()["error"] as? [String: Any])
            #expect(error["code"] as? String == "limit_exceeded")
            #expect((error["message"] as? String)?.contains("30 points in one track, more than the 20") == true, "\(over.text)")
            let stop = try await client.post("/api/recordings/\(id)/stop")
            let trackID = try #require(try stop.jsonObject()["trackId"] as? String)
            #expect(try await client.get("/api/tracks/\(trackID)").jsonObject()["pointCount"] as? Int == 15)
        }
    }
}
