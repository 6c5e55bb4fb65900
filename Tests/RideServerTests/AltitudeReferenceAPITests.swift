import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import TestSupport
import Testing

/// Issue 24: a browser on Android reports altitudes above the WGS-84 ellipsoid, so the web app flags such a batch
/// `"altitudeReference": "ellipsoid"` and the server stores heights above sea level (EGM96), checked against PROJ's
/// `cs2cs`. Batches flagged `seaLevel`, and those of clients that send no flag, are stored as they come.
@Suite struct AltitudeReferenceAPITests {
    /// Three fixes 5 m apart at a place, each 600 m above the reference, with an optional `altitudeReference`.
    static func batch(latitude: Double, longitude: Double, sequences: ClosedRange<Int>, reference: String?) -> String {
        let start = Coordinate(latitude: latitude, longitude: longitude)
        let fixes = sequences.map { index -> String in
            let position = start.destination(distanceMeters: Double(index - 1) * 5, bearingDegrees: 90)
            let time = GPXTime(secondsSince1970: 1_700_000_000 + Int64(index)).rfc3339
            return #"{"sequence":\#(index),"latitude":\#(position.latitude),"longitude":\#(position.longitude),"altitude":600,"accuracy":5,"time":"\#(time)"}"#
        }
        let flag = reference.map { #","altitudeReference":"\#($0)""# } ?? ""
        return #"{"fixes":[\#(fixes.joined(separator: ","))]\#(flag)}"#
    }

    // The geoid's lowest region (south of India, N ≈ −107 m), its highest (New Guinea, ≈ +85 m), and Munich (≈ +48 m).
    static let places: [(name: String, latitude: Double, longitude: Double)] = [
        ("south of India", 4.7, 78.8), ("New Guinea", -8.3, 147.3), ("Munich", 48.137, 11.575),
    ]

    @Test(.enabled(if: PROJGeoid.cs2cs != nil, "cs2cs is missing: apt-get install proj-bin proj-data (scripts/test.sh installs them)"), arguments: StoreKind.allCases)
    func ellipsoidalAltitudesAreStoredAboveSeaLevel(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                for place in Self.places {
                    let id = try await client.startRecording()
                    let response = try await client.post("/api/recordings/\(id)/fixes", json: Self.batch(latitude: place.latitude, longitude: place.longitude, sequences: 1...3, reference: "ellipsoid"))
                    #expect(response.status == .ok, "\(place.name): \(response.text)")
                    let stored = try #require(await server.storedRecording(id))
                    #expect(stored.fixes.count == 3)
                    let truth = try PROJGeoid.undulations(stored.fixes.map { ($0.fix.latitude, $0.fix.longitude) })
                    for (accepted, undulation) in zip(stored.fixes, truth) {
                        let altitude = try #require(accepted.fix.altitudeMeters)
                        // 5 cm: the geoid grid's rounding (EGM96GeoidTests).
                        #expect(abs(altitude - (600 - undulation)) <= 0.06, "\(place.name): stored \(altitude) m, PROJ says \(600 - undulation) m")
                    }
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func seaLevelAndUnflaggedBatchesAreStoredAsSent(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in
            try await server.run { client in
                let id = try await client.startRecording()
                let place = Self.places[0]
                #expect(try await client.post("/api/recordings/\(id)/fixes", json: Self.batch(latitude: place.latitude, longitude: place.longitude, sequences: 1...3, reference: "seaLevel")).status == .ok)
                // An older web app sends no flag: its altitudes are taken as they are, as before.
                #expect(try await client.post("/api/recordings/\(id)/fixes", json: Self.batch(latitude: place.latitude, longitude: place.longitude, sequences: 4...6, reference: nil)).status == .ok)
                // An unknown reference refuses the whole batch, naming the choices.
                let refused = try await client.post("/api/recordings/\(id)/fixes", json: Self.batch(latitude: place.latitude, longitude: place.longitude, sequences: 7...9, reference: "geoid"))
                #expect(refused.status == .badRequest)
                #expect(refused.text.contains("seaLevel, ellipsoid"))
                let stored = try #require(await server.storedRecording(id))
                #expect(stored.fixes.map(\.fix.sequence) == Array(1...6))
                #expect(stored.fixes.allSatisfy { $0.fix.altitudeMeters == 600 })
            }
        }
    }
}
