import Foundation
import RideKit
@testable import RideStore
import Testing
import TestSupport

/// Family on one server (issue 23): users sharing their live position with each other, on both stores.
@Suite struct FamilyStoreTests {
    static let home = Coordinate(latitude: 47.37, longitude: 8.54)

    @Test(arguments: StoreKind.allCases) func sharesAreKeptPerPairRenewedAndRevoked(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anna = try await store.createUser(name: "anna", passwordHash: nil)
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let carl = try await store.createUser(name: "carl", passwordHash: nil)
            let now = Date(timeIntervalSince1970: 1_800_000_000.123)
            let share = try await store.shareFamily(with: "bob", userID: anna.id, expiresAt: now.addingTimeInterval(3_600), now: now)
            #expect(share.sharerName == "anna" && share.viewerID == bob.id && share.viewerName == "bob")
            _ = try await store.shareFamily(with: " carl ", userID: anna.id, expiresAt: nil, now: now)
            _ = try await store.shareFamily(with: "anna", userID: carl.id, expiresAt: nil, now: now)

            let annas = try await store.familyCircle(userID: anna.id, now: now)
            #expect(annas.sharing.map(\.viewerName) == ["bob", "carl"])
            #expect(annas.sharing[0].expiresAt == StoreClock.rounded(now.addingTimeInterval(3_600)) && annas.sharing[1].expiresAt == nil)
            #expect(annas.sharedWithMe.map(\.sharerName) == ["carl"])
            let bobs = try await store.familyCircle(userID: bob.id, now: now)
            #expect(bobs.sharing.isEmpty && bobs.sharedWithMe.map(\.sharerName) == ["anna"])

            // Expired at the stored millisecond, for both sides; sharing again renews (one row per pair).
            let later = now.addingTimeInterval(3_600)
            #expect(try await store.familyCircle(userID: bob.id, now: later).sharedWithMe.isEmpty)
            #expect(try await store.familyCircle(userID: anna.id, now: later).sharing.map(\.viewerName) == ["carl"])
            _ = try await store.shareFamily(with: "bob", userID: anna.id, expiresAt: later.addingTimeInterval(60), now: later)
            #expect(try await store.familyCircle(userID: bob.id, now: later).sharedWithMe.count == 1)
            #expect(try await store.familyCircle(userID: anna.id, now: later).sharing.count == 2)

            // Only the sharer revokes; at once.
            #expect(try await store.revokeFamilyShare(viewerName: "bob", userID: bob.id) == false)
            #expect(try await store.revokeFamilyShare(viewerName: "anna", userID: bob.id) == false)
            #expect(try await store.revokeFamilyShare(viewerName: "bob", userID: anna.id))
            #expect(try await store.familyCircle(userID: bob.id, now: later).sharedWithMe.isEmpty)
            #expect(try await store.revokeFamilyShare(viewerName: "bob", userID: anna.id) == false)

            // A user deleted takes their shares, both ways.
            #expect(try await store.deleteUser(id: carl.id))
            let after = try await store.familyCircle(userID: anna.id, now: now)
            #expect(after.sharing.isEmpty && after.sharedWithMe.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func badSharesStoreNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anna = try await store.createUser(name: "anna", passwordHash: nil)
            _ = try await store.createUser(name: "bob", passwordHash: nil)
            let now = Date()
            await #expect(throws: RideStoreError.invalid(field: "user", reason: "you cannot share your position with yourself")) {
                try await store.shareFamily(with: "anna", userID: anna.id, expiresAt: nil, now: now)
            }
            for name in ["nobody", "", "   ", "bo\u{0}b", String(repeating: "x", count: 1_001), "BOB"] {
                await #expect(throws: RideStoreError.self) { try await store.shareFamily(with: name, userID: anna.id, expiresAt: nil, now: now) }
                #expect(try await store.revokeFamilyShare(viewerName: name, userID: anna.id) == false)
            }
            // An expiry not after now.
            await #expect(throws: RideStoreError.self) { try await store.shareFamily(with: "bob", userID: anna.id, expiresAt: now, now: now) }
            let circle = try await store.familyCircle(userID: anna.id, now: now)
            #expect(circle.sharing.isEmpty && circle.sharedWithMe.isEmpty)
        }
    }

    @Test func hoursOutsideOneToAYearAreRefused() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for hours in [0, 0.5, -1, 8_760.5, .nan, .infinity] {
            #expect(throws: RideStoreError.self) { try FamilyShareRules.expiresAt(hours: hours, now: now) }
        }
        #expect(try FamilyShareRules.expiresAt(hours: nil, now: now) == nil)
        #expect(try FamilyShareRules.expiresAt(hours: 1, now: now) == now.addingTimeInterval(3_600))
        #expect(try FamilyShareRules.expiresAt(hours: 8_760, now: now) == now.addingTimeInterval(365 * 86_400))
    }

    /// What a family member sees of a sharer's latest position: nothing inside their zones, the position again once out.
    @Test(arguments: StoreKind.allCases) func theLatestPositionInsideAZoneIsHidden(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anna = try await store.createUser(name: "anna", passwordHash: nil)
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let phone = try await store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-of-annas-phone", protocolName: "owntracks"), userID: anna.id)
            _ = try await store.shareFamily(with: "bob", userID: anna.id, expiresAt: nil, now: Date())
            let library = TrackLibrary(store: store, userID: bob.id)
            #expect(try await library.familyMembers().map(\.fix) == [nil])
            #expect(try await library.familyMembers().map(\.hidden) == [false])

            _ = try await store.addPrivacyZone(PrivacyZone(center: Self.home, radiusMeters: 300), name: "Home", userID: anna.id)
            let start = Date().addingTimeInterval(-600)
            // At home (50 m from the centre), then 2 km east.
            let atHome = TrackerFix(time: start, latitude: Self.home.latitude, longitude: Self.home.longitude + 0.0006)
            _ = try await store.ingest([atHome], deviceID: phone.id, userID: anna.id, gapSeconds: 1_800)
            let hidden = try #require(try await library.familyMembers().first)
            #expect(hidden.fix == nil && hidden.hidden && hidden.share.sharerName == "anna")
            let away = Self.home.destination(distanceMeters: 2_000, bearingDegrees: 90)
            let out = TrackerFix(time: start.addingTimeInterval(300), latitude: away.latitude, longitude: away.longitude, accuracyMeters: 8)
            _ = try await store.ingest([out], deviceID: phone.id, userID: anna.id, gapSeconds: 1_800)
            let shown = try #require(try await library.familyMembers().first)
            #expect(shown.fix == out && !shown.hidden)
            // Anna sees no one: Bob does not share with her.
            #expect(try await TrackLibrary(store: store, userID: anna.id).familyMembers().isEmpty)
        }
    }

    /// With "hide the first N m", the start of the sharer's ride is hidden from family as on the live link: a latest
    /// position within N m of the ride's start (along it, or as the crow flies) is never shown, one past N + 25 % is.
    @Test(arguments: StoreKind.allCases) func theHiddenStartOfTheRideIsHiddenFromFamily(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anna = try await store.createUser(name: "anna", passwordHash: nil)
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let phone = try await store.createDevice(NewDevice(name: "Phone", tokenHash: "hash-of-annas-phone", protocolName: "owntracks"), userID: anna.id)
            _ = try await store.shareFamily(with: "bob", userID: anna.id, expiresAt: nil, now: Date())
            _ = try await store.setHiddenEndMeters(400, userID: anna.id)
            let library = TrackLibrary(store: store, userID: bob.id)
            let start = Date().addingTimeInterval(-3_000)
            // East from home, a fix every 50 m, 20 s apart (one ride: no gap).
            for step in 0...14 {
                let here = Self.home.destination(distanceMeters: Double(step) * 50, bearingDegrees: 90)
                _ = try await store.ingest(
                    [TrackerFix(time: start.addingTimeInterval(Double(step) * 20), latitude: here.latitude, longitude: here.longitude)],
                    deviceID: phone.id, userID: anna.id, gapSeconds: 1_800)
                let member = try #require(try await library.familyMembers().first)
                let fromStart = TestGeodesic.meters(Self.home.latitude, Self.home.longitude, here.latitude, here.longitude)
                if fromStart <= 400 { #expect(member.fix == nil && member.hidden, "\(fromStart) m from the start shown") }
                if fromStart > 500 { #expect(member.fix?.latitude == here.latitude && !member.hidden, "\(fromStart) m from the start hidden") }
            }
        }
    }
}
