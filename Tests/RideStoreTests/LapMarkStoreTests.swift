import Foundation
import Testing

import RideKit
@testable import RideStore

/// The Lap button's marks kept with a recording's track on both stores: sorted, each time once (a retry adds
/// nothing), refused for another user's recording or an impossible time, and still there once the ride is saved.
@Suite struct LapMarkStoreTests {
    @Test(arguments: StoreKind.allCases) func marksAreKeptOncePerTimeWithTheTrack(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let other = try await store.createUser(name: "other", passwordHash: nil)
            let recording = try await store.startRecording(NewRecording(name: "Laps"), userID: user.id)
            _ = try await store.appendFixes(RecordingTests.fixes(0..<100), recordingID: recording.id, userID: user.id)
            let t1: Int64 = 1_700_000_060_000, t0: Int64 = 1_700_000_030_500
            #expect(try await store.addLapMark(recordingID: recording.id, timeMilliseconds: t1, userID: user.id) == [t1])
            #expect(try await store.addLapMark(recordingID: recording.id, timeMilliseconds: t0, userID: user.id) == [t0, t1])
            #expect(try await store.addLapMark(recordingID: recording.id, timeMilliseconds: t1, userID: user.id) == [t0, t1])
            await #expect(throws: RideStoreError.self) {
                _ = try await store.addLapMark(recordingID: recording.id, timeMilliseconds: 5, userID: user.id)
            }
            await #expect(throws: RideStoreError.notFound(kind: "recording", id: recording.id.rawValue)) {
                _ = try await store.addLapMark(recordingID: recording.id, timeMilliseconds: t1, userID: other.id)
            }
            let stats = try #require(try await store.track(id: recording.trackID, userID: user.id)).content.document().stats()
            let saved = try await store.stopRecording(id: recording.id, userID: user.id, stats: stats, expecting: nil)
            #expect(try await store.lapMarks(trackID: saved.id, userID: user.id) == [t0, t1])
            #expect(try await store.lapMarks(trackID: saved.id, userID: other.id).isEmpty)
        }
    }

    @Test func theRuleKeepsMarksSortedDistinctAndBounded() throws {
        var text: String?
        for time in [3_000_000_000_000, 2_000_000_000_000, 3_000_000_000_000] as [Int64] { text = try LapRules.adding(time, to: text).text }
        #expect(LapRules.decode(text) == [2_000_000_000_000, 3_000_000_000_000])
        #expect(LapRules.decode("not json").isEmpty && LapRules.decode(nil).isEmpty)
        let full = LapRules.encode((0..<Int64(LapRules.maximumLapMarks)).map { 2_000_000_000_000 + $0 })
        #expect(throws: RideStoreError.self) { _ = try LapRules.adding(2_500_000_000_000, to: full) }
    }
}
