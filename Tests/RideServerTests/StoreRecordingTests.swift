import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

@Suite struct StoreRecordingTests {
    @Test func fixesSurviveARestart() async throws {
        let database = try TemporaryStore()
        let id = try await database.server().server.run { client in
            let id = try await client.startRecording(#"{"name":"Commute","activity":"ride"}"#)
            let object = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10)).jsonObject()
            #expect(object["stored"] as? Int == 10)
            return id
        }
        // A new application on the same database: the recording is rebuilt from the store.
        let (server, library) = try await database.server()
        try await server.run { client in
            let got = try await client.get("/api/recordings/\(id)")
            #expect(got.status == .ok)
            let recording = try got.jsonObject()
            #expect(recording["name"] as? String == "Commute")
            #expect(recording["lastSequence"] as? Int == 10)
            // The last batch again (the phone never saw the answer), then the next one.
            let again = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(5...10)).jsonObject()
            #expect(again["stored"] as? Int == 0 && again["duplicates"] as? Int == 6)
            let next = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...20)).jsonObject()
            #expect(next["stored"] as? Int == 10)
            let stats = try #require(next["stats"] as? [String: Any])
            #expect(abs((stats["distanceMeters"] as? Double ?? 0) - 95) < 1)
        }
        let recordingID = try #require(RecordingID(id))
        let recording = try #require(try await library.store.recording(id: recordingID, userID: library.userID))
        #expect(recording.pointCount == 20 && recording.lastClientSequence == 20)
    }

    @Test func aBatchSentTwiceIsStoredOnce() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        let id = try await server.run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...15))
            let again = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...15))
            #expect(again.status == .ok)
            #expect(try again.jsonObject()["stored"] as? Int == 0)
            return id
        }
        let recordingID = try #require(RecordingID(id))
        let recording = try #require(try await library.store.recording(id: recordingID, userID: library.userID))
        #expect(recording.pointCount == 15)
    }

    @Test func stopSavesTheTrackWithItsPoints() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        let trackID = try await server.run { client in
            let id = try await client.startRecording(#"{"name":"Evening"}"#)
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...12))
            #expect(try await client.post("/api/recordings/\(id)/pause").status == .ok)
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(13...14))  // paused: not stored
            #expect(try await client.post("/api/recordings/\(id)/resume").status == .ok)
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(15...20))
            let stopped = try await client.post("/api/recordings/\(id)/stop")
            #expect(stopped.status == .ok)
            let trackID = try #require(try stopped.jsonObject()["trackId"] as? String)
            // Stopping again answers the same track.
            #expect(try await client.post("/api/recordings/\(id)/stop").jsonObject()["trackId"] as? String == trackID)
            return trackID
        }
        let storedID = try #require(TrackID(trackID))
        let track = try #require(try await library.store.track(id: storedID, userID: library.userID))
        #expect(track.summary.name == "Evening")
        #expect(track.summary.state == .complete && track.summary.source == .recording)
        #expect(track.content.trackPointCount == 18 && track.summary.pointCount == 18)
        #expect(track.content.tracks.first?.segments.count == 2)
        #expect(abs(track.stats.distanceMeters - 80) < 1)  // 55 m + 25 m: the pause is no distance
    }

    @Test func healthSaysTheStore() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let health = try await client.get("/health").jsonObject()
            #expect(health["storage"] as? String == "store")
        }
    }

    @Test func unknownRecordingsAre404() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let get = try await client.get("/api/recordings/ZZZZZZZZ")
            let fixes = try await client.post("/api/recordings/not-an-id/fixes", json: fixesJSON(1...2))
            let stop = try await client.post("/api/recordings/ZZZZZZZZ/stop")
            #expect(get.status == .notFound && fixes.status == .notFound && stop.status == .notFound)
        }
    }
}
