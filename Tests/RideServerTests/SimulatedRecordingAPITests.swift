import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import Testing

/// Issue 24: a simulated ride stays marked. The recording's answers say `simulated` (the Record tab keeps its badge
/// after a reload from it), also from a server that rebuilt the recording from the store (a restart), on both stores.
@Suite struct SimulatedRecordingAPITests {
    @Test(arguments: StoreKind.allCases) func aSimulatedRecordingSaysSoAfterARestart(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, library in
            let (simulated, real) = try await server.run { client in
                let simulated = try await client.startRecording(#"{"simulated": true}"#)
                let real = try await client.startRecording()
                #expect(try await client.get("/api/recordings/\(simulated)").jsonObject()["simulated"] as? Bool == true)
                #expect(try await client.get("/api/recordings/\(real)").jsonObject()["simulated"] as? Bool == false)
                #expect(try await client.post("/api/recordings/\(simulated)/fixes", json: fixesJSON(1...5)).status == .ok)
                return (simulated, real)
            }
            // Another server on the same store knows the recordings only from what the store kept.
            try await TestServer(library: library).run { client in
                #expect(try await client.get("/api/recordings/\(simulated)").jsonObject()["simulated"] as? Bool == true)
                #expect(try await client.get("/api/recordings/\(real)").jsonObject()["simulated"] as? Bool == false)
                let stopped = try await client.post("/api/recordings/\(simulated)/stop").jsonObject()
                #expect(stopped["simulated"] as? Bool == true)
                let trackID = try #require(stopped["trackId"] as? String)
                #expect(try await client.get("/api/tracks/\(trackID)").jsonObject()["source"] as? String == "simulation")
            }
        }
    }
}
