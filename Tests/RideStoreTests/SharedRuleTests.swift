import Foundation
import Testing

import RideKit
@testable import RideStore

/// Rules that had drifted between the two stores (issue 19, §2), now in the store core once: each holds on both.
@Suite struct SharedRuleTests {
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    /// Ten fixes a minute apart going north: nine steps of 0.001° latitude, about 1,000 m.
    static var tenFixes: [TrackerFix] {
        (0..<10).map { minute in
            TrackerFix(time: start.addingTimeInterval(Double(minute) * 60), latitude: 46.5 + Double(minute) * 0.001, longitude: 6.6)
        }
    }

    @Test(arguments: StoreKind.allCases) func deletingADeviceFinishesItsLiveRide(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await store.createDevice(
                NewDevice(name: "Phone", tokenHash: SecretToken.hash(SecretToken.make()), protocolName: "any"), userID: user.id)
            let live = try #require(try await store.ingest(Self.tenFixes, deviceID: device.id, userID: user.id, gapSeconds: 1800).liveTrackID)
            #expect(try await store.activeRecordings(userID: user.id).count == 1)
            #expect(try await store.deleteDevice(id: device.id, userID: user.id))
            // The ride is saved, complete, with its figures; nothing is left recording.
            #expect(try await store.activeRecordings(userID: user.id).isEmpty)
            let summary = try #require(try await store.trackSummary(id: live, userID: user.id))
            #expect(summary.state == .complete && summary.pointCount == 10)
            #expect(summary.distanceMeters > 900 && summary.distanceMeters < 1100)
            let track = try #require(try await store.track(id: live, userID: user.id))
            #expect(track.content.trackPointCount == 10)
            // A second delete finds nothing.
            #expect(try await !store.deleteDevice(id: device.id, userID: user.id))
        }
    }

    @Test(arguments: StoreKind.allCases) func userNamesFollowOneRule(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            #expect(try await store.createUser(name: "  anna \n", passwordHash: nil).name == "anna")
            let longest = String(repeating: "é", count: 500)  // 1,000 bytes
            #expect(try await store.createUser(name: longest, passwordHash: nil).name == longest)
            for name in ["", "   ", longest + "x", "a\u{0}b"] {
                do {
                    _ = try await store.createUser(name: name, passwordHash: nil)
                    Issue.record("the name \(name.debugDescription) was taken")
                } catch RideStoreError.invalid(field: "name", _) {
                    // Refused for its name, as it should be.
                }
            }
            #expect(try await store.users().map(\.name) == ["anna", longest])
        }
    }

    /// A point block that claims more points than a block holds, or a segment at an impossible place, is damage:
    /// both stores say so instead of reading on.
    @Test(arguments: StoreKind.allCases) func damagedPointRowsAreSaidToBeDamaged(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await store.createDevice(
                NewDevice(name: "Phone", tokenHash: SecretToken.hash(SecretToken.make()), protocolName: "any"), userID: user.id)
            let live = try #require(try await store.ingest(Self.tenFixes, deviceID: device.id, userID: user.id, gapSeconds: 1800).liveTrackID)
            #expect(try await store.finishIdleDeviceTracks(gapSeconds: 60, now: Date().addingTimeInterval(3600)) == [live])
            #expect(try await store.track(id: live, userID: user.id)?.content.trackPointCount == 10)

            try await executeRaw(store, sqlite: "UPDATE pointBlock SET pointCount = 5000", postgres: "UPDATE point_blocks SET point_count = 5000")
            await #expect(throws: RideStoreError.self) { _ = try await store.track(id: live, userID: user.id) }
            try await executeRaw(store, sqlite: "UPDATE pointBlock SET pointCount = 10", postgres: "UPDATE point_blocks SET point_count = 10")
            #expect(try await store.track(id: live, userID: user.id)?.content.trackPointCount == 10)

            try await executeRaw(store, sqlite: "UPDATE segment SET part = 2000000", postgres: "UPDATE segments SET part = 2000000")
            do {
                _ = try await store.track(id: live, userID: user.id)
                Issue.record("a segment at part 2,000,000 was read")
            } catch RideStoreError.damaged {
                // Said to be damaged, as it should be.
            }
        }
    }
}
