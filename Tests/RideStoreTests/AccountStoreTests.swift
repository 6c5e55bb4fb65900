import Foundation
import Testing

import RideKit
@testable import RideStore

/// Users, sessions, device tokens and the positions devices post (issue 12), on both stores alike (an SQLite file,
/// a PostgreSQL database).
@Suite struct AccountStoreTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Fixes one a minute (by default) going north from Lausanne.
    static func fixes(_ minutes: [Int], secondsApart: Double = 60) -> [TrackerFix] {
        minutes.map { minute in
            TrackerFix(
                time: start.addingTimeInterval(Double(minute) * secondsApart), latitude: 46.5 + Double(minute) * 0.001, longitude: 6.6,
                speedMetersPerSecond: 2, batteryPercent: 80)
        }
    }

    static func device(_ store: any RideStore, user: UserID, name: String = "Phone") async throws -> Device {
        try await store.createDevice(NewDevice(name: name, tokenHash: SecretToken.hash(SecretToken.make()), protocolName: "any"), userID: user)
    }

    @Test func passwordsAreSlowSaltedAndVerified() throws {
        let hasher = PasswordHasher.forTesting
        let one = try hasher.hash("correct horse")
        let two = try hasher.hash("correct horse")
        #expect(one != two)  // salted
        #expect(one.hasPrefix("$scrypt$ln=10,r=8,p=1$"))
        #expect(PasswordHasher.verify("correct horse", against: one))
        #expect(!PasswordHasher.verify("correct horsE", against: one))
        #expect(!PasswordHasher.verify("", against: one))
        for broken in ["", "$scrypt$", "$scrypt$ln=40,r=8,p=1$AAAA$AAAA", "$bcrypt$x", "$scrypt$ln=10,r=8,p=1$!!$!!", one + "$"] {
            #expect(!PasswordHasher.verify("correct horse", against: broken))
        }
        #expect(PasswordHasher.problem(with: "short") != nil)
        #expect(PasswordHasher.problem(with: "long enough") == nil)
    }

    @Test func tokensAreRandomAndStoredAsTheirHash() {
        let tokens = Set((0..<100).map { _ in SecretToken.make() })
        #expect(tokens.count == 100)
        #expect(tokens.allSatisfy { $0.utf8.count == 43 && SecretToken.isPlausible($0) })
        #expect(SecretToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(!SecretToken.isPlausible("../../etc/passwd") && !SecretToken.isPlausible("short"))
    }

    @Test(arguments: StoreKind.allCases) func sessionsLiveUntilTheyExpireOrEnd(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.createUser(name: "anna", passwordHash: "x")
            try await store.createSession(tokenHash: "live", userID: user.id, expiresAt: Date().addingTimeInterval(3600))
            try await store.createSession(tokenHash: "old", userID: user.id, expiresAt: Date().addingTimeInterval(-1))
            #expect(try await store.sessionUser(tokenHash: "live", now: Date())?.id == user.id)
            #expect(try await store.sessionUser(tokenHash: "old", now: Date()) == nil)
            #expect(try await store.sessionUser(tokenHash: "unknown", now: Date()) == nil)
            try await store.deleteSession(tokenHash: "live")
            #expect(try await store.sessionUser(tokenHash: "live", now: Date()) == nil)
            // A new password ends every session.
            try await store.createSession(tokenHash: "again", userID: user.id, expiresAt: Date().addingTimeInterval(3600))
            try await store.setPasswordHash("y", userID: user.id)
            #expect(try await store.sessionUser(tokenHash: "again", now: Date()) == nil)
            #expect(try await store.user(id: user.id)?.passwordHash == "y")
        }
    }

    @Test(arguments: StoreKind.allCases) func deletingAUserDeletesTheirData(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.createUser(name: "bob", passwordHash: "x")
            let device = try await Self.device(store, user: user.id)
            _ = try await store.ingest(Self.fixes([0, 1]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            try await store.createSession(tokenHash: "bobs", userID: user.id, expiresAt: Date().addingTimeInterval(3600))
            _ = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Home"), userID: user.id)
            #expect(try await store.deleteUser(id: user.id))
            #expect(try await store.deleteUser(id: user.id) == false)
            #expect(try await store.sessionUser(tokenHash: "bobs", now: Date()) == nil)
            #expect(try await store.user(id: user.id) == nil)
            #expect(try await store.devices(userID: user.id).isEmpty)
            #expect(try await store.deviceFixes(userID: user.id, after: 0, limit: 10).isEmpty)
            #expect(try await store.tracks(TrackQuery(includesRecordings: true), userID: user.id).tracks.isEmpty)
            #expect(try await storedPlaceRows(store).places == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func rotatedTokenReplacesTheOld(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let other = try await store.createUser(name: "other", passwordHash: nil)
            let device = try await Self.device(store, user: user.id)
            _ = try await store.replaceDeviceToken(id: device.id, userID: user.id, tokenHash: "new")
            #expect(try await store.device(tokenHash: device.tokenHash) == nil)
            #expect(try await store.device(tokenHash: "new")?.id == device.id)
            // Another user's device: not found, unchanged.
            await #expect(throws: RideStoreError.self) { try await store.replaceDeviceToken(id: device.id, userID: other.id, tokenHash: "stolen") }
            #expect(try await store.device(id: device.id, userID: other.id) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func replaysAndDuplicatesAreStoredOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            let first = try await store.ingest(Self.fixes(Array(0..<10)), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(first.storedCount == 10 && first.duplicateCount == 0)
            let replay = try await store.ingest(Self.fixes(Array(0..<10)), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(replay.storedCount == 0 && replay.duplicateCount == 10)
            // The same time twice in one post, and a post overlapping the last one.
            let overlap = try await store.ingest(Self.fixes([9, 10, 10, 11]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(overlap.storedCount == 2 && overlap.duplicateCount == 2)
            let firstID = try #require(first.liveTrackID)
            let track = try #require(try await store.track(id: firstID, userID: user.id))
            #expect(track.summary.pointCount == 12)
            #expect(track.summary.source == .device)
            // Listed among the tracks while it grows.
            #expect(try await store.tracks(TrackQuery(), userID: user.id).tracks.map(\.id) == [track.id])
        }
    }

    @Test(arguments: StoreKind.allCases) func outOfOrderFixesArePlacedInOrder(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            _ = try await store.ingest(Self.fixes([0, 2, 4]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            let late = try await store.ingest(Self.fixes([3, 1]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            let lateID = try #require(late.liveTrackID)
            let track = try #require(try await store.track(id: lateID, userID: user.id))
            let times = try track.content.tracks[0].segments[0].points.points().compactMap { $0.time?.date }
            #expect(times == Self.fixes([0, 1, 2, 3, 4]).map(\.time))
            #expect(track.summary.pointCount == 5)
        }
    }

    /// A phone app's ride today shows in "This week" while it goes on, with the figures its track has so far.
    @Test(arguments: StoreKind.allCases) func aPhoneAppsTrackInProgressCountsInTheTotals(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            let live = try await store.ingest(Self.fixes(Array(0..<10)), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            let trackID = try #require(live.liveTrackID)
            let track = try #require(try await store.trackSummary(id: trackID, userID: user.id))
            #expect(track.state == .recording && track.distanceMeters > 900)
            let totals = try await store.trackTotals(since: [Self.start.addingTimeInterval(-86_400)], userID: user.id)
            #expect(totals.map(\.trackCount) == [1])
            #expect(totals.first?.distanceMeters == track.distanceMeters)
        }
    }

    @Test(arguments: StoreKind.allCases) func aGapStartsANewTrackAndSavesTheFinishedOneWithItsFigures(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            let morning = try await store.ingest(Self.fixes(Array(0..<10)), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            // 31 minutes after the last fix: a new track.
            let evening = try await store.ingest(Self.fixes([40, 41, 42]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(evening.finishedTrackIDs == [morning.liveTrackID].compactMap { $0 })
            #expect(evening.liveTrackID != morning.liveTrackID)
            let morningID = try #require(morning.liveTrackID)
            let finished = try #require(try await store.trackSummary(id: morningID, userID: user.id))
            #expect(finished.state == .complete && finished.pointCount == 10)
            #expect(finished.distanceMeters > 900 && finished.distanceMeters < 1100)  // 9 steps of 0.001° latitude ≈ 1,000 m
            #expect(try await store.tracks(TrackQuery(), userID: user.id).tracks.count == 2)
            // A shorter gap in one post, in the same post.
            let both = try await store.ingest(Self.fixes([100, 200]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(both.finishedTrackIDs.count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func fixesAreScopedToTheirUser(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let anna = try await store.createUser(name: "anna", passwordHash: nil)
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let annasPhone = try await Self.device(store, user: anna.id)
            // Bob cannot post into Anna's device.
            await #expect(throws: RideStoreError.self) {
                try await store.ingest(Self.fixes([0]), deviceID: annasPhone.id, userID: bob.id, gapSeconds: 1800)
            }
            _ = try await store.ingest(Self.fixes([0, 1]), deviceID: annasPhone.id, userID: anna.id, gapSeconds: 1800)
            #expect(try await store.deviceFixes(userID: bob.id, after: 0, limit: 100).isEmpty)
            #expect(try await store.deviceFixes(deviceID: annasPhone.id, userID: bob.id, since: .distantPast, limit: 100).isEmpty)
            #expect(try await store.latestDeviceFixes(userID: bob.id).isEmpty)
            #expect(try await store.lastDeviceFixSequence(userID: bob.id) == 0)
            #expect(try await store.deviceFixes(userID: anna.id, after: 0, limit: 100).count == 2)
            #expect(try await store.latestDeviceFixes(userID: anna.id).map(\.fix.time) == [Self.fixes([1])[0].time])
        }
    }

    /// Group commit: several devices' posts in one transaction, each with its own outcome; one that fails (a
    /// revoked device) leaves the others stored.
    @Test(arguments: StoreKind.allCases) func postsOfSeveralDevicesInOneTransaction(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let one = try await Self.device(store, user: user.id, name: "One")
            let two = try await Self.device(store, user: user.id, name: "Two")
            let gone = try await Self.device(store, user: user.id, name: "Gone")
            _ = try await store.deleteDevice(id: gone.id, userID: user.id)
            let results = try await store.ingest([
                DevicePost(fixes: Self.fixes([0, 1]), deviceID: one.id, userID: user.id),
                DevicePost(fixes: Self.fixes([0]), deviceID: gone.id, userID: user.id),
                DevicePost(fixes: Self.fixes([0, 1, 2]), deviceID: two.id, userID: user.id),
                DevicePost(fixes: Self.fixes([1, 2]), deviceID: one.id, userID: user.id),
            ], gapSeconds: 1800)
            #expect(try results[0].get().storedCount == 2)
            #expect(throws: RideStoreError.self) { try results[1].get() }
            #expect(try results[2].get().storedCount == 3)
            #expect(try results[3].get().storedCount == 1 && results[3].get().duplicateCount == 1)
            #expect(try await store.deviceFixes(userID: user.id, after: 0, limit: 100).count == 6)
            #expect(try await store.tracks(TrackQuery(), userID: user.id).tracks.count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func usersAreListedByNameAndSessionTokensAreUnique(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            for name in ["zoe", "Anna", "bob"] { _ = try await store.createUser(name: name, passwordHash: nil) }
            // By the bytes of the names: capitals first, as SQLite's BINARY collation orders them.
            #expect(try await store.users().map(\.name) == ["Anna", "bob", "zoe"])
            let anna = try #require(try await store.user(named: "Anna"))
            try await store.createSession(tokenHash: "one", userID: anna.id, expiresAt: Date().addingTimeInterval(60))
            await #expect(throws: RideStoreError.self) {
                try await store.createSession(tokenHash: "one", userID: anna.id, expiresAt: Date().addingTimeInterval(60))
            }
            await #expect(throws: RideStoreError.notFound(kind: "user", id: "ZZZZZZZZ")) {
                try await store.createSession(tokenHash: "two", userID: UserID("ZZZZZZZZ")!, expiresAt: Date().addingTimeInterval(60))
            }
            try await store.deleteSessions(userID: anna.id)
            #expect(try await store.sessionUser(tokenHash: "one", now: Date()) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func fixesThatAreNotFiniteAreRefusedAndNothingIsStored(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            var fixes = Self.fixes([0, 1, 2])
            fixes[1].elevationMeters = .nan
            await #expect(throws: RideStoreError.self) { try await store.ingest(fixes, deviceID: device.id, userID: user.id, gapSeconds: 1800) }
            fixes[1].elevationMeters = nil
            fixes[2].latitude = 91
            await #expect(throws: RideStoreError.self) { try await store.ingest(fixes, deviceID: device.id, userID: user.id, gapSeconds: 1800) }
            #expect(try await store.deviceFixes(userID: user.id, after: 0, limit: 10).isEmpty)
            #expect(try await store.lastDeviceFixSequence(userID: user.id) == 0)
            // Values a fix may lack come back as absent, the others as given.
            fixes[2].latitude = 46.502
            _ = try await store.ingest(fixes, deviceID: device.id, userID: user.id, gapSeconds: 1800)
            let stored = try await store.deviceFixes(deviceID: device.id, userID: user.id, since: .distantPast, limit: 10)
            #expect(stored.map(\.fix) == fixes)
            #expect(stored.map(\.sequence) == stored.map(\.sequence).sorted() && Set(stored.map(\.sequence)).count == 3)
            #expect(try await store.lastDeviceFixSequence(userID: user.id) == stored.last?.sequence)
        }
    }

    /// A live link shows a device's position to whoever holds the token: until it expires, is revoked, or (made
    /// for a ride) the ride ends; never another user's device.
    @Test(arguments: StoreKind.allCases) func liveSharesEndWithTheirTimeTheirRevocationOrTheirRide(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let other = try await store.createUser(name: "other", passwordHash: nil)
            let device = try await Self.device(store, user: user.id)
            let token = "live-share-token-0001"
            let now = Date()
            // No ride yet: a link limited to the ride cannot be made.
            await #expect(throws: RideStoreError.conflict("the device has no ride in progress")) {
                try await store.createLiveShare(token: token, deviceID: device.id, userID: user.id, expiresAt: now + 3600, untilRideEnds: true)
            }
            await #expect(throws: RideStoreError.notFound(kind: "device", id: device.id.rawValue)) {
                try await store.createLiveShare(token: token, deviceID: device.id, userID: other.id, expiresAt: now + 3600, untilRideEnds: false)
            }
            await #expect(throws: RideStoreError.self) {
                try await store.createLiveShare(token: "short", deviceID: device.id, userID: user.id, expiresAt: now + 3600, untilRideEnds: false)
            }
            let ride = try await store.ingest(Self.fixes([0, 1]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            let share = try await store.createLiveShare(token: token, deviceID: device.id, userID: user.id, expiresAt: now + 3600, untilRideEnds: true)
            #expect(share.trackID == ride.liveTrackID && share.deviceName == "Phone" && share.userID == user.id)
            #expect(try await store.liveShare(token: token, now: now) == share)
            #expect(try await store.liveShare(token: token, now: now + 3600) == nil)  // expired
            #expect(try await store.liveShare(token: "unknown-token-00000", now: now) == nil)
            await #expect(throws: RideStoreError.self) {
                try await store.createLiveShare(token: token, deviceID: device.id, userID: user.id, expiresAt: now + 3600, untilRideEnds: false)
            }
            // A fix after a gap ends the ride the link was made for.
            _ = try await store.ingest(Self.fixes([100]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(try await store.liveShare(token: token, now: now) == nil)

            let open = "live-share-token-0002"
            _ = try await store.createLiveShare(token: open, deviceID: device.id, userID: user.id, expiresAt: now + 3600, untilRideEnds: false)
            #expect(try await store.liveShare(token: open, now: now)?.trackID == nil)
            #expect(try await store.revokeShareLink(token: open, userID: other.id) == false)
            #expect(try await store.revokeShareLink(token: open, userID: user.id))
            #expect(try await store.revokeShareLink(token: open, userID: user.id) == false)
            #expect(try await store.liveShare(token: open, now: now) == nil)
        }
    }

    /// A live device track shows its figures while it grows (it showed 0 m until the gap finished it): fixes
    /// 0.001° of latitude apart (111.2 m on the mean sphere, R = 6,371,008.8 m: 0.001 × π/180 × R) one a
    /// minute, each in its own post. The figures may lag by at most a minute of riding, here one fix.
    @Test(arguments: StoreKind.allCases) func aGrowingDeviceTrackHasItsFigures(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            let step = 0.001 * Double.pi / 180 * 6_371_008.8
            var trackID: TrackID?
            for minute in 0..<30 {
                let result = try await store.ingest(Self.fixes([minute]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
                let id = try #require(result.liveTrackID)
                #expect(trackID == nil || trackID == id)
                trackID = id
                let summary = try #require(try await store.trackSummary(id: id, userID: user.id))
                #expect(summary.state == .recording && summary.pointCount == minute + 1)
                // Covered: every fix but at most the newest one.
                let covered = Double(max(0, minute - 1)) * step
                #expect(summary.distanceMeters >= covered * 0.98, "after fix \(minute): \(summary.distanceMeters) m")
                #expect(summary.distanceMeters <= Double(minute) * step * 1.02)
                if minute > 1 { #expect(summary.startTime != nil) }
            }
        }
    }

    /// Several devices whose figures fall due in one group commit: each track's figures are its own fixes', by known
    /// geometry (north, east, north again), and every fix reads back in its own track, in order, batch after batch.
    @Test(arguments: StoreKind.allCases) func devicesWhoseFiguresFallDueTogetherEachGetTheirOwn(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let devices = [try await Self.device(store, user: user.id, name: "North"), try await Self.device(store, user: user.id, name: "East"),
                           try await Self.device(store, user: user.id, name: "Short")]
            // 0.001° steps a second apart: north, east (at 46.5°N), and north for only a few fixes.
            let north = 0.001 * Double.pi / 180 * 6_371_008.8
            let east = north * cos(46.5 * Double.pi / 180)
            func fixes(_ device: Int, _ range: Range<Int>) -> [TrackerFix] {
                range.map { index in
                    TrackerFix(
                        time: Self.start.addingTimeInterval(Double(index) * 20), latitude: 46.5 + (device == 1 ? 0 : Double(index) * 0.001),
                        longitude: 6.6 + (device == 1 ? Double(index) * 0.001 : 0))
                }
            }
            let counts = [0, 70, 150, 230]
            var trackIDs: [TrackID?] = [nil, nil, nil]
            for batch in 1..<counts.count {
                let range = counts[batch - 1]..<counts[batch]
                let posts = [
                    DevicePost(fixes: fixes(0, range), deviceID: devices[0].id, userID: user.id),
                    DevicePost(fixes: fixes(1, range), deviceID: devices[1].id, userID: user.id),
                    DevicePost(fixes: fixes(2, range.lowerBound..<(range.lowerBound + 4)), deviceID: devices[2].id, userID: user.id),
                ]
                let results = try await store.ingest(posts, gapSeconds: 1800)
                for (index, result) in results.enumerated() {
                    let id = try #require(try result.get().liveTrackID)
                    #expect(trackIDs[index] == nil || trackIDs[index] == id)
                    trackIDs[index] = id
                }
                let done = counts[batch]
                // Every fix of the first two is covered (a minute of fixes has come since the last figures).
                for (index, step) in [(0, north), (1, east)] {
                    let summary = try #require(try await store.trackSummary(id: trackIDs[index]!, userID: user.id))
                    #expect(summary.pointCount == done)
                    let expected = Double(done - 1) * step
                    #expect(abs(summary.distanceMeters - expected) < expected * 0.005, "device \(index) after \(done): \(summary.distanceMeters) m")
                    let track = try #require(try await store.track(id: trackIDs[index]!, userID: user.id))
                    let points = try track.content.tracks[0].segments[0].points.points()
                    #expect(points.count == done)
                    #expect(points.map(\.longitude) == fixes(index, 0..<done).map(\.longitude))
                    #expect(points.map(\.latitude) == fixes(index, 0..<done).map(\.latitude))
                }
                // The short one: 4 fixes a batch, each batch a later part of its line (gaps of under the 30 minutes).
                let short = try #require(try await store.track(id: trackIDs[2]!, userID: user.id))
                #expect(try short.content.tracks[0].segments[0].points.points().count == 4 * batch)
            }
            #expect(Set(trackIDs.compactMap { $0 }).count == 3)
        }
    }

    /// Fixes posted one at a time wait in deviceFix and go to the track's blocks each time its figures are
    /// computed again (a minute of 1-s fixes), as short tail blocks (a binary counter), not a rewrite of the last
    /// full block each time; the points, waiting or not, read back in order and, once the track is finished, are
    /// packed full again.
    @Test(arguments: StoreKind.allCases) func singleFixPostsReadBackInOrderAndArePackedWhenFinished(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            let count = 2_500
            var trackID: TrackID?
            for index in 0..<count {
                let fix = TrackerFix(
                    time: Self.start.addingTimeInterval(Double(index)), latitude: 46.5 + Double(index) * 1e-5, longitude: 6.6,
                    speedMetersPerSecond: 1.1)
                trackID = try await store.ingest([fix], deviceID: device.id, userID: user.id, gapSeconds: 1800).liveTrackID
            }
            let id = try #require(trackID)
            let live = try await pointBlockSizes(store, trackID: id)
            // At most a minute of fixes (60) waits outside the blocks: the figures are computed once a minute of fixes.
            let waiting = count - live.reduce(0, +)
            #expect((0..<60).contains(waiting), "\(waiting) fixes outside the blocks")
            // Appends of ~60 points merged as a binary counter: no block over 1,024, a handful of blocks in all.
            #expect(live.allSatisfy { (1...1024).contains($0) } && live.count <= 8, "\(live)")
            let track = try #require(try await store.track(id: id, userID: user.id))
            let latitudes = try track.content.tracks[0].segments[0].points.points().map(\.latitude)
            #expect(latitudes.count == count)
            #expect(zip(latitudes, latitudes.dropFirst()).allSatisfy { $0 < $1 })
            // The figures, computed as the fixes came: 2,500 fixes 1e-5° apart going north, the last minute's
            // (at most 60) not counted yet.
            let step = 1e-5 * Double.pi / 180 * 6_371_008.8
            let summary = try #require(try await store.trackSummary(id: id, userID: user.id))
            #expect(summary.distanceMeters >= Double(count - 61) * step * 0.99 && summary.distanceMeters <= Double(count - 1) * step * 1.01)
            // Finished by the idle check: packed into full blocks.
            let finished = try await store.finishIdleDeviceTracks(gapSeconds: 1800, now: Date().addingTimeInterval(7200))
            #expect(finished == [id])
            #expect(try await pointBlockSizes(store, trackID: id) == [1024, 1024, 452])
            let again = try #require(try await store.track(id: id, userID: user.id))
            #expect(try again.content.tracks[0].segments[0].points.points().map(\.latitude) == latitudes)
        }
    }

    /// A device that stops posting has its track saved once the gap has passed, counted from its last fix and
    /// from its last post; not before.
    @Test(arguments: StoreKind.allCases) func aSilentDevicesTrackIsFinishedAfterTheGap(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            // Fixes of the last ten minutes (by the clock): the track is live.
            let now = Date()
            let recent = (0..<10).map { index in
                TrackerFix(time: now.addingTimeInterval(Double(index - 10) * 60), latitude: 46.5 + Double(index) * 0.001, longitude: 6.6)
            }
            let live = try #require(try await store.ingest(recent, deviceID: device.id, userID: user.id, gapSeconds: 1800).liveTrackID)
            #expect(try await store.finishIdleDeviceTracks(gapSeconds: 1800, now: now).isEmpty)
            #expect(try await store.finishIdleDeviceTracks(gapSeconds: 1800, now: now.addingTimeInterval(25 * 60)).isEmpty)
            #expect(try await store.finishIdleDeviceTracks(gapSeconds: 1800, now: now.addingTimeInterval(31 * 60)) == [live])
            let summary = try #require(try await store.trackSummary(id: live, userID: user.id))
            #expect(summary.state == .complete && summary.pointCount == 10)
            #expect(summary.distanceMeters > 900 && summary.distanceMeters < 1100)  // 9 steps of 0.001° ≈ 1,001 m
            // Nothing left to finish; the device's next fix starts a new track.
            #expect(try await store.finishIdleDeviceTracks(gapSeconds: 1800, now: now.addingTimeInterval(3600)).isEmpty)
            let next = try await store.ingest(
                [TrackerFix(time: now.addingTimeInterval(60), latitude: 46.6, longitude: 6.6)], deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(next.liveTrackID != nil && next.liveTrackID != live)
        }
    }

    /// A device's live track holds at most the server's points per track (as uploads and recordings do): a post that
    /// fills it goes on in a new track, nothing lost; a fix within the full track's time is stored in no track.
    @Test(arguments: StoreKind.allCases) func aFullDeviceTrackGoesOnInANewOne(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await Self.device(store, user: user.id)
            func post(_ minutes: [Int]) async throws -> IngestResult {
                let post = DevicePost(fixes: Self.fixes(minutes), deviceID: device.id, userID: user.id, maximumTrackPoints: 5)
                return try #require(try await store.ingest([post], gapSeconds: 1800).first).get()
            }
            let first = try await post([0, 1, 2])
            let second = try await post([3, 4, 5, 6])  // 5 fills the first track: 5 and 6 start the next
            let firstID = try #require(first.liveTrackID)
            #expect(second.finishedTrackIDs == [firstID])
            let secondID = try #require(second.liveTrackID)
            #expect(secondID != firstID)
            let third = try await post([7, 8, 9, 10, 11, 12])  // 7–9 fill the second; 10–12 start a third
            #expect(third.finishedTrackIDs == [secondID])
            let thirdID = try #require(third.liveTrackID)
            #expect(try await post([13, 14]).liveTrackID == thirdID)  // full now
            // Within the full live track's time (12.5 min), before its last fix: stored, in no track.
            let late = try #require(try await store.ingest(
                [DevicePost(fixes: Self.fixes([25], secondsApart: 30), deviceID: device.id, userID: user.id, maximumTrackPoints: 5)],
                gapSeconds: 1800).first).get()
            #expect(late.storedCount == 1 && late.lateCount == 1, "\(late)")
            let fourth = try await post([15])
            #expect(fourth.finishedTrackIDs == [thirdID])
            let fourthID = try #require(fourth.liveTrackID)
            var times: [[Date]] = []
            for id in [firstID, secondID, thirdID, fourthID] {
                let track = try #require(try await store.track(id: id, userID: user.id))
                #expect(track.summary.pointCount <= 5)
                times.append(try track.content.tracks[0].segments.flatMap { try $0.points.points() }.compactMap { $0.time?.date })
            }
            // Every fix of the ride in exactly one track, in order: nothing lost; the late one in none.
            #expect(times.flatMap { $0 } == Self.fixes(Array(0...15)).map(\.time))
            #expect(times.map(\.count) == [5, 5, 5, 1])
            #expect(try await store.trackSummary(id: firstID, userID: user.id)?.state == .complete)
            #expect(try await store.trackSummary(id: secondID, userID: user.id)?.state == .complete)
        }
    }

    /// The cap's rule alone: a full track's next fix after its last starts one, a fix within its time is in none.
    @Test func theFullTrackRule() {
        var placement = DeviceTrackPlacement(hasLiveTrack: true, bounds: (0, 60_000), gapMilliseconds: 1_800_000, pointCount: 2, maximumPoints: 3)
        #expect(placement.place(120_000) == .append(finishesLive: false, startsTrack: false))
        #expect(placement.place(30_000) == .late)
        #expect(placement.place(180_000) == .append(finishesLive: true, startsTrack: true))
        #expect(placement.place(170_000) == .rebuild)
        #expect(placement.place(240_000) == .append(finishesLive: false, startsTrack: false))
        #expect(placement.place(300_000) == .append(finishesLive: true, startsTrack: true))
    }
}
