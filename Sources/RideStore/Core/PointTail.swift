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
