import Foundation
import RideKit

/// The second core of an import: while the reader parses on the calling thread, this thread packs the
/// points into blocks, adds them to each track's figures and thins them into the preview. The reader hands
/// over a chunk of `PackedPoints.blockCapacity` points at a time, so a block is exactly a chunk.
///
/// At most `queueLimit` chunks wait, so memory stays bounded however fast the reader is; a small file never
/// starts the thread (the work is done in `finish()`).
final class ImportWorker: @unchecked Sendable {
    /// One call, queued.
    enum Job {
        /// A new `trk` (its own figures, unless the file is imported as one track).
        case beginTrack
        case beginSegment
        case points([TrackPoint])
    }

    /// What the worker made of one `trk`.
    struct TrackResult {
        /// The blocks of each segment.
        var segments: [[PointBlock]] = []
    }

    private static let queueLimit = 16

    let oneTrack: Bool
    let activity: ActivityKind
    private var worker: SerialWorker<Job>!
    // Owned by the worker (or by `finish()` when no thread ran).
    private var tracks: [TrackResult] = []
    private var accumulators: [TrackStatsAccumulator] = []
    private var previews: [PreviewSampler] = []

    init(oneTrack: Bool, activity: ActivityKind) {
        self.oneTrack = oneTrack
        self.activity = activity
        worker = SerialWorker(name: "bikeride import", queueLimit: Self.queueLimit) { [unowned self] job in run(job) }
    }

    /// Queues a job; the thread starts with the first chunk of points.
    func submit(_ job: Job) {
        if case .points = job {
            worker.submit(job)
        } else {
            worker.submit(job, startingThread: false)
        }
    }

    private func run(_ job: Job) {
        switch job {
        case .beginTrack:
            tracks.append(TrackResult())
            if !oneTrack || accumulators.isEmpty {
                accumulators.append(TrackStatsAccumulator(activity: activity, measuringEfforts: true))
                previews.append(PreviewSampler())
            }
        case .beginSegment:
            tracks[tracks.count - 1].segments.append([])
            accumulators[accumulators.count - 1].beginSegment()
        case .points(let points):
            let track = tracks.count - 1
            tracks[track].segments[tracks[track].segments.count - 1].append(PointBlock(points: points[...]))
            let figures = accumulators.count - 1
            for point in points {
                accumulators[figures].add(point)
                previews[figures].add(point.coordinate)
            }
        }
    }

    /// Stops the thread without finishing the work (the import failed).
    func discard() {
        worker.discard()
    }

    /// Waits for every job; returns each `trk`'s blocks, and the figures and preview of each `trk` (or of all of
    /// them together for a one-track import).
    func finish() -> (tracks: [TrackResult], stats: [TrackStats], previews: [[Coordinate]]) {
        worker.finish()
        return (tracks, accumulators.map { $0.finish() }, previews.map(\.line))
    }
}

/// Runs one job on a thread of its own (hashing a big file while it is parsed).
final class BackgroundJob<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<Value, any Error>?

    init(_ name: String, _ body: @escaping @Sendable () throws -> Value) {
        let thread = Thread { [self] in
            let outcome = Result { try body() }
            condition.lock()
            result = outcome
            condition.broadcast()
            condition.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Waits for the job and returns what it gave or threw.
    func value() throws -> Value {
        condition.lock()
        defer { condition.unlock() }
        while result == nil { condition.wait() }
        return try result!.get()
    }
}
