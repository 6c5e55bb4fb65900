import Foundation
import RideKit
@testable import RideStore
import Testing

@Suite struct PlaceEditAndShareLinkStoreTests {
    /// A change whose labels cannot be set changes nothing, not even the valid fields.
    @Test func placeChangesAndLabelsAreOneTransaction() async throws {
        let test = try TestStore()
        let user = try await test.store.localUser().id
        let label = try await test.store.createLabel(name: "Shops", color: "#112233", userID: user)
        let place = try await test.store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Old", labelIDs: [label.id]), userID: user)
        let unknown = try #require(LabelID("ZZZZZZZZ"))
        await #expect(throws: RideStoreError.self) {
            try await test.store.updatePlace(id: place.id, userID: user, PlaceChanges(name: "New"), labelIDs: [unknown])
        }
        let unchanged = try #require(try await test.store.place(id: place.id, userID: user))
        #expect(unchanged.name == "Old" && unchanged.labels.map(\.id) == [label.id])

        let changed = try await test.store.updatePlace(id: place.id, userID: user, PlaceChanges(name: "New", latitude: -5), labelIDs: [])
        #expect(changed.name == "New" && changed.latitude == -5 && changed.longitude == 2 && changed.labels.isEmpty)
    }

    @Test func shareLinksAreFoundUntilRevokedOrTheirPlaceIsGone() async throws {
        let test = try TestStore()
        let user = try await test.store.localUser().id
        let other = try await test.store.createUser(name: "other", passwordHash: nil).id
        let place = try await test.store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Here"), userID: user)
        let token = String(repeating: "a", count: 43)
        let link = try await test.store.createShareLink(token: token, placeID: place.id, userID: user)
        #expect(link.placeID == place.id && link.userID == user && link.revokedAt == nil)
        #expect(try await test.store.shareLink(token: token)?.placeID == place.id)
        await #expect(throws: RideStoreError.self) { try await test.store.createShareLink(token: token, placeID: place.id, userID: user) }
        await #expect(throws: RideStoreError.self) { try await test.store.createShareLink(token: "short", placeID: place.id, userID: user) }
        await #expect(throws: RideStoreError.self) {
            try await test.store.createShareLink(token: String(repeating: "b", count: 43), placeID: place.id, userID: other)
        }
        // Only its owner revokes it.
        #expect(try await test.store.revokeShareLink(token: token, userID: other) == false)
        #expect(try await test.store.revokeShareLink(token: token, userID: user))
        #expect(try await test.store.shareLink(token: token) == nil)
        #expect(try await test.store.revokeShareLink(token: token, userID: user) == false)

        let second = String(repeating: "c", count: 43)
        _ = try await test.store.createShareLink(token: second, placeID: place.id, userID: user)
        _ = try await test.store.deletePlaces(ids: [place.id], userID: user)
        #expect(try await test.store.shareLink(token: second) == nil)
    }
}
