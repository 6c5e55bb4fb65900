import Foundation

/// A track's line as the heatmap draws it: runs of `WorldPoint`s, each drawn point to point.
///
/// A run ends where the track's segment ends, and where two fixes are further apart than `maximumJumpUnits` (a GPS
/// jump or a gap in recording, not a road ridden: drawing it would paint a straight line across the map and cost
/// time in proportion to its length). Repeated points (standing still) are kept once.
///
///     let line = HeatmapLine(segments: [[a, b, c]])
///     line.runs.count  // 1
public struct HeatmapLine: Sendable, Hashable {
    public var runs: [[WorldPoint]]

    /// 2^19 units: about 19.6 km at the equator, 9.8 km at 60°. Longer steps between fixes are not drawn.
    public static let maximumJumpUnits: Int64 = 1 << 19

    public init(runs: [[WorldPoint]] = []) {
        self.runs = runs
    }

    /// The line of a track's segments (invalid coordinates skipped).
    public init(segments: [[Coordinate]]) {
        var runs: [[WorldPoint]] = []
        for segment in segments {
            var run: [WorldPoint] = []
            for coordinate in segment where coordinate.isValid {
                let point = WorldPoint(coordinate)
                if let last = run.last {
                    if last == point { continue }
                    if max(abs(Int64(point.x) - Int64(last.x)), abs(Int64(point.y) - Int64(last.y))) > Self.maximumJumpUnits {
                        runs.append(run)
                        run = []
                    }
                }
                run.append(point)
            }
            if !run.isEmpty { runs.append(run) }
        }
        self.runs = runs
    }

    public var pointCount: Int { runs.reduce(0) { $0 + $1.count } }
    public var isEmpty: Bool { runs.isEmpty }

    /// Calls `body` with the two ends of each segment, and with a lone point twice (a run of one fix is a dot).
    @inline(__always)
    public func forEachSegment(_ body: (WorldPoint, WorldPoint) -> Void) {
        for run in runs {
            if run.count == 1 {
                body(run[0], run[0])
                continue
            }
            for i in 1..<run.count { body(run[i - 1], run[i]) }
        }
    }

    // MARK: Pieces per tile

    /// The line cut into the tiles of `zoom` it passes through (the supercover of every segment): each tile gets the
    /// segments that enter it, whole, chained into runs where they follow each other. The keys are the visited tiles.
    ///
    /// O(points + tiles crossed).
    public func pieces(zoom: Int) -> [TileXY: HeatmapLine] {
        var pieces: [TileXY: HeatmapLine] = [:]
        // The run and point index of the last segment each tile got, to chain the next one to it.
        var lastEnd: [TileXY: (run: Int, point: Int)] = [:]
        let scale = Double(1 << (WorldPoint.bits - zoom))
        for (r, run) in runs.enumerated() {
            if run.count == 1 {
                let tile = TileXY(run[0].tile(zoom: zoom))
                pieces[tile, default: HeatmapLine()].runs.append([run[0]])
                continue
            }
            for i in 1..<run.count {
                let a = run[i - 1], b = run[i]
                GridLine.forEachCell(from: (Double(a.x) / scale, Double(a.y) / scale), to: (Double(b.x) / scale, Double(b.y) / scale)) { x, y in
                    let tile = TileXY(x: x, y: y)
                    if let end = lastEnd[tile], end.run == r, end.point == i - 1 {
                        let last = pieces[tile]!.runs.count - 1
                        pieces[tile]!.runs[last].append(b)
                    } else {
                        pieces[tile, default: HeatmapLine()].runs.append([a, b])
                    }
                    lastEnd[tile] = (r, i)
                }
            }
        }
        return pieces
    }

    // MARK: Storage

    /// The line as bytes: the run count, then per run its point count and the points as zigzag varint deltas,
    /// the first from `origin`. About 2–4 bytes a coordinate for a ride sampled every second.
    public func encoded(origin: WorldPoint = WorldPoint(x: 0, y: 0)) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(pointCount * 4 + 8)
        Varint.append(UInt64(runs.count), to: &bytes)
        for run in runs {
            Varint.append(UInt64(run.count), to: &bytes)
            var previous = origin
            for point in run {
                Varint.appendSigned(Int64(point.x) - Int64(previous.x), to: &bytes)
                Varint.appendSigned(Int64(point.y) - Int64(previous.y), to: &bytes)
                previous = point
            }
        }
        return Data(bytes)
    }

    /// The line `encoded(origin:)` wrote; throws on anything else (points off the map, counts beyond the bytes).
    public init(encoded data: Data, origin: WorldPoint = WorldPoint(x: 0, y: 0)) throws(HeatmapDataError) {
        var reader = VarintReader(data)
        let runCount = try reader.readCount(bytesPerItem: 3)
        var runs: [[WorldPoint]] = []
        runs.reserveCapacity(runCount)
        for _ in 0..<runCount {
            let count = try reader.readCount(bytesPerItem: 2)
            var run: [WorldPoint] = []
            run.reserveCapacity(count)
            var x = Int64(origin.x), y = Int64(origin.y)
            for _ in 0..<count {
                x += try reader.readSigned()
                y += try reader.readSigned()
                guard (0..<Int64(WorldPoint.size)).contains(x), (0..<Int64(WorldPoint.size)).contains(y) else { throw .malformed }
                run.append(WorldPoint(x: Int32(x), y: Int32(y)))
            }
            runs.append(run)
        }
        guard reader.isAtEnd else { throw .malformed }
        self.runs = runs
    }
}

/// A tile's column and row at some zoom known from context.
public struct TileXY: Sendable, Hashable, Codable, Comparable {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    init(_ pair: (x: Int, y: Int)) { self.init(x: pair.x, y: pair.y) }

    /// Row by row, then column: the order tiles are listed in.
    public static func < (a: TileXY, b: TileXY) -> Bool { (a.y, a.x) < (b.y, b.x) }
}
