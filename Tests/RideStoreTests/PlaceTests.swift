import Foundation
import Testing

import RideKit
@testable import RideStore

/// Places with notes, photos and labels (many-to-many), listed, filtered, sorted and exported as waypoints.
@Suite struct PlaceTests {
    @Test(arguments: StoreKind.allCases) func placesNotesPhotosAndLabels(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let errands = try await store.createLabel(name: "Errands", color: "3a7bd5", userID: user.id)
            let food = try await store.createLabel(name: "Food", color: "#E74C3C", userID: user.id)
            #expect(errands.color == "#3A7BD5")
            await #expect(throws: RideStoreError.self) { try await store.createLabel(name: "Errands", color: "#000000", userID: user.id) }
            await #expect(throws: RideStoreError.self) { try await store.createLabel(name: "Bad", color: "blue", userID: user.id) }

            let bakery = try await store.createPlace(
                NewPlace(latitude: 37.3318, longitude: -122.0312, name: "Bakery", address: "1 Main St", note: "Sourdough on Fridays", labelIDs: [food.id, errands.id]),
                userID: user.id)
            #expect(bakery.labels.map(\.name) == ["Errands", "Food"])
            let post = try await store.createPlace(NewPlace(latitude: 37.40, longitude: -122.10, name: "Post office", labelIDs: [errands.id]), userID: user.id)
            let far = try await store.createPlace(NewPlace(latitude: 48.85, longitude: 2.35, name: "all-caps CAFE"), userID: user.id)
            await #expect(throws: RideStoreError.self) { try await store.createPlace(NewPlace(latitude: 91, longitude: 0, name: "x"), userID: user.id) }
            await #expect(throws: RideStoreError.self) { try await store.createPlace(NewPlace(latitude: .nan, longitude: 0, name: "x"), userID: user.id) }

            let here = Coordinate(latitude: 37.33, longitude: -122.03)
            #expect(try await store.places(PlaceQuery(order: .distance(from: here)), userID: user.id).map(\.id) == [bakery.id, post.id, far.id])
            #expect(try await store.places(PlaceQuery(order: .name), userID: user.id).map(\.name) == ["all-caps CAFE", "Bakery", "Post office"])
            #expect(try await store.places(PlaceQuery(labelIDs: [food.id]), userID: user.id).map(\.id) == [bakery.id])
            #expect(Set(try await store.places(PlaceQuery(labelIDs: [errands.id]), userID: user.id).map(\.id)) == [bakery.id, post.id])
            #expect(try await store.places(PlaceQuery(search: "sourdough"), userID: user.id).map(\.id) == [bakery.id])
            #expect(try await store.places(PlaceQuery(order: .name, limit: 1, offset: 1), userID: user.id).map(\.name) == ["Bakery"])

            let second = try await store.addNote(placeID: bakery.id, body: "Closed Mondays", userID: user.id)
            let photo = try await store.addPhoto(noteID: second.id, mediaType: "image/JPEG", bytes: Data([0xFF, 0xD8, 0xFF, 0xE0]), userID: user.id)
            #expect(photo.mediaType == "image/jpeg")
            await #expect(throws: RideStoreError.self) { try await store.addPhoto(noteID: second.id, mediaType: "jpeg", bytes: Data([1]), userID: user.id) }
            #expect(try await store.photo(id: photo.id, userID: user.id)?.bytes == Data([0xFF, 0xD8, 0xFF, 0xE0]))
            var notes = try await store.notes(placeID: bakery.id, userID: user.id)
            #expect(notes.map(\.body) == ["Sourdough on Fridays", "Closed Mondays"])
            #expect(notes[0].photos.isEmpty && notes[1].photos == [photo])
            // A note edited keeps (and returns) its photos.
            #expect(try await store.updateNote(id: second.id, body: "Closed Mondays and Tuesdays", userID: user.id).photos == [photo])
            _ = try await store.updateNote(id: second.id, body: "Closed Mondays", userID: user.id)
            _ = try await store.updateNote(id: notes[0].id, body: "Sourdough on Fridays and Saturdays", userID: user.id)
            notes = try await store.notes(placeID: bakery.id, userID: user.id)
            #expect(notes[0].body == "Sourdough on Fridays and Saturdays")

            // Exported as GPX waypoints, the notes in desc.
            let library = TrackLibrary(store: store, userID: user.id)
            let document = try await library.placesDocument([bakery.id])
            let waypoint = try #require(document.waypoints.first)
            #expect(waypoint.name == "Bakery")
            #expect(waypoint.comment == "1 Main St")
            #expect(waypoint.description == "Sourdough on Fridays and Saturdays\n\nClosed Mondays")
            #expect(waypoint.type == "Errands, Food")
            let reread = try GPXReader.read(bytes: GPXWriter.write(document))
            #expect(reread.waypoints == document.waypoints)

            // Labels are many-to-many: removing one from a place, deleting a label, deleting a place.
            #expect(try await store.setLabels([food.id], placeID: bakery.id, userID: user.id).labels.map(\.name) == ["Food"])
            #expect(try await store.deleteLabel(id: food.id, userID: user.id))
            #expect(try await store.place(id: bakery.id, userID: user.id)?.labels.isEmpty == true)
            #expect(try await store.updateLabel(id: errands.id, name: "Chores", color: nil, userID: user.id).name == "Chores")
            #expect(try await store.place(id: post.id, userID: user.id)?.labels.map(\.name) == ["Chores"])
            let moved = try await store.updatePlace(id: post.id, userID: user.id, PlaceChanges(name: "Post", latitude: 37.5, address: ""))
            #expect(moved.name == "Post" && moved.latitude == 37.5 && moved.address == nil)
            #expect(try await store.deletePhoto(id: photo.id, userID: user.id))
            #expect(try await store.deletePhoto(id: photo.id, userID: user.id) == false)
            #expect(try await store.deletePlaces(ids: [bakery.id, far.id], userID: user.id) == [bakery.id, far.id])
            // Deleted: out of every read until restored; purged: gone with their notes.
            #expect(try await store.places(PlaceQuery(), userID: user.id).map(\.id) == [post.id])
            #expect(try await store.purgeDeletedPlaces(deletedBefore: Date().addingTimeInterval(60)).sorted() == [bakery.id, far.id].sorted())
            let rows = try await storedPlaceRows(store)
            #expect(rows.notes == 0 && rows.places == 1 && rows.placeLabels == 1)
        }
    }
}

/// A GPX file's waypoints are stored in one transaction: all or none.
@Suite struct PlaceBatchTests {
    @Test(arguments: StoreKind.allCases) func onePlaceRefusedStoresNoneOfTheBatch(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let batch = [
                NewPlace(latitude: 1, longitude: 2, name: "First"), NewPlace(latitude: 3, longitude: 4, name: "Second"),
                NewPlace(latitude: 95, longitude: 4, name: "Off the globe"),
            ]
            await #expect(throws: RideStoreError.self) { try await store.createPlaces(batch, userID: user.id) }
            let unknownLabel = [NewPlace(latitude: 1, longitude: 2, name: "A"), NewPlace(latitude: 1, longitude: 2, name: "B", labelIDs: [.random()])]
            await #expect(throws: RideStoreError.self) { try await store.createPlaces(unknownLabel, userID: user.id) }
            #expect(try await storedPlaceRows(store).places == 0)
            let made = try await store.createPlaces(Array(batch.prefix(2)), userID: user.id)
            #expect(made.map(\.name) == ["First", "Second"])
        }
    }
}
