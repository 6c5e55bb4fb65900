import Foundation
import RideStore

/// Group commit for the phone apps' posts: posts that arrive while a transaction is being written wait and go
/// together in the next one, so many devices posting at once share one flush to the disk instead of paying one
/// each (with `synchronous = FULL` the flush is most of a small post's cost). A post is answered only once its
/// transaction is committed, so an acknowledged fix is as durable as before; alone, a post is written at once.
///
/// Each post keeps its own outcome (the store runs each in a savepoint).
public actor IngestCommitter {
    private let store: any RideStore
    private let gapSeconds: Double
    /// Points a device's live track may hold (`--max-track-points`): past it the next fix starts a new track.
    private let maximumTrackPoints: Int?
    /// Posts in one transaction at most: bounds a transaction's time when a burst arrives.
    private let maximumPosts: Int
    private var pending: [(post: DevicePost, continuation: CheckedContinuation<IngestResult, any Error>)] = []
    private var writing = false

    public init(store: any RideStore, gapSeconds: Double, maximumTrackPoints: Int? = nil, maximumPosts: Int = 512) {
        self.store = store
        self.gapSeconds = gapSeconds
        self.maximumTrackPoints = maximumTrackPoints
        self.maximumPosts = max(1, maximumPosts)
    }

    /// Stores the post with whatever else is waiting; returns once it is committed.
    public func submit(_ post: DevicePost) async throws -> IngestResult {
        var post = post
        if post.maximumTrackPoints == nil { post.maximumTrackPoints = maximumTrackPoints }
        return try await withCheckedThrowingContinuation { continuation in
            pending.append((post, continuation))
            if !writing {
                writing = true
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while !pending.isEmpty {
            let batch = Array(pending.prefix(maximumPosts))
            pending.removeFirst(batch.count)
            do {
                let results = try await store.ingest(batch.map(\.post), gapSeconds: gapSeconds)
                for (item, result) in zip(batch, results) { item.continuation.resume(with: result.mapError { $0 as any Error }) }
            } catch {
                for item in batch { item.continuation.resume(throwing: error) }
            }
        }
        writing = false
    }
}
