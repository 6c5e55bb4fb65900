import Foundation
import RideKit
@testable import RideStore
import Testing

/// Privacy zones, the hidden length and ride share links (issue 23), on both stores.
@Suite struct PrivacyStoreTests {
    static let home = Coordinate(latitude: 47.37, longitude: 8.54)

    @Test(arguments: StoreKind.allCases) func zonesAreKeptPerUserAndRemoved(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let other = try await store.createUser(name: "other", passwordHash: nil).id
            #expect(try await store.privacySettings(userID: user) == PrivacySettings())
            let zone = try await store.addPrivacyZone(PrivacyZone(center: Self.home, radiusMeters: 250), name: "  Home ", userID: user)
            #expect(zone.name == "Home")
            _ = try await store.addPrivacyZone(PrivacyZone(center: Coordinate(latitude: -16.8, longitude: 179.99), radiusMeters: 2_000), name: nil, userID: user)
            let settings = try await store.privacySettings(userID: user)
            #expect(settings.zones.map(\.zone.radiusMeters) == [250, 2_000])
            #expect(settings.zones[0].zone.center == Self.home)
            #expect(settings.secret.count == 32)
            #expect(try await store.privacySettings(userID: other).zones.isEmpty)
            // Only its owner removes it.
            #expect(try await store.deletePrivacyZone(id: zone.id, userID: other) == false)
            #expect(try await store.deletePrivacyZone(id: zone.id, userID: user))
            #expect(try await store.privacySettings(userID: user).zones.count == 1)
            #expect(try await store.deletePrivacyZone(id: zone.id, userID: user) == false)

            let changed = try await store.setHiddenEndMeters(400, userID: user)
            #expect(changed.hiddenEndMeters == 400 && changed.secret == settings.secret)
        }
    }

    @Test(arguments: StoreKind.allCases) func badZonesAndLengthsStoreNothing(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let bad: [(Double, Double, Double)] = [
                (.nan, 8, 200), (47, .nan, 200), (47, 8, .nan), (91, 8, 200), (47, 181, 200), (47, 8, 99.9), (47, 8, 2_000.1), (.infinity, 8, 200),
            ]
            for (latitude, longitude, radius) in bad {
                await #expect(throws: RideStoreError.self) {
                    try await store.addPrivacyZone(PrivacyZone(center: Coordinate(latitude: latitude, longitude: longitude), radiusMeters: radius), name: nil, userID: user)
                }
            }
            for meters in [-1, 1_600.5, .nan] {
                await #expect(throws: RideStoreError.self) { try await store.setHiddenEndMeters(meters, userID: user) }
            }
            #expect(try await store.privacySettings(userID: user) == PrivacySettings())
        }
    }

    @Test(arguments: StoreKind.allCases) func rideSharesShowUntilRevokedExpiredOrTheTrackIsGone(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let other = try await store.createUser(name: "other", passwordHash: nil).id
            let library = TrackLibrary(store: store, userID: user)
            let data = try GPXWriter.data(GeneratedRide.document(points: 50, name: "Ride"))
            let track = try #require(try await library.importData(data, fileName: "ride.gpx").tracks.first)
            let options = RideShareOptions(hideStartTime: true, hideHeartRate: false, hidePower: true)
            let now = Date()
            let token = String(repeating: "r", count: 43)
            let share = try await store.createRideShare(token: token, trackID: track.id, userID: user, options: options, expiresAt: now.addingTimeInterval(3_600))
            #expect(share.trackID == track.id)
            let found = try #require(try await store.rideShare(token: token, now: now))
            #expect(found.options == options && found.userID == user && found.trackID == track.id)
            // Expired at the stored millisecond.
            #expect(try await store.rideShare(token: token, now: now.addingTimeInterval(3_601)) == nil)
            // Another user's track, an unknown track, a token taken or malformed: refused.
            await #expect(throws: RideStoreError.self) {
                try await store.createRideShare(token: String(repeating: "s", count: 43), trackID: track.id, userID: other, options: options, expiresAt: nil)
            }
            await #expect(throws: RideStoreError.self) { try await store.createRideShare(token: token, trackID: track.id, userID: user, options: options, expiresAt: nil) }
            await #expect(throws: RideStoreError.self) { try await store.createRideShare(token: "short", trackID: track.id, userID: user, options: options, expiresAt: nil) }
            // A place link's or live link's token is no ride link.
            let place = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Here"), userID: user)
            let placeToken = String(repeating: "p", count: 43)
            _ = try await store.createShareLink(token: placeToken, placeID: place.id, userID: user)
            #expect(try await store.rideShare(token: placeToken, now: now) == nil)
            #expect(try await store.shareLink(token: token) == nil)

            let forever = String(repeating: "f", count: 43)
            _ = try await store.createRideShare(token: forever, trackID: track.id, userID: user, options: RideShareOptions(), expiresAt: nil)
            #expect(try await store.rideShare(token: forever, now: now.addingTimeInterval(1e9)) != nil)
            // The list of what is out: the place and both rides, newest first; the other user sees none. Tokens are
            // kept hashed (DESIGN 5): the list has ids, never the tokens.
            let active = try await store.activeShares(userID: user, now: now)
            #expect(active.count == 3 && Set(active.map(\.kind)) == ["place", "track"])
            #expect(Set(active.map(\.id)).isDisjoint(with: [token, placeToken, forever]) && active.allSatisfy { $0.id.count == 64 })
            #expect(active.filter { $0.kind == "track" }.allSatisfy { $0.targetName == "Ride" })
            #expect(try await store.activeShares(userID: other, now: now).isEmpty)
            #expect(try await store.activeShares(userID: user, now: now.addingTimeInterval(7_200)).count == 2)
            // Revoked by its id too (the Settings list's button).
            let placeEntry = try #require(active.first { $0.kind == "place" })
            #expect(try await store.revokeShareLink(token: placeEntry.id, userID: other) == false)
            #expect(try await store.revokeShareLink(token: placeEntry.id, userID: user))
            #expect(try await store.shareLink(token: placeToken) == nil)
            #expect(try await store.revokeShareLink(token: forever, userID: other) == false)
            #expect(try await store.revokeShareLink(token: forever, userID: user))
            #expect(try await store.rideShare(token: forever, now: now) == nil)
            let again = String(repeating: "g", count: 43)
            _ = try await store.createRideShare(token: again, trackID: track.id, userID: user, options: RideShareOptions(), expiresAt: nil)
            _ = try await store.deleteTracks(ids: [track.id], userID: user)
            #expect(try await store.rideShare(token: again, now: now) == nil)
        }
    }

    @Test func theSeedOfACutIsFixedPerRideAndSecret() {
        let a = Data(repeating: 1, count: 32), b = Data(repeating: 2, count: 32)
        #expect(PrivacySettingsRules.seed(secret: a, rideKey: "track:AAAAAAAA") == PrivacySettingsRules.seed(secret: a, rideKey: "track:AAAAAAAA"))
        #expect(PrivacySettingsRules.seed(secret: a, rideKey: "track:AAAAAAAA") != PrivacySettingsRules.seed(secret: a, rideKey: "track:AAAAAAAB"))
        #expect(PrivacySettingsRules.seed(secret: a, rideKey: "track:AAAAAAAA") != PrivacySettingsRules.seed(secret: b, rideKey: "track:AAAAAAAA"))
    }
}
