import Foundation
import Testing

import RideKit
@testable import RideStore

/// `ScopedStore` (`library.mine`) reads and writes its own user's rows only, on both stores: what one user's handle
/// makes, the other's handle neither lists nor finds, nor can change.
@Suite struct ScopedStoreTests {
    @Test(arguments: StoreKind.allCases) func eachHandleSeesItsOwnUsersRowsOnly(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anna = ScopedStore(store: store, userID: try await store.createUser(name: "anna", passwordHash: nil).id)
            let bob = ScopedStore(store: store, userID: try await store.createUser(name: "bob", passwordHash: nil).id)
            let annas = try await anna.createPlace(NewPlace(latitude: 46.5, longitude: 6.6, name: "Anna's bakery"))
            let bobs = try await bob.createPlace(NewPlace(latitude: 46.6, longitude: 6.7, name: "Bob's workshop"))
            #expect(try await anna.places(PlaceQuery()).map(\.id) == [annas.id])
            #expect(try await bob.places(PlaceQuery()).map(\.id) == [bobs.id])
            #expect(try await anna.place(id: bobs.id) == nil)
            #expect(try await store.place(id: annas.id, userID: anna.userID)?.name == "Anna's bakery")
            await #expect(throws: RideStoreError.self) { try await bob.addNote(placeID: annas.id, body: "mine now") }
            #expect(try await anna.notes(placeID: annas.id).isEmpty)
            #expect(try await anna.user()?.name == "anna")
            #expect(try await bob.user()?.name == "bob")
        }
    }
}
