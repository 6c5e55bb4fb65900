import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

extension TestClientProtocol {
    /// Creates a place and returns its JSON.
    @discardableResult
    func createPlace(_ name: String, at position: Coordinate, extra: String = "") async throws -> [String: Any] {
        let response = try await post(
            "/api/places", json: #"{"name":"\#(name)","latitude":\#(position.latitude),"longitude":\#(position.longitude)\#(extra)}"#)
        #expect(response.status == .created, "\(response.text)")
        return try response.jsonObject()
    }

    /// Creates a label and returns its id.
    func createLabel(_ name: String, colour: String = "#3a7bd5") async throws -> String {
        let response = try await post("/api/labels", json: #"{"name":"\#(name)","colour":"\#(colour)"}"#)
        #expect(response.status == .created, "\(response.text)")
        return try #require(try response.jsonObject()["id"] as? String)
    }

    /// The names of `GET uri`'s places, in order.
    func placeNames(_ uri: String) async throws -> [String] {
        let response = try await get(uri)
        #expect(response.status == .ok, "\(response.text)")
        let places = try #require(try response.jsonObject()["places"] as? [[String: Any]])
        return places.compactMap { $0["name"] as? String }
    }
}

/// Lausanne, the origin of the distance tests.
private let origin = Coordinate(latitude: 46.5197, longitude: 6.6323)

@Suite struct PlacesAPITests {
    @Test func createdPlaceIsListedAndReadWithItsLabelsAndNotes() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let label = try await client.createLabel("Shops")
            let created = try await client.createPlace("Bakery", at: origin, extra: #","address":"Rue 1","labels":["\#(label)"]"#)
            let id = try #require(created["id"] as? String)
            #expect(created["address"] as? String == "Rue 1")
            #expect((created["labels"] as? [[String: Any]])?.first?["id"] as? String == label)
            #expect((created["labels"] as? [[String: Any]])?.first?["colour"] as? String == "#3A7BD5")
            #expect(created["createdAt"] is String && created["updatedAt"] is String)

            let detail = try await client.get("/api/places/\(id)")
            #expect(detail.status == .ok)
            let object = try detail.jsonObject()
            #expect(object["name"] as? String == "Bakery")
            #expect(object["latitude"] as? Double == origin.latitude && object["longitude"] as? Double == origin.longitude)
            #expect((object["notes"] as? [Any])?.isEmpty == true)
            #expect(try await client.placeNames("/api/places") == ["Bakery"])
            #expect(try await client.get("/api/places/ZZZZZZZZ").status == .notFound)
            #expect(try await client.get("/api/places/not-an-id!").status == .notFound)
        }
    }

    /// Places north and south of the origin at distances known by construction (Vincenty's direct problem),
    /// listed nearest first with those distances.
    @Test func sortsByGeodesicDistanceFromNear() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let placed: [(name: String, meters: Double, bearing: Double)] = [
                ("A", 20_000, 0), ("B", 300, 180), ("C", 80_000, 180), ("D", 1_200, 0), ("E", 5_000, 180),
            ]
            for entry in placed {
                try await client.createPlace(entry.name, at: origin.destination(distanceMeters: entry.meters, bearingDegrees: entry.bearing))
            }
            let response = try await client.get("/api/places?sort=distance&near=\(origin.latitude),\(origin.longitude)")
            #expect(response.status == .ok)
            let places = try #require(try response.jsonObject()["places"] as? [[String: Any]])
            let expected = placed.sorted { $0.meters < $1.meters }
            #expect(places.compactMap { $0["name"] as? String } == expected.map(\.name))
            for (place, entry) in zip(places, expected) {
                let meters = try #require(place["distanceMeters"] as? Double)
                #expect(abs(meters - entry.meters) <= entry.meters * 1e-5, "\(entry.name): \(meters) m, placed at \(entry.meters) m")
            }

            // Pages of two follow one another through the cursor.
            var names: [String] = []
            var uri = "/api/places?near=\(origin.latitude),\(origin.longitude)&limit=2"
            for _ in 0..<5 {
                let page = try await client.get(uri).jsonObject()
                names += (page["places"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
                guard let cursor = page["nextCursor"] as? String else { break }
                uri = "/api/places?near=\(origin.latitude),\(origin.longitude)&limit=2&cursor=\(cursor)"
            }
            #expect(names == expected.map(\.name))
            // Without near there is no distance.
            let plain = try await client.get("/api/places?sort=name").jsonObject()["places"] as? [[String: Any]]
            #expect(plain?.allSatisfy { $0["distanceMeters"] == nil } == true)
        }
    }

    @Test func sortsByNameAndCreationFiltersByLabelAndSearches() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let shops = try await client.createLabel("Shops")
            let created = [
                try await client.createPlace("cobbler", at: origin, extra: #","labels":["\#(shops)"]"#),
                try await client.createPlace("Apothecary", at: origin, extra: #","address":"Place de la Gare""#),
                try await client.createPlace("Bank", at: origin, extra: #","labels":["\#(shops)"]"#),
            ]
            #expect(try await client.placeNames("/api/places?sort=name") == ["Apothecary", "Bank", "cobbler"])
            // Newest first; two made in the same millisecond come in id order.
            let newestFirst = try created.map { (try GPXTime(parsing: $0["createdAt"] as? String ?? "").date, $0["id"] as? String ?? "", $0["name"] as? String ?? "") }
                .sorted { ($1.0, $0.1) < ($0.0, $1.1) }.map { $0.2 }
            #expect(try await client.placeNames("/api/places?sort=created") == newestFirst)
            #expect(try await client.placeNames("/api/places") == newestFirst)
            #expect(try await client.placeNames("/api/places?sort=name&label=\(shops)") == ["Bank", "cobbler"])
            #expect(try await client.placeNames("/api/places?q=gare") == ["Apothecary"])
            #expect(try await client.placeNames("/api/places?q=Ban") == ["Bank"])
            for bad in ["sort=distance", "sort=height", "near=91,0", "near=abc", "near=1", "limit=0", "limit=x", "cursor=-1", "label=!"] {
                let response = try await client.get("/api/places?\(bad)")
                #expect(response.status == .badRequest, "\(bad)")
                #expect(try response.errorCode() == "invalid_value", "\(bad)")
            }
        }
    }

    /// Out-of-range, non-finite and mistyped values, unknown labels: a clear 4xx, and nothing stored.
    @Test func refusesBadPlacesAndStoresNothing() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let cases: [(body: String, status: HTTPResponse.Status, code: String)] = [
                (#"{"name":"X","latitude":91,"longitude":0}"#, .badRequest, "invalid_value"),
                (#"{"name":"X","latitude":0,"longitude":-180.5}"#, .badRequest, "invalid_value"),
                (#"{"name":"X","latitude":NaN,"longitude":0}"#, .badRequest, "bad_json"),
                (#"{"name":"X","latitude":1e400,"longitude":0}"#, .badRequest, "bad_json"),
                (#"{"name":"X","latitude":"46.5","longitude":0}"#, .badRequest, "wrong_type"),
                (#"{"name":42,"latitude":0,"longitude":0}"#, .badRequest, "wrong_type"),
                (#"{"latitude":0,"longitude":0}"#, .badRequest, "missing_field"),
                (#"{"name":"   ","latitude":0,"longitude":0}"#, .badRequest, "invalid_value"),
                (#"{"name":"X","latitude":0,"longitude":0,"labels":"a"}"#, .badRequest, "wrong_type"),
                (#"{"name":"X","latitude":0,"longitude":0,"labels":["AAAAAAAA"]}"#, .unprocessableContent, "unknown_label"),
                (#"[1]"#, .badRequest, "wrong_type"),
                ("", .badRequest, "bad_json"),
            ]
            for entry in cases {
                let response = try await client.post("/api/places", json: entry.body)
                #expect(response.status == entry.status, "\(entry.body): \(response.text)")
                #expect(try response.errorCode() == entry.code, "\(entry.body): \(response.text)")
                let message = (try response.jsonObject()["error"] as? [String: Any])?["message"] as? String
                #expect(message?.isEmpty == false)
            }
            #expect(try await client.placeNames("/api/places").isEmpty)
        }
    }

    @Test func keepsHTMLInNamesAsText() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let name = #"<script>alert(\"x\")</script> & <b>"#
            let created = try await client.createPlace(name, at: origin)
            #expect(created["name"] as? String == #"<script>alert("x")</script> & <b>"#)
        }
    }

    @Test func patchChangesFieldsAndReplacesLabelsOrNothing() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let shops = try await client.createLabel("Shops")
            let food = try await client.createLabel("Food", colour: "#00ff00")
            let id = try #require(try await client.createPlace("Old", at: origin, extra: #","address":"Here","labels":["\#(shops)"]"#)["id"] as? String)

            let response = try await client.patch("/api/places/\(id)", json: #"{"name":"New","latitude":-33.5,"labels":["\#(food)"]}"#)
            #expect(response.status == .ok, "\(response.text)")
            let object = try response.jsonObject()
            #expect(object["name"] as? String == "New" && object["latitude"] as? Double == -33.5)
            #expect(object["longitude"] as? Double == origin.longitude && object["address"] as? String == "Here")
            #expect((object["labels"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Food"])

            #expect(try await client.patch("/api/places/\(id)", json: #"{"address":""}"#).jsonObject()["address"] == nil)
            #expect((try await client.patch("/api/places/\(id)", json: #"{"labels":[]}"#).jsonObject()["labels"] as? [Any])?.isEmpty == true)

            // A refused change changes nothing, not even the part that was valid.
            for body in [#"{"name":"Newer","latitude":91}"#, #"{"name":"Newer","labels":["AAAAAAAA"]}"#, #"{"name":"Newer","longitude":"x"}"#] {
                let refused = try await client.patch("/api/places/\(id)", json: body)
                #expect(refused.status.code / 100 == 4, "\(body)")
            }
            let after = try await client.get("/api/places/\(id)").jsonObject()
            #expect(after["name"] as? String == "New" && after["latitude"] as? Double == -33.5)
            #expect(try await client.patch("/api/places/ZZZZZZZZ", json: #"{"name":"X"}"#).status == .notFound)
        }
    }

    @Test func deleteRemovesThePlaceAndItsNotes() async throws {
        let database = try TemporaryStore()
        let (server, library) = try await database.server()
        let id = try await server.run { client in
            let id = try #require(try await client.createPlace("Gone", at: origin)["id"] as? String)
            #expect(try await client.post("/api/places/\(id)/notes", json: #"{"body":"a note"}"#).status == .created)
            #expect(try await client.delete("/api/places/\(id)").status == .noContent)
            #expect(try await client.get("/api/places/\(id)").status == .notFound)
            #expect(try await client.delete("/api/places/\(id)").status == .notFound)
            #expect(try await client.placeNames("/api/places").isEmpty)
            return id
        }
        // The notes went with it: the store knows no such place any more.
        let placeID = try #require(PlaceID(id))
        await #expect(throws: RideStoreError.self) {
            try await library.store.notes(placeID: placeID, userID: library.userID)
        }
    }
}

@Suite struct PlaceNotesAPITests {
    @Test func addsEditsAndDeletesNotes() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try #require(try await client.createPlace("Post office", at: origin)["id"] as? String)
            let first = try await client.post("/api/places/\(id)/notes", json: #"{"body":"Opens at 8"}"#)
            #expect(first.status == .created)
            let firstID = try #require(try first.jsonObject()["id"] as? String)
            #expect((try first.jsonObject()["photos"] as? [Any])?.isEmpty == true)
            let second = try await client.post("/api/places/\(id)/notes", json: #"{"body":"<i>Closed</i> on Sunday"}"#)
            let secondID = try #require(try second.jsonObject()["id"] as? String)

            let edited = try await client.patch("/api/places/\(id)/notes/\(firstID)", json: #"{"body":"Opens at 7:30"}"#)
            #expect(edited.status == .ok)
            #expect(try edited.jsonObject()["body"] as? String == "Opens at 7:30")
            var notes = try #require(try await client.get("/api/places/\(id)").jsonObject()["notes"] as? [[String: Any]])
            #expect(notes.compactMap { $0["body"] as? String } == ["Opens at 7:30", "<i>Closed</i> on Sunday"])
            #expect(notes.allSatisfy { $0["photos"] is [Any] })

            #expect(try await client.delete("/api/places/\(id)/notes/\(secondID)").status == .noContent)
            #expect(try await client.delete("/api/places/\(id)/notes/\(secondID)").status == .notFound)
            notes = try #require(try await client.get("/api/places/\(id)").jsonObject()["notes"] as? [[String: Any]])
            #expect(notes.compactMap { $0["id"] as? String } == [firstID])
        }
    }

    @Test func refusesEmptyOrMistypedNotesAndNotesOfOtherPlaces() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try #require(try await client.createPlace("One", at: origin)["id"] as? String)
            let other = try #require(try await client.createPlace("Two", at: origin)["id"] as? String)
            for body in [#"{"body":"  "}"#, #"{"body":5}"#, #"{}"#, "not json"] {
                let response = try await client.post("/api/places/\(id)/notes", json: body)
                #expect(response.status == .badRequest, "\(body)")
            }
            #expect(try await client.post("/api/places/ZZZZZZZZ/notes", json: #"{"body":"x"}"#).status == .notFound)
            let noteID = try #require(try await client.post("/api/places/\(id)/notes", json: #"{"body":"kept"}"#).jsonObject()["id"] as? String)
            // The note is addressed through its own place only.
            #expect(try await client.patch("/api/places/\(other)/notes/\(noteID)", json: #"{"body":"x"}"#).status == .notFound)
            #expect(try await client.delete("/api/places/\(other)/notes/\(noteID)").status == .notFound)
            #expect(try await client.patch("/api/places/\(id)/notes/\(noteID)", json: #"{"body":""}"#).status == .badRequest)
            let notes = try #require(try await client.get("/api/places/\(id)").jsonObject()["notes"] as? [[String: Any]])
            #expect(notes.compactMap { $0["body"] as? String } == ["kept"])
        }
    }
}

@Suite struct PlaceLabelsAPITests {
    @Test func createsListsRenamesAndDeletesLabels() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let shops = try await client.createLabel("Shops", colour: "#a0b1c2")
            _ = try await client.createLabel("Admin", colour: "#000000")
            var list = try #require(try await client.get("/api/labels").jsonObject()["labels"] as? [[String: Any]])
            #expect(list.compactMap { $0["name"] as? String } == ["Admin", "Shops"])
            #expect(list.last?["colour"] as? String == "#A0B1C2")

            let renamed = try await client.patch("/api/labels/\(shops)", json: ##"{"name":"Groceries","colour":"#ffffff"}"##)
            #expect(renamed.status == .ok)
            let renamedObject = try renamed.jsonObject()
            #expect(renamedObject["name"] as? String == "Groceries" && renamedObject["colour"] as? String == "#FFFFFF")

            let place = try #require(try await client.createPlace("Market", at: origin, extra: #","labels":["\#(shops)"]"#)["id"] as? String)
            #expect(try await client.delete("/api/labels/\(shops)").status == .noContent)
            #expect(try await client.delete("/api/labels/\(shops)").status == .notFound)
            list = try #require(try await client.get("/api/labels").jsonObject()["labels"] as? [[String: Any]])
            #expect(list.compactMap { $0["name"] as? String } == ["Admin"])
            #expect((try await client.get("/api/places/\(place)").jsonObject()["labels"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func refusesBadColoursEmptyNamesAndDuplicates() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let id = try await client.createLabel("Shops")
            for body in [
                ##"{"name":"A","colour":"3a7bd5"}"##, ##"{"name":"A","colour":"#3a7bd"}"##, ##"{"name":"A","colour":"#3a7bdg"}"##,
                ##"{"name":"A","colour":"red"}"##, ##"{"name":"A","colour":"#3a7bd5\"><script>"}"##, ##"{"name":" ","colour":"#000000"}"##,
                #"{"name":"A","colour":1}"#, #"{"name":"A"}"#,
            ] {
                let response = try await client.post("/api/labels", json: body)
                #expect(response.status == .badRequest, "\(body): \(response.text)")
            }
            #expect(try await client.post("/api/labels", json: ##"{"name":"Shops","colour":"#000000"}"##).status == .conflict)
            #expect(try await client.patch("/api/labels/\(id)", json: #"{"colour":"blue"}"#).status == .badRequest)
            #expect(try await client.patch("/api/labels/ZZZZZZZZ", json: #"{"name":"X"}"#).status == .notFound)
            let list = try #require(try await client.get("/api/labels").jsonObject()["labels"] as? [[String: Any]])
            #expect(list.count == 1 && list[0]["colour"] as? String == "#3A7BD5")
        }
    }
}
