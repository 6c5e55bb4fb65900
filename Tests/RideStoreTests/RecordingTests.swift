import Foundation
import Testing

import RideKit
@testable import RideStore

/// A recording appends batches of fixes; a batch sent twice is stored once; pause starts a new segment.
@Suite struct RecordingTests {
    static func fixes(_ range: Range<Int>) -> [RecordedFix] {
        range.map { index in
            RecordedFix(
                sequence: Int64(index),
                point: TrackPoint(
                    latitude: (37.33 + Double(index) * 0.00005 * 1e7).rounded() / 1e7, longitude: -122.03, elevation: 50,
                    time: GPXTime(secondsSince1970: 1_700_000_000 + Int64(index))))
        }
    }

    @Test(arguments: StoreKind.allCases) func fixesArriveInBatchesAndReplaysAreStoredOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let recording = try await store.startRecording(NewRecording(name: "Commute"), userID: user.id)
            #expect(recording.state == .recording)
            #expect(try await store.tracks(TrackQuery(), userID: user.id).tracks.isEmpty)
            #expect(try await store.tracks(TrackQuery(includesRecordings: true), userID: user.id).tracks.map(\.state) == [.recording])

            var expected: [TrackPoint] = []
            // Batches of 7 across several blocks of 1,024, each sent twice, the second time shuffled.
            for start in stride(from: 0, to: 1500, by: 7) {
                let batch = Self.fixes(start..<min(start + 7, 1500))
                let first = try await store.appendFixes(batch, recordingID: recording.id, userID: user.id)
                #expect(first.appended == batch.map(\.point))
                #expect(first.replayedCount == 0)
                let again = try await store.appendFixes(batch.shuffled(), recordingID: recording.id, userID: user.id)
                #expect(again.appended.isEmpty)
                #expect(again.replayedCount == batch.count)
                expected += batch.map(\.point)
            }
            // Pause, resume: a new segment; a batch overlapping the last one keeps only the new fixes.
            _ = try await store.pauseRecording(id: recording.id, userID: user.id)
            let resumed = try await store.resumeRecording(id: recording.id, userID: user.id)
            #expect(resumed.segmentCount == 2)
            let overlap = try await store.appendFixes(Self.fixes(1495..<1510), recordingID: recording.id, userID: user.id)
            #expect(overlap.appended.count == 10)
            #expect(overlap.recording.lastClientSequence == 1509)
            #expect(overlap.recording.pointCount == 1510)

            await #expect(throws: RideStoreError.self) {
                try await store.appendFixes([RecordedFix(sequence: 2000, point: TrackPoint(latitude: 95, longitude: 0))], recordingID: recording.id, userID: user.id)
            }
            let track = try #require(try await store.track(id: recording.trackID, userID: user.id))
            let document = try track.content.document()
            #expect(document.tracks[0].segments.count == 2)
            #expect(document.tracks[0].segments[0].points == expected)
            #expect(document.tracks[0].segments[1].points == Self.fixes(1500..<1510).map(\.point))

            let stats = document.stats()
            let saved = try await store.stopRecording(id: recording.id, userID: user.id, stats: stats)
            #expect(saved.state == .complete)
            #expect(saved.distanceMeters == stats.distanceMeters)
            #expect(saved.pointCount == 1510)
            #expect(saved.preview.count > 1)
            // Stopping again answers the same; appending after stop is refused.
            #expect(try await store.stopRecording(id: recording.id, userID: user.id, stats: stats) == saved)
            await #expect(throws: RideStoreError.self) {
                try await store.appendFixes(Self.fixes(2000..<2001), recordingID: recording.id, userID: user.id)
            }
            #expect(try await store.tracks(TrackQuery(), userID: user.id).tracks.map(\.id) == [recording.trackID])
            #expect(try await store.activeRecordings(userID: user.id).isEmpty)
            #expect(try await store.recording(id: recording.id, userID: user.id)?.state == .stopped)
        }
    }

    @Test(arguments: StoreKind.allCases) func aPauseWithoutFixesDoesNotLeaveEmptySegments(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let recording = try await store.startRecording(NewRecording(name: "Short", kind: .run), userID: user.id)
            for _ in 0..<3 {
                _ = try await store.pauseRecording(id: recording.id, userID: user.id)
                _ = try await store.resumeRecording(id: recording.id, userID: user.id)
            }
            #expect(try await store.recording(id: recording.id, userID: user.id)?.segmentCount == 1)
            #expect(try await store.activeRecordings(userID: user.id).map(\.id) == [recording.id])
        }
    }
}

extension RecordingTests {
    /// Small batches leave a handful of blocks however many they are (the tail is a binary counter, `PointTail`, on
    /// both stores), and full blocks once the recording is stopped; a batch of more than a block between small ones
    /// leaves its full blocks whole.
    @Test(arguments: StoreKind.allCases) func aRecordingKeepsFewBlocksAndFullOnesOnceStopped(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let recording = try await store.startRecording(NewRecording(name: "Counter"), userID: user.id)
            for start in stride(from: 0, to: 1500, by: 7) {
                _ = try await store.appendFixes(Self.fixes(start..<min(start + 7, 1500)), recordingID: recording.id, userID: user.id)
            }
            let live = try await storedPointRows(store)
            #expect(live.segments == 1 && live.blocks <= 12, "\(live.blocks) blocks while recording")
            let track = try #require(try await store.track(id: recording.trackID, userID: user.id))
            #expect(try track.content.document().tracks[0].segments[0].points == Self.fixes(0..<1500).map(\.point))

            let stats = try track.content.document().tracks[0].stats(activity: .ride)
            _ = try await store.stopRecording(id: recording.id, userID: user.id, stats: stats)
            #expect(try await storedPointRows(store).blocks == 2)  // 1,024 and 476
            let stopped = try #require(try await store.track(id: recording.trackID, userID: user.id))
            #expect(try stopped.content.document().tracks[0].segments[0].points == Self.fixes(0..<1500).map(\.point))

            // Small batches, one of 2,100 fixes, small ones again: every point in order, full blocks once stopped.
            let second = try await store.startRecording(NewRecording(name: "Mixed"), userID: user.id)
            var sent = 0
            for size in [5, 3, 9, 2_100, 4, 4, 30, 1] {
                _ = try await store.appendFixes(Self.fixes(sent..<sent + size), recordingID: second.id, userID: user.id)
                sent += size
            }
            let mixed = try #require(try await store.track(id: second.trackID, userID: user.id))
            #expect(try mixed.content.document().tracks[0].segments[0].points == Self.fixes(0..<sent).map(\.point))
            _ = try await store.stopRecording(id: second.id, userID: user.id, stats: try mixed.content.document().tracks[0].stats(activity: .ride))
            #expect(try await storedPointRows(store).blocks == 2 + 3)  // 2,156 points: 1,024, 1,024 and 108
            let packed = try #require(try await store.track(id: second.trackID, userID: user.id))
            #expect(try packed.content.document().tracks[0].segments[0].points == Self.fixes(0..<sent).map(\.point))
        }
    }
}
