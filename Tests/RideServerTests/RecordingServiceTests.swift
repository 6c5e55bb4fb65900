import Foundation
import RideKit
@testable import RideServer
import Testing

@Suite struct RecordingServiceTests {
    private func fixes(_ range: ClosedRange<Int64>) -> [RecordingFix] {
        range.map { RecordingFix(sequence: $0, latitude: 37.33 + Double($0) * 5e-5, longitude: -122.03, time: GPXTime(secondsSince1970: 1_700_000_000 + $0)) }
    }

    @Test func recordersBeyondTheCacheAreRebuiltWhenAskedFor() async throws {
        let service = RecordingService(repository: InMemoryRecordingRepository(), maximumCachedRecordings: 2)
        var ids: [String] = []
        for index in 0..<4 {
            let (info, _) = try await service.start(NewRecordingInfo(name: "r\(index)", options: .init(), startedAt: Date()))
            _ = try await service.append(fixes(1...10), to: info.id)
            ids.append(info.id)
        }
        #expect(await service.cachedCount == 2)
        // The first one was dropped from memory; it comes back whole from the repository.
        let (_, recorder) = try await service.snapshot(id: ids[0])
        #expect(recorder.lastSequence == 10 && recorder.segments.first?.points.count == 10)
        let (_, update) = try await service.append(fixes(5...12), to: ids[0])
        #expect(update.storedCount == 2 && update.duplicateCount == 6)
    }

    @Test func aLongRideIsRebuiltInBatchesTheRecorderTakes() async throws {
        let repository = InMemoryRecordingRepository()
        let first = RecordingService(repository: repository)
        let (info, _) = try await first.start(NewRecordingInfo(name: "long", options: .init(), startedAt: Date()))
        for start in stride(from: Int64(1), through: 9_000, by: 3_000) {
            _ = try await first.append(fixes(start...(start + 2_999)), to: info.id)
        }
        // Another instance (or a restarted server) on the same repository.
        let second = RecordingService(repository: repository)
        let (_, recorder) = try await second.snapshot(id: info.id)
        #expect(recorder.segments.first?.points.count == 9_000 && recorder.lastSequence == 9_000)
    }

    @Test func unknownIDsAreNotRemembered() async throws {
        let service = RecordingService(repository: InMemoryRecordingRepository())
        for index in 0..<50 {
            await #expect(throws: RecordingRepositoryError.self) { try await service.snapshot(id: "nope\(index)") }
        }
        #expect(await service.cachedCount == 0)
    }

    @Test func concurrentBatchesForOneRecordingAreAppliedOneAtATime() async throws {
        let service = RecordingService(repository: InMemoryRecordingRepository())
        let (info, _) = try await service.start(NewRecordingInfo(name: "race", options: .init(), startedAt: Date()))
        let batches = stride(from: Int64(1), through: 200, by: 10).map { fixes($0...($0 + 9)) }
        // Every batch sent twice, all at once: each fix must be stored exactly once.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in batches + batches {
                group.addTask { _ = try await service.append(batch, to: info.id) }
            }
            try await group.waitForAll()
        }
        let stored = try #require(await service.repository.loadRecording(id: info.id))
        #expect(Set(stored.fixes.map(\.fix.sequence)).count == stored.fixes.count)
        #expect(stored.fixes.map(\.fix.sequence) == stored.fixes.map(\.fix.sequence).sorted())
    }
}
