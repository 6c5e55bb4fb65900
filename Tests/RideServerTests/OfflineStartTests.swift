import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// `PUT /api/recordings/{clientId}`: a phone starts a ride with no network under its own id (a UUID), queues
/// the start, the fixes and the commands, and sends them in order later; the server takes each once.
@Suite struct OfflineStartTests {
    static let clientID = "3f2b6c1e-8d4a-4f3e-9c2a-1b2c3d4e5f60"

    /// A phone in Paris presses Start at 02:03 local time (01:03 UTC): the ride is named in the rider's time.
    @Test func theAutomaticNameIsInTheRidersLocalTime() async throws {
        let database = try TemporaryStore()
        let (server, _) = try await database.server()
        try await server.run { client in
            let body = #"{"startedAt":"2024-11-27T02:03:00.250+01:00"}"#
            let recording = try await client.put("/api/recordings/\(Self.clientID)", json: body).jsonObject()
            #expect(recording["name"] as? String == "Ride 2024-11-27 02:03")
            let other = try await client.put("/api/recordings/6f2b6c1e-8d4a-4f3e-9c2a-1b2c3d4e5f60", json: #"{"startedAt":"2024-11-27T01:03:00Z"}"#)
            #expect(try other.jsonObject()["name"] as? String == "Ride 2024-11-27 01:03")
        }
    }

    @Test func aStartSentTwiceMakesOneRecording() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        try await server.run { client in
            let body = #"{"units":"imperial","breadcrumbs":false,"startedAt":"2024-05-04T07:30:00Z"}"#
            let first = try await client.put("/api/recordings/\(Self.clientID)", json: body)
            #expect(first.status == .created)
            let recording = try first.jsonObject()
            let id = try #require(recording["id"] as? String)
            #expect(recording["clientId"] as? String == Self.clientID)
            #expect(recording["name"] as? String == "Ride 2024-05-04 07:30")
            // The recording starts when the rider pressed Start, not when the request arrived.
            #expect(recording["startedAt"] as? String == "2024-05-04T07:30:00Z")
            #expect(first.headers[.location] == "/api/recordings/\(id)")
            let options = try #require(recording["options"] as? [String: Any])
            #expect(options["units"] as? String == "imperial" && options["breadcrumbs"] as? Bool == false)

            // The answer to the first got lost: sent again, the same recording, nothing new.
            let second = try await client.put("/api/recordings/\(Self.clientID)", json: body)
            #expect(second.status == .ok)
            #expect(try second.jsonObject()["id"] as? String == id)
            // In capitals, it is the same UUID.
            let upper = try await client.put("/api/recordings/\(Self.clientID.uppercased())", json: body)
            #expect(try upper.jsonObject()["id"] as? String == id)
        }
        #expect(try await library.store.activeRecordings(userID: library.userID).count == 1)
    }

