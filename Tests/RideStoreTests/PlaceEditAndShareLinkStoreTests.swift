import Foundation
import RideKit
@testable import RideStore
import Testing

@Suite struct PlaceEditAndShareLinkStoreTests {
    /// A change whose labels cannot be set changes nothing, not even the valid fields.
    @Test(arguments: StoreKind.allCases) func placeChangesAndLabelsAreOneTransaction(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let label = try await store.createLabel(name: "Shops", color: "#112233", userID: user)
            let place = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Old", labelIDs: [label.id]), userID: user)
            let unknown = try #require(LabelID("ZZZZZZZZ"))
            await #expect(throws: RideStoreError.self) {
                try await store.updatePlace(id: place.id, userID: user, PlaceChanges(name: "New"), labelIDs: [unknown])
            }
            let unchanged = try #require(try await store.place(id: place.id, userID: user))
            #expect(unchanged.name == "Old" && unchanged.labels.map(\.id) == [label.id])

            let changed = try await store.updatePlace(id: place.id, userID: user, PlaceChanges(name: "New", latitude: -5), labelIDs: [])
            #expect(changed.name == "New" && changed.latitude == -5 && changed.longitude == 2 && changed.labels.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func shareLinksAreFoundUntilRevokedOrTheirPlaceIsGone(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let other = try await store.createUser(name: "other", passwordHash: nil).id
            let place = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Here"), userID: user)
            let token = String(repeating: "a", count: 43)
            let link = try await store.createShareLink(token: token, placeID: place.id, userID: user)
            #expect(link.placeID == place.id && link.userID == user && link.revokedAt == nil)
            #expect(try await store.shareLink(token: token)?.placeID == place.id)
            await #expect(throws: RideStoreError.self) { try await store.createShareLink(token: token, placeID: place.id, userID: user) }
            await #expect(throws: RideStoreError.self) { try await store.createShareLink(token: "short", placeID: place.id, userID: user) }
            await #expect(throws: RideStoreError.self) {
                try await store.createShareLink(token: String(repeating: "b", count: 43), placeID: place.id, userID: other)
            }
            // Only its owner revokes it.
            #expect(try await store.revokeShareLink(token: token, userID: other) == false)
            #expect(try await store.revokeShareLink(token: token, userID: user))
            #expect(try await store.shareLink(token: token) == nil)
            #expect(try await store.revokeShareLink(token: token, userID: user) == false)

            let second = String(repeating: "c", count: 43)
            _ = try await store.createShareLink(token: second, placeID: place.id, userID: user)
            _ = try await store.deletePlaces(ids: [place.id], userID: user)
            #expect(try await store.shareLink(token: second) == nil)
        }
    }
}
