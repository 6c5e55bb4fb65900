import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import Testing

@Suite struct RecordingsAPITests {
    @Test func startAnswersTheNewRecording() async throws {
        try await TestServer().run { client in
            let response = try await client.post("/api/recordings", json: #"{"name":"Morning loop","activity":"run","units":"imperial"}"#)
            #expect(response.status == .created)
            let object = try response.jsonObject()
            let id = try #require(object["id"] as? String)
            #expect(response.headers[.location] == "/api/recordings/\(id)")
            #expect(object["name"] as? String == "Morning loop")
            #expect(object["state"] as? String == "recording")
            let options = try #require(object["options"] as? [String: Any])
            #expect(options["activity"] as? String == "run" && options["units"] as? String == "imperial")
            #expect(options["cameraRadiusMeters"] as? Double == 300 && options["breadcrumbSpacingMeters"] as? Double == 50)
        }
    }

    @Test func startWithoutABodyUsesTheDefaults() async throws {
        try await TestServer().run { client in
            let object = try await client.post("/api/recordings").jsonObject()
            #expect((object["name"] as? String)?.hasPrefix("Ride ") == true)
            #expect((object["options"] as? [String: Any])?["activity"] as? String == "ride")
        }
    }

    @Test func aBatchAnswersStatsCameraBreadcrumbsAndPath() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            let response = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...41, stepMeters: 7))
            #expect(response.status == .ok)
            let object = try response.jsonObject()
            #expect(object["stored"] as? Int == 41 && object["duplicates"] as? Int == 0)
            #expect((object["recording"] as? [String: Any])?["lastSequence"] as? Int == 41)
            let stats = try #require(object["stats"] as? [String: Any])
            #expect(abs((stats["distanceMeters"] as? Double ?? 0) - 280) < 1)
            #expect(stats["elapsedSeconds"] as? Double == 40)
            let camera = try #require(object["camera"] as? [String: Any])
            #expect(camera["radiusMeters"] as? Double == 300)
            let center = try #require(camera["center"] as? [Double])
            let last = Coordinate(latitude: 37.3230, longitude: -122.0322).destination(distanceMeters: 280, bearingDegrees: 90)
            #expect(abs(center[0] - last.latitude) < 1e-9 && abs(center[1] - last.longitude) < 1e-9)
            let crumbs = try #require(object["breadcrumbs"] as? [[String: Any]])
            #expect(crumbs.count == 6)  // 0, 56, 112, 168, 224, 280 m
            #expect(crumbs[0]["title"] as? String == "(-122.03220, 37.32300)")
            #expect(crumbs[1]["subtitle"] as? String == "56 m")
            let path = try #require(object["path"] as? [[String: Any]])
            #expect(path.count == 1 && (path[0]["points"] as? [[Double]])?.count == 41)
            #expect(path[0]["from"] is NSNull || path[0]["from"] == nil)
        }
    }

    @Test func theNextBatchExtendsThePathFromThePreviousLastPoint() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10))
            let object = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...20)).jsonObject()
            let path = try #require((object["path"] as? [[String: Any]])?.first)
            let from = try #require(path["from"] as? [Double])
            let tenth = Coordinate(latitude: 37.3230, longitude: -122.0322).destination(distanceMeters: 45, bearingDegrees: 90)
            #expect(abs(from[0] - tenth.latitude) < 1e-9 && abs(from[1] - tenth.longitude) < 1e-9)
        }
    }

    @Test func aDuplicateBatchIsStoredOnce() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let id = try await client.startRecording()
            let first = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...20)).jsonObject()
            let again = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...20))
            #expect(again.status == .ok)
            let object = try again.jsonObject()
            #expect(object["stored"] as? Int == 0 && object["duplicates"] as? Int == 20)
            #expect((object["path"] as? [Any])?.isEmpty == true && (object["breadcrumbs"] as? [Any])?.isEmpty == true)
            #expect((object["stats"] as? [String: Any])?["pointCount"] as? Int == (first["stats"] as? [String: Any])?["pointCount"] as? Int)
            let stored = try #require(await server.storedRecording(id))
            #expect(stored.fixes.map(\.fix.sequence) == Array(1...20))
        }
    }

    @Test func anOutOfOrderBatchStoresNothingTwice() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10))
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...20))
            let late = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(5...12)).jsonObject()
            #expect(late["stored"] as? Int == 0 && late["duplicates"] as? Int == 8)
            let stored = try #require(await server.storedRecording(id))
            #expect(stored.fixes.map(\.fix.sequence) == Array(1...20))
            #expect(server.metrics.value(.fixesStored) == 20 && server.metrics.value(.fixesDuplicate) == 8)
        }
    }

    @Test func pauseResumeStop() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10))
            let paused = try await client.post("/api/recordings/\(id)/pause")
            #expect(try paused.status == .ok && paused.jsonObject()["state"] as? String == "paused")
            // Fixes while paused are acknowledged, not stored.
            let whilePaused = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...15)).jsonObject()
            #expect(whilePaused["stored"] as? Int == 0 && whilePaused["skipped"] as? Int == 5)
            #expect(try await client.post("/api/recordings/\(id)/pause").status == .ok)  // repeated: no change
            #expect(try await client.post("/api/recordings/\(id)/resume").jsonObject()["state"] as? String == "recording")
            let resumed = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(16...25)).jsonObject()
            #expect((resumed["path"] as? [[String: Any]])?.first?["segment"] as? Int == 1)
            let stopped = try await client.post("/api/recordings/\(id)/stop")
            #expect(stopped.status == .ok)
            let object = try stopped.jsonObject()
            #expect(object["state"] as? String == "stopped")
            let trackID = try #require(object["trackId"] as? String)
            #expect((object["stats"] as? [String: Any])?["segmentCount"] as? Int == 2)
            #expect((object["path"] as? [Any])?.count == 2)
            let profile = try #require(object["profile"] as? [String: Any])
            let distances = try #require(profile["distanceMeters"] as? [Double])
            #expect(!distances.isEmpty && distances == distances.sorted())
            #expect((profile["speedMetersPerSecond"] as? [Any])?.count == distances.count)
            // Stop again: the same track.
            #expect(try await client.post("/api/recordings/\(id)/stop").jsonObject()["trackId"] as? String == trackID)
            // No fixes after Stop, but a replay of stored ones is still answered.
            let after = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(26...27))
            #expect(try after.status == .conflict && after.errorCode() == "invalid_state")
            #expect(try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(20...25)).status == .ok)
            #expect(try await client.post("/api/recordings/\(id)/resume").status == .conflict)
        }
    }

    @Test func getReturnsTheWholePathForAReload() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...30))
            let response = try await client.get("/api/recordings/\(id)")
            #expect(response.status == .ok)
            let object = try response.jsonObject()
            #expect(object["lastSequence"] as? Int == 30)
            #expect(((object["path"] as? [[String: Any]])?.first?["points"] as? [Any])?.count == 30)
            #expect((object["breadcrumbs"] as? [Any])?.count == 3)  // 0, 55, 110 m of 145 m
        }
    }

    @Test func aRecorderIsRebuiltFromTheStoreAfterARestart() async throws {
        let database = try TemporaryStore()
        let server = try await database.server().server
        let recordingID = try await server.run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...10))
            _ = try await client.post("/api/recordings/\(id)/pause")
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(11...12))
            _ = try await client.post("/api/recordings/\(id)/resume")
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(13...20))
            return id
        }
        // A new application (a restarted server) on the same database, opened again.
        try await database.server().server.run { client in
            let object = try await client.get("/api/recordings/\(recordingID)").jsonObject()
            #expect(object["lastSequence"] as? Int == 20)
            #expect((object["path"] as? [Any])?.count == 2)
            let again = try await client.post("/api/recordings/\(recordingID)/fixes", json: fixesJSON(15...22)).jsonObject()
            #expect(again["stored"] as? Int == 2 && again["duplicates"] as? Int == 6)
        }
    }
}