    /// Demo mode: a simulated ride is saved with source "simulation" and left out of the totals; a real one counts.
    @Test func aSimulatedRideIsSavedAsOneAndLeftOutOfTheTotals() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        let sources = try await server.run { client in
            var sources: [String] = []
            for (clientID, body) in [(Self.clientID, #"{"simulated":true}"#), ("7f2b6c1e-8d4a-4f3e-9c2a-1b2c3d4e5f60", "{}")] {
                let path = "/api/recordings/\(clientID)"
                #expect(try await client.put(path, json: body).status == .created)
                #expect(try await client.post("\(path)/fixes", json: fixesJSON(1...30)).status == .ok)
                let trackID = try #require(try await client.post("\(path)/stop").jsonObject()["trackId"] as? String)
                sources.append(try #require(try await client.get("/api/tracks/\(trackID)").jsonObject()["source"] as? String))
            }
            return sources
        }
        #expect(sources == ["simulation", "recording"])
        let totals = try await library.store.trackTotals(since: [Date(timeIntervalSince1970: 0)], userID: library.userID)
        #expect(totals.map(\.trackCount) == [1])
    }

    @Test func theClientIDNamesTheRecordingInEveryRequest() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        let trackID = try await server.run { client in
            let path = "/api/recordings/\(Self.clientID)"
            #expect(try await client.put(path, json: "{}").status == .created)
            let batch = try await client.post("\(path)/fixes", json: fixesJSON(1...10))
            #expect(batch.status == .ok)
            let answer = try batch.jsonObject()
            #expect(answer["stored"] as? Int == 10)
            let state = try #require(answer["recording"] as? [String: Any])
            #expect(state["clientId"] as? String == Self.clientID && state["lastSequence"] as? Int == 10)
            // Replayed whole (the phone never saw the answers), then in order.
            _ = try await client.put(path, json: "{}")
            #expect(try await client.post("\(path)/fixes", json: fixesJSON(1...10)).jsonObject()["duplicates"] as? Int == 10)
            #expect(try await client.post("\(path)/pause").status == .ok)
            #expect(try await client.post("\(path)/fixes", json: fixesJSON(11...12)).jsonObject()["skipped"] as? Int == 2)
            #expect(try await client.post("\(path)/resume").status == .ok)
            #expect(try await client.post("\(path)/fixes", json: fixesJSON(13...20)).jsonObject()["stored"] as? Int == 8)
            let got = try await client.get(path).jsonObject()
            #expect(got["lastSequence"] as? Int == 20 && got["clientId"] as? String == Self.clientID)
            let stopped = try await client.post("\(path)/stop")
            #expect(stopped.status == .ok)
            // Stop sent again, and a start sent again after Stop: the same saved ride.
            let trackID = try #require(try stopped.jsonObject()["trackId"] as? String)
            #expect(try await client.post("\(path)/stop").jsonObject()["trackId"] as? String == trackID)
            let late = try await client.put(path, json: "{}")
            #expect(late.status == .ok)
            #expect(try late.jsonObject()["trackId"] as? String == trackID)
            return trackID
        }
        let storedID = try #require(TrackID(trackID))
        let track = try #require(try await library.store.track(id: storedID, userID: library.userID))
        #expect(track.content.trackPointCount == 18)
        #expect(track.content.tracks.first?.segments.count == 2)
    }

    @Test func afterARestartTheClientIDStillFindsTheRecording() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            #expect(try await client.put("/api/recordings/\(Self.clientID)", json: "{}").status == .created)
            _ = try await client.post("/api/recordings/\(Self.clientID)/fixes", json: fixesJSON(1...5))
        }
        try await database.server().server.run { client in
            let next = try await client.post("/api/recordings/\(Self.clientID)/fixes", json: fixesJSON(3...9)).jsonObject()
            #expect(next["stored"] as? Int == 4 && next["duplicates"] as? Int == 3)
            #expect(try await client.put("/api/recordings/\(Self.clientID)", json: "{}").status == .ok)
        }
    }

    @Test(arguments: ["not-a-uuid", "ZZZZZZZZ", "3f2b6c1e-8d4a-4f3e-9c2a-1b2c3d4e5f6", "3f2b6c1e8d4a4f3e9c2a1b2c3d4e5f60aa", String(repeating: "x", count: 36)])
    func aClientIDThatIsNoUUIDIs400(_ given: String) async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        try await server.run { client in
            let response = try await client.put("/api/recordings/\(given)", json: "{}")
            #expect(response.status == .badRequest)
            #expect(try response.errorCode() == "invalid_value")
        }
        #expect(try await library.store.activeRecordings(userID: library.userID).isEmpty)
    }

    @Test func aBadStartBodyIs400AndMakesNothing() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        try await server.run { client in
            for body in [#"{"units":"furlongs"}"#, #"{"startedAt":"yesterday"}"#, #"{"startedAt":"2024-02-30T00:00:00Z"}"#, #"{"breadcrumbs":"yes"}"#, "[1,2"] {
                let response = try await client.put("/api/recordings/\(Self.clientID)", json: body)
                #expect(response.status == .badRequest, "\(body)")
            }
            // Unknown client ids are 404 like unknown recordings.
            let unknown = try await client.post("/api/recordings/\(Self.clientID)/fixes", json: fixesJSON(1...2))
            #expect(unknown.status == .notFound)
        }
        #expect(try await library.store.activeRecordings(userID: library.userID).isEmpty)
    }

    @Test func aStartFromAClockThatRunsAheadIsTakenAsNow() async throws {
        // A phone whose clock is a few days fast must not lose its ride: the start counts as the server's now.
        let database = try TemporaryStore()
        let (server, _) = try await database.server()
        let before = Date()
        try await server.run { client in
            let response = try await client.put("/api/recordings/\(Self.clientID)", json: #"{"startedAt":"2999-01-01T00:00:00Z"}"#)
            #expect(response.status == .created)
            let name = try #require(try response.jsonObject()["name"] as? String)
            #expect(!name.contains("2999"))
            let year = Calendar(identifier: .gregorian).component(.year, from: before)
            #expect(name.contains(String(year)))
        }
    }

    /// A start sent twice under one client id makes one recording, which takes fixes under that id.
    @Test func aRepeatedStartIsTheSameRecording() async throws {
        try await TestServer().run { client in
            let first = try await client.put("/api/recordings/\(Self.clientID)", json: "{}")
            let second = try await client.put("/api/recordings/\(Self.clientID)", json: "{}")
            #expect(first.status == .created && second.status == .ok)
            #expect(try first.jsonObject()["id"] as? String == second.jsonObject()["id"] as? String)
            #expect(try await client.post("/api/recordings/\(Self.clientID)/fixes", json: fixesJSON(1...3)).jsonObject()["stored"] as? Int == 3)
        }
    }
}

