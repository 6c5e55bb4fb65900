import Foundation
import Testing

import RideKit
@testable import RideStore

/// `setRecordingRoute`: the route a recording follows is chosen, changed and dropped mid-ride, and kept.
@Suite struct RecordingRouteTests {
    @Test(arguments: StoreKind.allCases) func theRouteIsSetChangedDroppedAndKept(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            // Two saved tracks to follow: finished recordings of the user.
            var routes: [TrackID] = []
            for name in ["North loop", "South loop"] {
                let ride = try await store.startRecording(NewRecording(name: name), userID: user.id)
                routes.append(try await store.stopRecording(id: ride.id, userID: user.id, stats: TrackStats()).id)
            }
            let recording = try await store.startRecording(NewRecording(name: "Commute", routeTrackID: routes[0]), userID: user.id)
            #expect(recording.routeTrackID == routes[0])

            let changed = try await store.setRecordingRoute(id: recording.id, routeTrackID: routes[1], userID: user.id)
            #expect(changed.routeTrackID == routes[1])
            #expect(try await store.recording(id: recording.id, userID: user.id)?.routeTrackID == routes[1])
            let dropped = try await store.setRecordingRoute(id: recording.id, routeTrackID: nil, userID: user.id)
            #expect(dropped.routeTrackID == nil)
            #expect(try await store.recording(id: recording.id, userID: user.id)?.routeTrackID == nil)

            // Another user's track is no track of this user's; nothing changes.
            let other = try await store.createUser(name: "other", passwordHash: nil)
            let theirs = try await store.startRecording(NewRecording(name: "Theirs"), userID: other.id)
            let theirTrack = try await store.stopRecording(id: theirs.id, userID: other.id, stats: TrackStats()).id
            await #expect(throws: RideStoreError.notFound(kind: "track", id: theirTrack.rawValue)) {
                try await store.setRecordingRoute(id: recording.id, routeTrackID: theirTrack, userID: user.id)
            }
            // Nor is their recording this user's.
            await #expect(throws: RideStoreError.notFound(kind: "recording", id: theirs.id.rawValue)) {
                try await store.setRecordingRoute(id: theirs.id, routeTrackID: nil, userID: user.id)
            }
            #expect(try await store.recording(id: recording.id, userID: user.id)?.routeTrackID == nil)

            // Once stopped, the route is what it was.
            _ = try await store.setRecordingRoute(id: recording.id, routeTrackID: routes[0], userID: user.id)
            _ = try await store.stopRecording(id: recording.id, userID: user.id, stats: TrackStats())
            await #expect(throws: RideStoreError.self) {
                try await store.setRecordingRoute(id: recording.id, routeTrackID: nil, userID: user.id)
            }
            #expect(try await store.recording(id: recording.id, userID: user.id)?.routeTrackID == routes[0])
        }
    }
}
