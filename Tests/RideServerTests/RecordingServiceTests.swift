import Foundation
import RideKit
import RideStore
@testable import RideServer
import Testing

@Suite struct RecordingServiceTests {
    /// A service on a fresh store in a temporary folder (kept alive by the returned `TemporaryStore`).
    private func service(maximumCachedRecordings: Int = 1_000) async throws -> (RecordingService, TemporaryStore) {
        let database = try TemporaryStore()
        return (RecordingService(library: try await database.open(), maximumCachedRecordings: maximumCachedRecordings), database)
    }

    private func fixes(_ range: ClosedRange<Int64>) -> [RecordingFix] {
        range.map { RecordingFix(sequence: $0, latitude: 37.33 + Double($0) * 5e-5, longitude: -122.03, time: GPXTime(secondsSince1970: 1_700_000_000 + $0)) }
    }

    @Test func recordersBeyondTheCacheAreRebuiltWhenAskedFor() async throws {
        let (service, database) = try await service(maximumCachedRecordings: 2)
        var ids: [String] = []
        for index in 0..<4 {
            let (info, _) = try await service.start(NewRecordingInfo(name: "r\(index)", options: .init(), startedAt: Date()))
            _ = try await service.append(fixes(1...10), to: info.id)
            ids.append(info.id)
        }
        #expect(await service.cachedCount == 2)
        // The first one was dropped from memory; it comes back whole from the store.
        let (_, recorder) = try await service.snapshot(id: ids[0])
        #expect(recorder.lastSequence == 10 && recorder.segments.first?.points.count == 10)
        let (_, update) = try await service.append(fixes(5...12), to: ids[0])
        #expect(update.storedCount == 2 && update.duplicateCount == 6)
        _ = database
    }

    @Test func aLongRideIsRebuiltInBatchesTheRecorderTakes() async throws {
        let database = try TemporaryStore()
        let first = RecordingService(library: try await database.open())
        let (info, _) = try await first.start(NewRecordingInfo(name: "long", options: .init(), startedAt: Date()))
        for start in stride(from: Int64(1), through: 9_000, by: 3_000) {
            _ = try await first.append(fixes(start...(start + 2_999)), to: info.id)
        }
        // Another instance (or a restarted server) on the same database.
        let second = RecordingService(library: try await database.open())
        let (_, recorder) = try await second.snapshot(id: info.id)
        #expect(recorder.segments.first?.points.count == 9_000 && recorder.lastSequence == 9_000)
    }

    @Test func unknownIDsAreNotRemembered() async throws {
        let (service, database) = try await service()
        for index in 0..<50 {
            await #expect(throws: RideStoreError.notFound(kind: "recording", id: "nope\(index)")) { try await service.snapshot(id: "nope\(index)") }
        }
        #expect(await service.cachedCount == 0)
        _ = database
    }

    @Test func concurrentBatchesForOneRecordingAreAppliedOneAtATime() async throws {
        let (service, database) = try await service()
        let (info, _) = try await service.start(NewRecordingInfo(name: "race", options: .init(), startedAt: Date()))
        let batches = stride(from: Int64(1), through: 200, by: 10).map { fixes($0...($0 + 9)) }
        // Every batch sent twice, all at once: each fix must be stored exactly once.
        let storedCount = try await withThrowingTaskGroup(of: Int.self) { group in
            for batch in batches + batches {
                group.addTask { try await service.append(batch, to: info.id).update.storedCount }
            }
            return try await group.reduce(0, +)
        }
        // What the answers said was stored is what the store holds (a batch that arrives after a later one is
        // taken as a duplicate, so fewer than 200 may be).
        let stored = try #require(await RecordingService.storedRecording(id: info.id, in: database.open()))
        #expect(stored.fixes.count == storedCount && stored.lastSequence == 200)
        #expect(Set(stored.fixes.map(\.fix.sequence)).count == stored.fixes.count)
        #expect(stored.fixes.map(\.fix.sequence) == stored.fixes.map(\.fix.sequence).sorted())
    }
}
