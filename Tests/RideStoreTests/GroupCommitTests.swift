import Foundation
import Testing
import TestSupport

import RideKit
@testable import RideStore

/// Group commit (`IngestCommitter`): posts that arrive together are stored in one transaction, set-wise on
/// PostgreSQL. Its truth is the posts one at a time: the same posts, sent once in batches by one user's devices and
/// once one by one by another user's, must end the same way, post by post (stored, duplicates, late, tracks finished)
/// and in what is stored (which fixes make which track, and each track's points in time order, waiting fixes and
/// blocks together).
@Suite struct GroupCommitTests {
    /// A phone app's posts from three devices: mostly a fix a minute, sometimes a pause longer than the gap (a new
    /// track), a fix out of order (the track is written again), one far too old (late), a post sent again (a replay).
    static func posts(count: Int, seed: UInt64) -> [(device: Int, minutes: [Int])] {
        var random = SeededGenerator(seed: seed)
        var clocks = [0, 0, 0]
        var posts: [(device: Int, minutes: [Int])] = []
        for _ in 0..<count {
            let device = Int.random(in: 0..<3, using: &random)
            if let last = posts.last(where: { $0.device == device }), Int.random(in: 0..<10, using: &random) == 0 {
                posts.append(last)
                continue
            }
            var minutes: [Int] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<20, using: &random) {
                case 0, 1: clocks[device] += 45  // more than the 30-minute gap
                case 2, 3: minutes.append(clocks[device] - Int.random(in: 1...3, using: &random))  // out of order, or a duplicate
                case 4: minutes.append(clocks[device] - 200)  // before the live track by more than the gap
                default: clocks[device] += 1
                }
                minutes.append(clocks[device])
            }
            posts.append((device, minutes))
        }
        return posts
    }

    static func fixes(_ minutes: [Int], device: Int) -> [TrackerFix] {
        minutes.map { minute in
            TrackerFix(
                time: AccountStoreTests.start.addingTimeInterval(Double(minute) * 60), latitude: 46.5 + Double(minute) * 0.0005,
                longitude: 6.6 + Double(device) * 0.01, elevationMeters: Double(400 + minute % 7), speedMetersPerSecond: 3)
        }
    }

    /// What a user's devices' posts left: each track as its fixes' (device, minute), sorted, and whether the track's
    /// points are those fixes in time order.
    static func outcome(_ store: any RideStore, user: UserID, devices: [DeviceID], cap: Int?) async throws -> [[String]] {
        var tracks: [TrackID: [String]] = [:]
        for fix in try await store.deviceFixes(userID: user, after: 0, limit: 10_000) {
            guard let trackID = fix.trackID, let device = devices.firstIndex(of: fix.deviceID) else { continue }
            let minute = Int((fix.fix.time.timeIntervalSince(AccountStoreTests.start) / 60).rounded())
            tracks[trackID, default: []].append("\(device)@\(minute)")
        }
        var described: [[String]] = []
        for (trackID, fixes) in tracks {
            let track = try #require(try await store.track(id: trackID, userID: user))
            let points = try track.content.document().tracks.flatMap(\.segments).flatMap(\.points)
            let minutes = points.compactMap { $0.time?.date }.map { Int(($0.timeIntervalSince(AccountStoreTests.start) / 60).rounded()) }
            let expected = fixes.map { Int($0.split(separator: "@")[1])! }.sorted()
            #expect(minutes == expected, "track \(trackID): its points are not its fixes in time order")
            #expect(track.summary.pointCount == fixes.count)
            #expect(fixes.count <= cap ?? .max, "track \(trackID) holds more than the cap")
            described.append(fixes.sorted())
        }
        return described.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// Without a cap on a track's points, and with a small one (a full track goes on in a new one, and a late fix
    /// within it is in no track: `DeviceTrackPlacement`).
    @Test(arguments: StoreKind.allCases, [nil, 7]) func postsInBatchesEndAsThePostsOneAtATime(_ kind: StoreKind, cap: Int?) async throws {
        try await withStore(kind) { store in
            let batched = try await store.createUser(name: "batched", passwordHash: nil)
            let single = try await store.createUser(name: "single", passwordHash: nil)
            var batchedDevices: [DeviceID] = [], singleDevices: [DeviceID] = []
            for index in 0..<3 {
                batchedDevices.append(try await AccountStoreTests.device(store, user: batched.id, name: "Phone \(index)").id)
                singleDevices.append(try await AccountStoreTests.device(store, user: single.id, name: "Phone \(index)").id)
            }
            let posts = Self.posts(count: 160, seed: 19)
            var random = SeededGenerator(seed: 7)
            var batchedResults: [IngestResult] = []
            var index = 0
            while index < posts.count {
                let size = min(posts.count - index, Int.random(in: 1...12, using: &random))
                let batch = posts[index..<index + size].map {
                    DevicePost(
                        fixes: Self.fixes($0.minutes, device: $0.device), deviceID: batchedDevices[$0.device], userID: batched.id,
                        maximumTrackPoints: cap)
                }
                batchedResults += try await store.ingest(batch, gapSeconds: 1800).map { try $0.get() }
                index += size
            }
            var singleResults: [IngestResult] = []
            for post in posts {
                let one = DevicePost(
                    fixes: Self.fixes(post.minutes, device: post.device), deviceID: singleDevices[post.device], userID: single.id,
                    maximumTrackPoints: cap)
                singleResults.append(try await store.ingest([one], gapSeconds: 1800)[0].get())
            }
            func summary(_ result: IngestResult) -> [Int] {
                [result.storedCount, result.duplicateCount, result.lateCount, result.finishedTrackIDs.count, result.liveTrackID == nil ? 0 : 1]
            }
            for (offset, (one, other)) in zip(batchedResults, singleResults).enumerated() {
                #expect(summary(one) == summary(other), "post \(offset) \(posts[offset])")
            }
            // The posts did what they were made to: tracks ended by gaps, fixes out of order, late ones, replays.
            #expect(singleResults.contains { !$0.finishedTrackIDs.isEmpty })
            #expect(singleResults.contains { $0.lateCount > 0 })
            #expect(singleResults.contains { $0.duplicateCount > 0 })
            let batchedTracks = try await Self.outcome(store, user: batched.id, devices: batchedDevices, cap: cap)
            let singleTracks = try await Self.outcome(store, user: single.id, devices: singleDevices, cap: cap)
            #expect(batchedTracks == singleTracks)
            #expect(batchedTracks.count > 6)
        }
    }
}
