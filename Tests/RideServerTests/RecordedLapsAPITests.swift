import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// Issue 24's Lap button: `POST /api/recordings/{id}/laps` marks a lap at a fix's time, idempotently (a retry adds
/// nothing); the saved track's page lists the laps with figures measured from the points. On both stores.
@Suite struct RecordedLapsAPITests {
    @Test(arguments: StoreKind.allCases) func lapsAreMarkedOnceAndListedOnTheTrackPage(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                let id = try await client.startRecording()
                // 61 fixes a second apart, 7 m east each: laps marked at fixes 21 and 41 cut three laps of 140 m, 20 s each.
                #expect(try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(1...61, stepMeters: 7)).status == .ok)
                func mark(_ index: Int) -> String { #"{"time":"\#(GPXTime(secondsSince1970: 1_700_000_000 + Int64(index)).rfc3339)"}"# }
                let first = try await client.post("/api/recordings/\(id)/laps", json: mark(21))
                #expect(first.status == .ok)
                #expect((try first.jsonObject()["laps"] as? [String])?.count == 1)
                // The outbox sending the same mark again (its answer was lost): kept once.
                #expect((try await client.post("/api/recordings/\(id)/laps", json: mark(21)).jsonObject()["laps"] as? [String])?.count == 1)
                let second = try await client.post("/api/recordings/\(id)/laps", json: mark(41)).jsonObject()
                #expect((second["laps"] as? [String]) == ["2023-11-14T22:13:41.000Z", "2023-11-14T22:14:01.000Z"])

                // Refused whole: bad time, bad body, unknown recording.
                #expect(try await client.post("/api/recordings/\(id)/laps", json: #"{"time":"yesterday"}"#).status == .badRequest)
                #expect(try await client.post("/api/recordings/\(id)/laps", json: #"{"time":"1970-01-01T00:00:00Z"}"#).status == .badRequest)
                #expect(try await client.post("/api/recordings/\(id)/laps", json: #"{"time":5}"#).status == .badRequest)
                #expect(try await client.post("/api/recordings/ZZZZZZZZ/laps", json: mark(21)).status == .notFound)

                // A ride started offline is named by the client's own id (the outbox's): its laps reach it too.
                let clientID = "0b7f3c2e-5a1d-4c8e-9f6a-2d4e8b1c3a57"
                #expect(try await client.put("/api/recordings/\(clientID)", json: "{}").status.code < 300)
                #expect(try await client.post("/api/recordings/\(clientID)/fixes", json: fixesJSON(1...30)).status == .ok)
                let offline = try await client.post("/api/recordings/\(clientID)/laps", json: mark(21))
                #expect(offline.status == .ok)
                #expect((try offline.jsonObject()["laps"] as? [String])?.count == 1)

                let trackID = try #require(try await client.post("/api/recordings/\(id)/stop").jsonObject()["trackId"] as? String)
                let track = try await client.get("/api/tracks/\(trackID)").jsonObject()
                #expect(track["lapSource"] as? String == "recorded")
                let laps = try #require(track["laps"] as? [[String: Any]])
                #expect(laps.count == 3)
                for lap in laps {
                    #expect(abs((lap["distanceMeters"] as? Double ?? 0) - 140) < 1)
                    #expect(lap["elapsedSeconds"] as? Double == 20)
                    #expect(abs((lap["averageSpeedMetersPerSecond"] as? Double ?? 0) - 7) < 0.1)
                }
                #expect(laps.first?["startTime"] as? String == "2023-11-14T22:13:21Z")
            }
        }
    }
}