/// What a recording keeps across a restart of the server, on the same SQLite file.
@Suite struct RecordingRestartTests {
    @Test func optionsSurviveARestart() async throws {
        let database = try TemporaryStore()
        let id = try await database.server().server.run { client in
            let id = try await client.startRecording(#"{"activity":"run","units":"imperial","breadcrumbs":false}"#)
            // 20 fixes 5 m apart: 95 m, past the 50 m breadcrumb spacing.
            let batch = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...20)).jsonObject()
            #expect((batch["breadcrumbs"] as? [Any])?.isEmpty == true)
            return id
        }
        try await database.server().server.run { client in
            let recording = try await client.get("/api/recordings/\(id)").jsonObject()
            let options = try #require(recording["options"] as? [String: Any])
            #expect(options["activity"] as? String == "run")
            #expect(options["units"] as? String == "imperial")
            #expect(options["breadcrumbs"] as? Bool == false)
            // Still no breadcrumbs after the restart, however far the ride goes.
            let batch = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(21...60)).jsonObject()
            #expect((batch["breadcrumbs"] as? [Any])?.isEmpty == true)
            #expect((recording["breadcrumbs"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func imperialBreadcrumbsStayImperialAfterARestart() async throws {
        let database = try TemporaryStore()
        let id = try await database.server().server.run { client in
            let id = try await client.startRecording(#"{"units":"imperial"}"#)
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...5))
            return id
        }
        try await database.server().server.run { client in
            // The next pins, dropped by the rebuilt recorder, say feet or miles, not metres.
            let batch = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(6...40)).jsonObject()
            let pins = try #require(batch["breadcrumbs"] as? [[String: Any]])
            #expect(!pins.isEmpty)
            for pin in pins {
                let subtitle = try #require(pin["subtitle"] as? String)
                #expect(subtitle.contains("ft") || subtitle.contains("mi"), "\(subtitle)")
            }
        }
    }

    @Test func fixesSentWhilePausedAreNotTakenAgainAfterARestart() async throws {
        let database = try TemporaryStore()
        let (first, library) = try await database.server()
        let id = try await first.run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10))
            _ = try await client.post("/api/recordings/\(id)/pause")
            let paused = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...15)).jsonObject()
            #expect(paused["skipped"] as? Int == 5)
            #expect((paused["recording"] as? [String: Any])?["lastSequence"] as? Int == 15)
            return id
        }
        let recordingID = try #require(RecordingID(id))
        #expect(try await library.store.recording(id: recordingID, userID: library.userID)?.lastClientSequence == 15)
        try await database.server().server.run { client in
            #expect(try await client.get("/api/recordings/\(id)").jsonObject()["lastSequence"] as? Int == 15)
            _ = try await client.post("/api/recordings/\(id)/resume")
            // The phone missed the answer to the paused batch and sends it again after Resume: it is a replay,
            // not five new points at the place where the rider paused.
            let again = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...15)).jsonObject()
            #expect(again["stored"] as? Int == 0 && again["duplicates"] as? Int == 5)
            let next = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(16...20)).jsonObject()
            #expect(next["stored"] as? Int == 5)
        }
        #expect(try await library.store.recording(id: recordingID, userID: library.userID)?.pointCount == 15)
    }
}
