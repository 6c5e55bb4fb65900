import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing
import TestSupport

/// `DELETE /api/places/{id}` hides a place; `POST /api/places/{id}/restore` brings it back (issue 10).
@Suite struct PlaceRestoreAPITests {
    private static let here = Coordinate(latitude: 46.5197, longitude: 6.6323)

    @Test func aDeletedPlaceIsOutOfEveryReadUntilRestoredWithItsNotes() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client async throws in
            let id = try #require(try await client.createPlace("Bench", at: Self.here)["id"] as? String)
            _ = try await client.createPlace("Fountain", at: Self.here.destination(distanceMeters: 100, bearingDegrees: 0))
            #expect(try await client.post("/api/places/\(id)/notes", json: #"{"body":"shady"}"#).status == .created)
            let share = try await client.post("/api/places/\(id)/share").jsonObject()
            let page = try #require(share["url"] as? String)
            #expect(try await client.get(page).status == .ok)

            #expect(try await client.delete("/api/places/\(id)").status == .noContent)
            #expect(try await client.get("/api/places/\(id)").status == .notFound)
            #expect(try await client.placeNames("/api/places") == ["Fountain"])
            #expect(try await client.placeNames("/api/places?near=46.5197,6.6323") == ["Fountain"])
            #expect(try await client.placeNames("/api/places?q=shady").isEmpty)
            #expect(try await client.get(page).status == .notFound)
            #expect(try await client.post("/api/places/\(id)/notes", json: #"{"body":"x"}"#).status == .notFound)
            #expect(try await client.post("/api/places/\(id)/share").status == .notFound)
            let gpx = try await client.get("/api/places.gpx").text
            #expect(gpx.contains("Fountain") && !gpx.contains("Bench"))

            let restored = try await client.post("/api/places/\(id)/restore")
            #expect(restored.status == .ok, "\(restored.text)")
            let object = try restored.jsonObject()
            #expect(object["name"] as? String == "Bench")
            #expect((object["notes"] as? [[String: Any]])?.compactMap { $0["body"] as? String } == ["shady"])
            #expect(try await client.placeNames("/api/places?sort=name") == ["Bench", "Fountain"])
            #expect(try await client.get(page).status == .ok)  // the link was not revoked, only hidden
        }
    }

    @Test func restoringAPlaceNotDeletedIs409AndAnUnknownOne404() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client async throws in
            let id = try #require(try await client.createPlace("Kiosk", at: Self.here)["id"] as? String)
            let live = try await client.post("/api/places/\(id)/restore")
            #expect(live.status == .conflict)
            #expect(try live.errorCode() == "not_deleted")
            for unknown in ["ZZZZZZZZ", "not-an-id", "%3Cscript%3E"] {
                let response = try await client.post("/api/places/\(unknown)/restore")
                #expect(response.status == .notFound, "\(unknown)")
                #expect(try response.errorCode() == "not_found")
            }
            #expect(try await client.delete("/api/places/\(id)").status == .noContent)
            #expect(try await client.post("/api/places/\(id)/restore").status == .ok)
            #expect(try await client.post("/api/places/\(id)/restore").status == .conflict)
        }
    }

    /// After 30 days a deleted place is purged at the next delete (or start): restore is then 404, and its photo
    /// files are gone from the data directory.
    @Test func placesDeletedLongAgoArePurgedWithTheirPhotoFiles() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        let id = try await server.run { client async throws in
            let (place, note) = try await client.placeWithNote()
            let uri = "/api/places/\(place)/notes/\(note)/photos"
            #expect(try await client.postPhoto(uri, type: "image/jpeg", bytes: EXIFJPEG.make()).status == .created)
            #expect(try await client.delete("/api/places/\(place)").status == .noContent)
            return place
        }
        let photos = database.folder.appending(path: "Photos")
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path).count == 2)  // photo and thumbnail
        // Within the 30 days nothing is purged.
        #expect(try await library.purgeExpiredPlaces(now: Date().addingTimeInterval(29 * 86400)).isEmpty)
        #expect(try await library.purgeExpiredPlaces(now: Date().addingTimeInterval(31 * 86400)).map(\.rawValue) == [id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path).isEmpty)
        try await server.run { client async throws in
            #expect(try await client.post("/api/places/\(id)/restore").status == .notFound)
        }
    }
}