@Suite struct RecordingsAPIErrorTests {
    @Test(arguments: [
        ("{\"fixes\": [", "bad_json"),
        ("not json at all", "bad_json"),
        ("{\"fixes\": \"many\"}", "wrong_type"),
        ("{\"fixes\": [{\"sequence\": \"one\", \"latitude\": 1, \"longitude\": 2}]}", "wrong_type"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": \"37.3\", \"longitude\": 2}]}", "wrong_type"),
        ("{\"fixes\": [{\"sequence\": 1, \"longitude\": 2}]}", "missing_field"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": null, \"longitude\": 2}]}", "wrong_type"),
        ("{}", "missing_field"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": 91, \"longitude\": 2}]}", "invalid_fix"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": 1, \"longitude\": -181}]}", "invalid_fix"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": 1e400, \"longitude\": 2}]}", "bad_json"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": 1, \"longitude\": 2, \"accuracy\": -4}]}", "invalid_fix"),
        ("{\"fixes\": [{\"sequence\": 1, \"latitude\": 1, \"longitude\": 2, \"time\": \"2024-02-30T10:00:00Z\"}]}", "invalid_fix"),
        ("{\"fixes\": [{\"sequence\": -5, \"latitude\": 1, \"longitude\": 2}]}", "invalid_fix"),
    ])
    func aBadBatchIsRefusedWithAJSONErrorAndChangesNothing(body: String, code: String) async throws {
        let server = try await TestServer()
        try await server.run { client in
            let id = try await client.startRecording()
            _ = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...3))
            let response = try await client.post("/api/recordings/\(id)/fixes", json: body)
            #expect(response.status == .badRequest, "\(response.text)")
            #expect(try response.errorCode() == code, "\(response.text)")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            let message = try #require((try response.jsonObject()["error"] as? [String: Any])?["message"] as? String)
            #expect(!message.isEmpty)
            let stored = try #require(await server.storedRecording(id))
            #expect(stored.fixes.count == 3 && stored.lastSequence == 3)
        }
    }

    @Test func aBatchWithOneBadFixAmongGoodOnesStoresNone() async throws {
        let server = try await TestServer()
        try await server.run { client in
            let id = try await client.startRecording()
            let body = fixesJSON(1...5).replacingOccurrences(of: "]}", with: #",{"sequence":6,"latitude":100,"longitude":0}]}"#)
            #expect(try await client.post("/api/recordings/\(id)/fixes", json: body).status == .badRequest)
            let stored = try #require(await server.storedRecording(id))
            #expect(stored.fixes.isEmpty && stored.lastSequence == nil)
        }
    }

    @Test func deeplyNestedJSONIsRefusedNotACrash() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            let response = try await client.post("/api/recordings/\(id)/fixes", json: #"{"fixes":"# + String(repeating: "[", count: 200_000))
            #expect(try response.status == .badRequest && response.errorCode() == "bad_json")
            #expect(try await client.get("/health").status == .ok)
        }
    }

    @Test func anOversizeBodyIsRefused() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            let huge = #"{"fixes":[],"padding":""# + String(repeating: "x", count: (1 << 20) + 10) + "\"}"
            let response = try await client.post("/api/recordings/\(id)/fixes", json: huge)
            #expect(response.status == .contentTooLarge)
            #expect(try response.errorCode() == "body_too_large")
        }
    }

    @Test func tooManyFixesInOneBatchAreRefused() async throws {
        try await TestServer().run { client in
            let id = try await client.startRecording()
            let response = try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...(Recorder.maximumBatchSize + 1)))
            #expect(response.status == .contentTooLarge)
            #expect(try response.errorCode() == "batch_too_large")
        }
    }

    @Test func unknownRecordingsAreNotFound() async throws {
        try await TestServer().run { client in
            for response in [
                try await client.get("/api/recordings/nope"),
                try await client.post("/api/recordings/nope/fixes", json: fixesJSON(1...2)),
                try await client.post("/api/recordings/nope/pause"),
                try await client.post("/api/recordings/nope/stop"),
            ] {
                #expect(response.status == .notFound)
                #expect(try response.errorCode() == "not_found")
            }
        }
    }

    @Test func aBadStartRequestIsRefused() async throws {
        try await TestServer().run { client in
            let wrongKind = try await client.post("/api/recordings", json: #"{"activity":"swim"}"#)
            #expect(try wrongKind.status == .badRequest && wrongKind.errorCode() == "invalid_value")
            let wrongType = try await client.post("/api/recordings", json: #"{"breadcrumbs":"yes"}"#)
            #expect(try wrongType.status == .badRequest && wrongType.errorCode() == "wrong_type")
            let long = try await client.post("/api/recordings", json: #"{"name":""# + String(repeating: "a", count: 201) + "\"}")
            #expect(long.status == .badRequest)
        }
    }
}
