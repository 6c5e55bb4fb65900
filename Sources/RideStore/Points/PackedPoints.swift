import Dispatch
import Foundation
import RideKit

/// A run of points (a track segment, a route, a file's waypoints) packed in compact blocks, the form in
/// which the store keeps and hands them over.
///
/// Points are appended one at a time and packed every `blockCapacity` points, so that a million-point
/// import holds about 10 MB of blocks instead of 150 MB of `TrackPoint`s; `points()` unpacks them again,
/// bit for bit (see `PointBlockEncoder` for the format).
///
///     var packed = PackedPoints()
///     for point in segment.points { packed.append(point) }
///     try packed.points() == segment.points   // true
public struct PackedPoints: Sendable, Hashable {
    /// Points a block holds. 1,024 keeps a block at about 10 KB for a typical ride (a few SQLite pages), so
    /// appending to a recording rewrites little, while a 100k-point track is only about 100 rows.
    public static let blockCapacity = 1024
    /// The most points a stored block may claim (a damaged count beyond it is refused, not allocated).
    static let maximumBlockCount = 1 << 20

    /// Sealed blocks.
    public private(set) var blocks: [PointBlock]
    /// Points not yet packed (fewer than `blockCapacity`).
    private var pending: [TrackPoint] = []
    /// All points, packed or pending.
    public private(set) var count: Int

    /// No points.
    public init() {
        blocks = []
        count = 0
    }

    /// The given points, packed.
    public init(_ points: some Sequence<TrackPoint>) {
        self.init()
        for point in points { append(point) }
    }

    /// Blocks as stored.
    public init(blocks: [PointBlock]) {
        self.blocks = blocks
        count = blocks.reduce(0) { $0 + $1.pointCount }
    }

    public var isEmpty: Bool { count == 0 }

    public mutating func append(_ point: TrackPoint) {
        if pending.isEmpty { pending.reserveCapacity(Self.blockCapacity) }
        pending.append(point)
        count += 1
        if pending.count == Self.blockCapacity { seal() }
    }

    public mutating func append(contentsOf points: some Sequence<TrackPoint>) {
        for point in points { append(point) }
    }

    /// Packs the pending points into a block of their own.
    private mutating func seal() {
        guard !pending.isEmpty else { return }
        blocks.append(PointBlock(pointCount: pending.count, data: PointBlockEncoder.encode(pending[...])))
        pending.removeAll(keepingCapacity: true)
    }

    /// Every block, the pending points packed into a last, shorter one.
    public var packedBlocks: [PointBlock] {
        var copy = self
        copy.seal()
        return copy.blocks
    }

    /// The points, unpacked. Long runs are unpacked on every core (blocks are independent), so that opening a
    /// 100k-point track takes milliseconds.
    public func points() throws(PointBlockError) -> [TrackPoint] {
        var result: [TrackPoint] = []
        result.reserveCapacity(count)
        if blocks.count >= Self.parallelBlockCount, ProcessInfo.processInfo.activeProcessorCount > 1 {
            let decoded = ParallelDecoding(blocks)
            for index in blocks.indices { result += try decoded.points(index) }
        } else {
            for block in blocks {
                let before = result.count
                try PointBlockDecoder.decode(block.data, into: &result)
                guard result.count - before == block.pointCount else {
                    throw .corrupt("a block says \(block.pointCount) points and holds \(result.count - before)")
                }
            }
        }
        result += pending
        return result
    }

    /// The positions alone, in order, one block unpacked at a time: what a line needs, without holding every
    /// point's whole record (a `TrackPoint` is ten times a `Coordinate`).
    public func coordinates() throws(PointBlockError) -> [Coordinate] {
        var result: [Coordinate] = []
        result.reserveCapacity(count)
        var block: [TrackPoint] = []
        for packed in blocks {
            block.removeAll(keepingCapacity: true)
            try PointBlockDecoder.decode(packed.data, into: &block)
            for point in block { result.append(Coordinate(latitude: point.latitude, longitude: point.longitude)) }
        }
        for point in pending { result.append(Coordinate(latitude: point.latitude, longitude: point.longitude)) }
        return result
    }

