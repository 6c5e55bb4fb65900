import Foundation
import RideKit
@testable import RideStore
import Testing

/// The server's storage limits (`StorageLimits`): a track over its point cap and an import past the user's
/// points are refused with what to do, nothing stored, on both stores; two imports at once cannot both pass.
@Suite struct StorageLimitTests {
    /// A GPX file with one `trk` per count, each with that many points a metre apart, timed a second apart.
    static func gpx(tracks counts: [Int], tag: String) -> Data {
        var text = "<gpx version=\"1.1\" creator=\"\(tag)\" xmlns=\"http://www.topografix.com/GPX/1/1\">"
        for (index, count) in counts.enumerated() {
            text += "<trk><name>\(tag) \(index)</name><trkseg>"
            for point in 0..<count {
                text += "<trkpt lat=\"\(46.0 + Double(point) * 0.000009)\" lon=\"\(7.0 + Double(index) * 0.01)\"><time>2024-05-01T10:\(String(format: "%02d:%02d", point / 60 % 60, point % 60))Z</time></trkpt>"
            }
            text += "</trkseg></trk>"
        }
        return Data((text + "</gpx>").utf8)
    }

    static func trackCount(_ library: TrackLibrary) async throws -> Int {
        try await library.store.tracks(TrackQuery(limit: 500), userID: library.userID).tracks.count
    }

    @Test(arguments: StoreKind.allCases)
    func aTrackOverItsPointCapIsRefusedAndTracksUnderItAreNot(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { base in
            var library = base
            library.limits = StorageLimits(maximumTrackPoints: 100, maximumUserPoints: nil)
            // Two tracks of 100: each within the cap.
            let fine = try await library.importData(Self.gpx(tracks: [100, 100], tag: "fine"), fileName: "fine.gpx")
            guard case .imported(_, let tracks, _) = fine.result else { Issue.record("not imported"); return }
            #expect(tracks.map(\.pointCount) == [100, 100])
            // One of 101: refused, saying the count, the cap and the setting; nothing of the file stored.
            let error = await #expect(throws: RideStoreError.self) {
                try await library.importData(Self.gpx(tracks: [10, 101], tag: "over"), fileName: "over.gpx")
            }
            #expect(error?.description.contains("101 points, more than the 100") == true, "\(String(describing: error))")
            #expect(error?.description.contains("--max-track-points") == true)
            // As one track (the points of both trk together), 110 points: refused too.
            var options = ImportOptions()
            options.oneTrackPerFile = true
            await #expect(throws: RideStoreError.self) {
                try await library.importData(Self.gpx(tracks: [55, 55], tag: "joined"), fileName: "joined.gpx", options: options)
            }
            #expect(try await Self.trackCount(library) == 2)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func anImportPastTheUsersPointsIsRefusedEvenWhenTwoComeAtOnce(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { base in
            var library = base
            library.limits = StorageLimits(maximumTrackPoints: nil, maximumUserPoints: 500)
            _ = try await library.importData(Self.gpx(tracks: [200], tag: "first"), fileName: "first.gpx")
            let error = await #expect(throws: RideStoreError.self) {
                try await library.importData(Self.gpx(tracks: [301], tag: "second"), fileName: "second.gpx")
            }
            #expect(error?.description.contains("501 points") == true, "\(String(describing: error))")
            #expect(try await Self.trackCount(library) == 1)

            // 200 stored; two imports of 200 each at once: one fits (400), both do not (600).
            let limited = library
            let outcomes = await withTaskGroup(of: Bool.self) { group in
                for tag in ["a", "b"] {
                    group.addTask {
                        (try? await limited.importData(Self.gpx(tracks: [200], tag: tag), fileName: "\(tag).gpx")) != nil
                    }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1, "\(outcomes)")
            #expect(try await Self.trackCount(library) == 2)

            // Without limits (the command line), the same file is imported.
            _ = try await base.importData(Self.gpx(tracks: [301], tag: "second"), fileName: "second.gpx")
            #expect(try await Self.trackCount(base) == 3)
        }
    }

    /// A live recording is held to the same limits, batch by batch: a batch that would take its track past the
    /// point cap, or the user's tracks past their points, is refused whole (nothing of it stored, the sequence
    /// not moved) with what to do; the batches before it stay, and a smaller batch still fits.
    @Test(arguments: StoreKind.allCases)
    func aRecordingBatchPastTheLimitsIsRefusedWholeAndNothingOfItIsStored(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let store = library.store, user = library.userID
            // 40 points already in an imported track count for the user's total.
            _ = try await library.importData(Self.gpx(tracks: [40], tag: "imported"), fileName: "imported.gpx")
            let recording = try await store.startRecording(NewRecording(name: "Long ride"), userID: user)
            let limits = StorageLimits(maximumTrackPoints: 100, maximumUserPoints: 160)
            func append(_ range: Range<Int>) async throws -> FixAppendResult {
                try await store.appendFixes(
                    RecordingTests.fixes(range), acknowledgedThrough: nil, recordingID: recording.id, userID: user, expecting: nil,
                    limits: limits)
            }
            #expect(try await append(0..<90).recording.pointCount == 90)
            // 90 + 11 = 101 > 100 in one track.
            let overTrack = await #expect(throws: RideStoreError.self) { try await append(90..<101) }
            #expect(overTrack?.description.contains("101 points in one track, more than the 100") == true, "\(String(describing: overTrack))")
            #expect(overTrack?.description.contains("--max-track-points") == true)
            var stored = try #require(try await store.recording(id: recording.id, userID: user))
            #expect(stored.pointCount == 90)
            #expect(stored.lastClientSequence == 89)
            // Exactly at the cap is allowed.
            #expect(try await append(90..<100).recording.pointCount == 100)

            // A second recording: 40 + 100 stored, so 21 more make 161 > 160 for the user.
            let second = try await store.startRecording(NewRecording(name: "Second"), userID: user)
            let overUser = await #expect(throws: RideStoreError.self) {
                try await store.appendFixes(
                    RecordingTests.fixes(0..<21), acknowledgedThrough: nil, recordingID: second.id, userID: user, expecting: nil, limits: limits)
            }
            #expect(overUser?.description.contains("161 points") == true, "\(String(describing: overUser))")
            #expect(overUser?.description.contains("--max-user-points") == true)
            stored = try #require(try await store.recording(id: second.id, userID: user))
            #expect(stored.pointCount == 0)
            let fits = try await store.appendFixes(
                RecordingTests.fixes(0..<20), acknowledgedThrough: nil, recordingID: second.id, userID: user, expecting: nil, limits: limits)
            #expect(fits.recording.pointCount == 20)
        }
    }
}
