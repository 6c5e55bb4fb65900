import Foundation

/// A `TrackStatsAccumulator` that runs on a thread of its own, fed in chunks, so that reading a big file and
/// computing its figures use two cores instead of one. The figures are exactly those of the plain
/// accumulator: the same points in the same order reach it.
final class BackgroundStatsAccumulator: @unchecked Sendable {
    /// One call to the accumulator, queued.
    enum Step {
        case beginTrack
        case beginSegment
        case point(latitude: Double, longitude: Double, elevation: Double?, time: GPXTime?, speed: Double?)
    }

    /// 16k steps a chunk: large enough that handing one over costs nothing, small enough to stay in cache.
    private static let chunkSize = 16_384
    /// Chunks waiting at most: the reader blocks beyond that, so memory stays bounded whatever the file.
    private static let queueLimit = 4

    /// Touched only by the worker's thread (or, when it never started, by `finish()`).
    private var accumulator: TrackStatsAccumulator
    private var pending: [Step] = []
    private var worker: SerialWorker<[Step]>!
    private var result: TrackStats?

    init(activity: ActivityKind) {
        accumulator = TrackStatsAccumulator(activity: activity)
        pending.reserveCapacity(Self.chunkSize)
        worker = SerialWorker(name: "bikeride stats", queueLimit: Self.queueLimit) { [unowned self] chunk in consume(chunk) }
    }

    func beginTrack() { append(.beginTrack) }

    func beginSegment() { append(.beginSegment) }

    func add(latitude: Double, longitude: Double, elevation: Double?, time: GPXTime?, speed: Double? = nil) {
        append(.point(latitude: latitude, longitude: longitude, elevation: elevation, time: time, speed: speed))
    }

    /// Adds a track point (its position, elevation, time and recorded speed).
    func add(_ point: TrackPoint) {
        add(latitude: point.latitude, longitude: point.longitude, elevation: point.elevation, time: point.time, speed: point.speedMetersPerSecond)
    }

    /// Queues steps prepared elsewhere (a part of the file read on another thread), after those already added.
    func append(contentsOf steps: [Step]) {
        guard !steps.isEmpty else { return }
        if pending.count + steps.count < Self.chunkSize {
            pending.append(contentsOf: steps)
            return
        }
        handOver()
        worker.submit(steps)
    }

    private func append(_ step: Step) {
        pending.append(step)
        if pending.count >= Self.chunkSize { handOver() }
    }

    /// Queues the pending steps for the worker, starting it on first use.
    private func handOver() {
        guard !pending.isEmpty else { return }
        worker.submit(pending)
        pending = []
        pending.reserveCapacity(Self.chunkSize)
    }

    private func consume(_ chunk: [Step]) {
        // One access to the class's property for the whole chunk, not one (checked at run time) per step.
        Self.run(chunk, into: &accumulator)
    }

    private static func run(_ chunk: [Step], into accumulator: inout TrackStatsAccumulator) {
        for step in chunk {
            switch step {
            case .beginTrack: accumulator.beginTrack()
            case .beginSegment: accumulator.beginSegment()
            case .point(let latitude, let longitude, let elevation, let time, let speed):
                accumulator.add(latitude: latitude, longitude: longitude, elevation: elevation, time: time, speed: speed)
            }
        }
    }

    /// Waits for every queued point and returns the figures. Later calls return the same figures.
    func finish() -> TrackStats {
        if let result { return result }
        // Few points: the worker never started, and `finish` runs them here.
        if !pending.isEmpty { worker.submit(pending, startingThread: false) }
        pending = []
        worker.finish()
        let stats = accumulator.finish()
        result = stats
        return stats
    }
}
