import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import Testing

/// `GET /api/geocode` with no configuration (issue 24): the user's own places and tracks, then the offline towns.
/// Town positions are Wikipedia's (written by hand, checked within 0.1°), not read from the gazetteer.
@Suite struct GeocodeSearchAPITests {
    static func results(_ response: TestResponse) throws -> [[String: Any]] {
        try #require(try response.jsonObject()["results"] as? [[String: Any]], "\(response.text)")
    }

    static func near(_ result: [String: Any]?, _ latitude: Double, _ longitude: Double) -> Bool {
        guard let result, let lat = result["latitude"] as? Double, let lon = result["longitude"] as? Double else { return false }
        return abs(lat - latitude) < 0.1 && abs(lon - longitude) < 0.1
    }

    @Test func townsAreFoundWithoutAGeocoderAndNamedWithTheirCountryAndSource() async throws {
        try await TestServer().run { client async throws in
            let lausanne = try await client.get("/api/geocode?q=lausanne")
            #expect(lausanne.status == .ok, "\(lausanne.text)")
            let first = try #require(try Self.results(lausanne).first)
            #expect(first["kind"] as? String == "town")
            #expect(Self.near(first, 46.52, 6.63))
            #expect(first["address"] as? String == "Lausanne, Switzerland")
            #expect((try lausanne.jsonObject()["attribution"] as? String)?.contains("GeoNames") == true)
            // Accents folded: Zürich (47.37 N, 8.54 E), São Paulo (23.55 S, 46.63 W).
            #expect(Self.near(try Self.results(await client.get("/api/geocode?q=Zurich")).first, 47.37, 8.54))
            #expect(Self.near(try Self.results(await client.get("/api/geocode?q=sao%20paulo")).first, -23.55, -46.63))
            // Paris, France before Paris, Texas (33.66 N, 95.56 W); a box around Texas turns that round.
            #expect(Self.near(try Self.results(await client.get("/api/geocode?q=Paris")).first, 48.86, 2.35))
            let texas = try Self.results(await client.get("/api/geocode?q=Paris&bbox=-96.5,33,-94.5,34.5"))
            #expect(Self.near(texas.first, 33.66, -95.56))
            #expect(texas.first?["address"] as? String == "Paris, Texas, United States")
            let nothing = try await client.get("/api/geocode?q=qqqqzzzz")
            #expect(nothing.status == .ok)
            #expect(try Self.results(nothing).isEmpty)
            // The reverse lookup still needs a geocoder.
            let reverse = try await client.get("/api/geocode/reverse?lat=1&lon=1")
            #expect(reverse.status == .notImplemented)
            #expect(try reverse.errorCode() == "geocoder_off")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theUsersOwnPlacesAndTracksComeFirst(_ kind: StoreKind) async throws {
        try await withServer(kind) { server, _ in try await Self.ownPlacesAndTracksComeFirst(server) }
    }

    static func ownPlacesAndTracksComeFirst(_ server: TestServer) async throws {
        try await server.run { client async throws in
            try await client.createPlace("Lausanne office", at: Coordinate(latitude: 46.53, longitude: 6.61))
            let trackID = try await client.uploadTrack("Lausanne loop")
            let results = try Self.results(await client.get("/api/geocode?q=Lausanne"))
            try #require(results.count >= 3)
            #expect(results[0]["kind"] as? String == "place" && results[0]["name"] as? String == "Lausanne office")
            #expect(Self.near(results[0], 46.53, 6.61))
            #expect(results[1]["kind"] as? String == "track" && results[1]["id"] as? String == trackID)
            // zigzagGPX starts at 46.5 N, 6.6 E and runs 490 m east.
            #expect(Self.near(results[1], 46.5, 6.6) && (results[1]["bounds"] as? [Double])?.count == 4)
            #expect(results[2]["kind"] as? String == "town" && Self.near(results[2], 46.52, 6.63))
        }
    }

    /// Another user's places never show in a search.
    @Test func anotherUsersPlacesAreNotFound() async throws {
        let server = try await TestServer.withAccounts()
        try await server.run { client in
            let anna = try await Session.login(client, "anna")
            let bob = try await Session.login(client, "bob")
            #expect(try await anna.post("/api/places", json: #"{"name":"Lausanne secret","latitude":46.5,"longitude":6.6}"#).status == .created)
            let annas = try Self.results(await anna.get("/api/geocode?q=Lausanne"))
            #expect(annas.first?["name"] as? String == "Lausanne secret")
            let bobs = try Self.results(await bob.get("/api/geocode?q=Lausanne"))
            #expect(!bobs.isEmpty && bobs.allSatisfy { $0["kind"] as? String == "town" })
            #expect(try await client.get("/api/geocode?q=Lausanne").status == .unauthorized)
        }
    }

    @Test(arguments: [
        "q=", "q=%20%20", "q=\(String(repeating: "a", count: 201))", "q=a%01b", "q=Paris&bbox=", "q=Paris&bbox=1,2,3",
        "q=Paris&bbox=1,2,3,4,5", "q=Paris&bbox=a,b,c,d", "q=Paris&bbox=0,50,1,40", "q=Paris&bbox=-200,0,0,1",
        "q=Paris&bbox=0,-91,1,0", "q=Paris&bbox=nan,0,1,1", "q=Paris&bbox=0,0,1e400,1",
    ])
    func hostileQueriesAre400(_ query: String) async throws {
        try await TestServer().run { client async throws in
            let response = try await client.get("/api/geocode?\(query)")
            #expect(response.status == .badRequest, "\(query): \(response.text)")
            let code = try response.errorCode()
            #expect(code == "invalid_value" || code == "missing_field")
        }
    }

    @Test func aGeocoderIsAskedWithinTheVisibleRegionFirstAndTheTownsStillAnswerWhenItFails() async throws {
        let standIn = StandInGeocoder()
        try await standIn.serve { url async throws in
            try await TestServer.withGeocoder(url).run(live: true) { client async throws in
                // Found within the box: one request, bounded to it.
                let apple = try Self.results(await client.get("/api/geocode?q=Apple%20Park&bbox=-122.1,37.3,-121.9,37.4"))
                #expect(apple.first?["kind"] as? String == "address" && apple.first?["name"] as? String == "Apple Park")
                // Nothing within the box: asked again everywhere; the offline town follows the service's (none) answer.
                let lausanne = try Self.results(await client.get("/api/geocode?q=Lausanne&bbox=6.5,46.4,6.8,46.6"))
                #expect(lausanne.first?["kind"] as? String == "town" && Self.near(lausanne.first, 46.52, 6.63))
            }
        }
        let queries = standIn.seen.map(\.query)
        try #require(queries.count == 3)
        #expect(queries[0].contains("viewbox=-122.100,37.400,-121.900,37.300&bounded=1") && queries[0].contains("q=Apple%20Park"))
        #expect(queries[1].contains("viewbox=6.500,46.600,6.800,46.400&bounded=1") && queries[1].contains("q=Lausanne"))
        #expect(!queries[2].contains("viewbox") && queries[2].contains("q=Lausanne"))

        let failing = StandInGeocoder()
        try await failing.serve(.status(503)) { url async throws in
            try await TestServer.withGeocoder(url).run(live: true) { client async throws in
                let response = try await client.get("/api/geocode?q=Lausanne")
                #expect(response.status == .ok, "\(response.text)")
                #expect(Self.near(try Self.results(response).first, 46.52, 6.63))
                #expect((try response.jsonObject()["geocoderError"] as? String)?.hasPrefix("the geocoder failed") == true)
            }
        }
    }
}
