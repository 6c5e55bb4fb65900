import Foundation
import RideKit

/// How points appended to a growing track (a recording's batches, a device's fixes) become blocks, on both stores:
/// the tail of its last segment is a binary counter. New points form a block of their own, merged with the newest
/// blocks no bigger than the run so far (while the run fits in a block): each point is re-encoded about log2(1,024)
/// times however the points come, never the whole last block on every batch. A finished track is packed again
/// into full blocks (`needsRepacking`).
///
/// ```
/// PointTail.blocksToMerge(tailNewestFirst: [], adding: 7)              // 0: a first block of 7
/// PointTail.blocksToMerge(tailNewestFirst: [7], adding: 7)             // 1: one block of 14
/// PointTail.blocksToMerge(tailNewestFirst: [7, 14], adding: 7)         // 2: one block of 28
/// PointTail.blocksToMerge(tailNewestFirst: [7, 28], adding: 7)         // 1: 14, beside the 28
/// PointTail.blocksToMerge(tailNewestFirst: [1_000], adding: 100)       // 0: 1,100 would not fit
/// ```
package enum PointTail {
    /// The newest blocks a store reads to decide (sizes only): more than a binary counter of 1,024 ever holds.
    package static let tailBlocksRead = 24

    /// How many of the tail's newest blocks (sizes newest first) are merged with `count` new points into one block;
    /// 0 when the new points are stored as blocks of their own (a whole block or more of them, or nothing to merge).
    package static func blocksToMerge(tailNewestFirst counts: [Int], adding count: Int) -> Int {
        guard count < PackedPoints.blockCapacity else { return 0 }
        var merged = 0
        var runCount = count
        for blockCount in counts {
            guard blockCount <= runCount, blockCount + runCount <= PackedPoints.blockCapacity else { break }
            merged += 1
            runCount += blockCount
        }
        return merged
    }

    /// Whether a segment's blocks (sizes in order) are to be packed again into full ones: any block but the last
    /// one is not full.
    package static func needsRepacking(_ counts: [Int]) -> Bool {
        !counts.dropLast().allSatisfy { $0 == PackedPoints.blockCapacity }
    }
}

extension PointTail {
    /// A block of a segment's tail as a store reads it: its row id, position and size.
    package struct Block: Sendable, Equatable {
        package var id: Int64
        package var position: Int
        package var count: Int

        package init(id: Int64, position: Int, count: Int) {
            self.id = id
            self.position = position
            self.count = count
        }
    }

    /// What appending points to a segment's tail writes: new blocks after the last one, or one block that takes the
    /// merged newest blocks and the new points (in the oldest merged block's row, the others removed).
    package enum Append: Sendable, Equatable {
        case insert([PointBlock], firstPosition: Int)
        case merge(into: Int64, PointBlock, removing: [Int64])
    }

    /// How `points` are appended to a tail (its blocks newest first, at most `tailBlocksRead` of them); `points(of:)`
    /// reads the points of a block that is merged, and only those are read.
    package static func append(
        _ points: [TrackPoint], tailNewestFirst tail: [Block], points pointsOf: (Block) throws -> [TrackPoint]
    ) throws -> Append {
        let nextPosition = (tail.first?.position ?? -1) + 1
        let merged = blocksToMerge(tailNewestFirst: tail.map(\.count), adding: points.count)
        guard merged > 0 else { return .insert(PackedPoints(points[...]).packedBlocks, firstPosition: nextPosition) }
        // The merged blocks, oldest first, then the new points.
        let mergedBlocks = tail.prefix(merged).reversed()
        var run: [TrackPoint] = []
        run.reserveCapacity(points.count + mergedBlocks.reduce(0) { $0 + $1.count })
        for block in mergedBlocks { run += try pointsOf(block) }
        run += points
        return .merge(into: mergedBlocks.first!.id, PointBlock(points: run[...]), removing: mergedBlocks.dropFirst().map(\.id))
    }
}