    /// Calls `body` with the points of each block in order (the pending ones last), one block unpacked at a
    /// time: what a reader of a long run uses so as never to hold all of its points (a `TrackPoint` is ten times
    /// its packed form).
    public func forEachBlock(_ body: ([TrackPoint]) throws -> Void) throws {
        var block: [TrackPoint] = []
        for packed in blocks {
            block.removeAll(keepingCapacity: true)
            try PointBlockDecoder.decode(packed.data, into: &block)
            guard block.count == packed.pointCount else {
                throw PointBlockError.corrupt("a block says \(packed.pointCount) points and holds \(block.count)")
            }
            try body(block)
        }
        if !pending.isEmpty { try body(pending) }
    }

    /// Every `stride`-th point (the first included) and the last one, unpacked one block at a time.
    ///
    ///     PackedPoints((0..<10).map(point)).strided(by: 4)   // points 0, 4, 8 and 9
    public func strided(by stride: Int) throws -> [TrackPoint] {
        precondition(stride >= 1)
        if stride == 1 { return try points() }
        var result: [TrackPoint] = []
        result.reserveCapacity(count / stride + 2)
        var index = 0
        var last: TrackPoint?
        try forEachBlock { block in
            for point in block {
                if index % stride == 0 { result.append(point); last = nil } else { last = point }
                index += 1
            }
        }
        if let last { result.append(last) }
        return result
    }

    /// From this many blocks on, unpacking is spread over the cores.
    static let parallelBlockCount = 16

    /// Equal when they hold the same points, however they are split into blocks.
    public static func == (lhs: PackedPoints, rhs: PackedPoints) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.blocks == rhs.blocks && lhs.pending == rhs.pending { return true }
        return (try? lhs.points()) == (try? rhs.points())
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(count) }
}

/// Up to `PackedPoints.blockCapacity` points, packed.
public struct PointBlock: Sendable, Hashable {
    public var pointCount: Int
    /// The packed bytes (format in `PointBlockEncoder`).
    public var data: Data

    public init(pointCount: Int, data: Data) {
        self.pointCount = pointCount
        self.data = data
    }

    /// Packs up to `PackedPoints.blockCapacity` points.
    public init(points: ArraySlice<TrackPoint>) {
        self.init(pointCount: points.count, data: PointBlockEncoder.encode(points))
    }

    /// The points of this block.
    public func points() throws(PointBlockError) -> [TrackPoint] {
        var result: [TrackPoint] = []
        try PointBlockDecoder.decode(data, into: &result)
        return result
    }
}

/// Blocks unpacked side by side, each into its own array.
private final class ParallelDecoding: @unchecked Sendable {
    private var results: [Result<[TrackPoint], PointBlockError>]

    init(_ blocks: [PointBlock]) {
        results = Array(repeating: .success([]), count: blocks.count)
        results.withUnsafeMutableBufferPointer { slots in
            let slots = UncheckedSendable(slots)
            DispatchQueue.concurrentPerform(iterations: blocks.count) { index in
                var points: [TrackPoint] = []
                do throws(PointBlockError) {
                    try PointBlockDecoder.decode(blocks[index].data, into: &points)
                    guard points.count == blocks[index].pointCount else {
                        throw .corrupt("a block says \(blocks[index].pointCount) points and holds \(points.count)")
                    }
                    slots.value[index] = .success(points)
                } catch {
                    slots.value[index] = .failure(error)
                }
            }
        }
    }

    func points(_ index: Int) throws(PointBlockError) -> [TrackPoint] { try results[index].get() }
}

/// A buffer whose disjoint elements are written from several threads.
private struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
