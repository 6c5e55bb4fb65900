import Foundation

/// How many tracks passed through each pixel of one 256 × 256 tile: what a heatmap tile is drawn from.
public struct HeatmapCounts: Sendable, Hashable {
    /// 65,536 counts, row by row from the top left.
    public var counts: [UInt32]

    public static let side = 256
    public static let pixelCount = side * side

    public init() {
        counts = [UInt32](repeating: 0, count: Self.pixelCount)
    }

    public subscript(x: Int, y: Int) -> UInt32 {
        get { counts[y * Self.side + x] }
        set { counts[y * Self.side + x] = newValue }
    }

    public var isEmpty: Bool { !counts.contains { $0 != 0 } }
    public var maximum: UInt32 { counts.max() ?? 0 }

    /// Adds `delta` (±1 for one track) at each pixel index; a count never goes below zero nor wraps.
    public mutating func add(pixels: [UInt16], delta: Int) {
        for index in pixels {
            let i = Int(index)
            counts[i] = UInt32(max(0, min(Int(UInt32.max), Int(counts[i]) + delta)))
        }
    }

    /// Adds another tile's counts (saturating).
    public mutating func add(_ other: HeatmapCounts) {
        for i in 0..<Self.pixelCount where other.counts[i] != 0 {
            let (sum, overflow) = counts[i].addingReportingOverflow(other.counts[i])
            counts[i] = overflow ? .max : sum
        }
    }

    // MARK: Storage

    /// The non-zero counts as bytes: how many, then per pixel the step from the previous index and the count, as
    /// varints. A tile a few rides cross takes a few hundred bytes.
    public func encoded() -> Data {
        var bytes: [UInt8] = []
        var nonZero = 0
        for count in counts where count != 0 { nonZero += 1 }
        Varint.append(UInt64(nonZero), to: &bytes)
        var previous = -1
        for i in 0..<Self.pixelCount where counts[i] != 0 {
            Varint.append(UInt64(i - previous), to: &bytes)
            Varint.append(UInt64(counts[i]), to: &bytes)
            previous = i
        }
        return Data(bytes)
    }

    public init(encoded data: Data) throws(HeatmapDataError) {
        self.init()
        try add(encoded: data)
    }

    /// Adds stored counts to these, without decoding them into a tile of their own first.
    public mutating func add(encoded data: Data) throws(HeatmapDataError) {
        var reader = VarintReader(data)
        let count = try reader.readCount(bytesPerItem: 2)
        var index = -1
        for _ in 0..<count {
            let step = try reader.read()
            guard step >= 1, step <= UInt64(Self.pixelCount) else { throw .malformed }
            index += Int(step)
            guard index < Self.pixelCount else { throw .malformed }
            let value = try reader.read()
            guard value <= UInt64(UInt32.max) else { throw .malformed }
            let (sum, overflow) = counts[index].addingReportingOverflow(UInt32(value))
            counts[index] = overflow ? .max : sum
        }
        guard reader.isAtEnd else { throw .malformed }
    }

    // MARK: Drawing from lines

    /// The counts of a tile drawn from lines, each line one track (counted once in a pixel however often it passes).
    /// Each segment is clipped to the tile first: a tile costs time in proportion to the points given and the pixels
    /// drawn, never to a segment's length outside it.
    public static func draw(_ lines: [HeatmapLine], tile: MapTile) -> HeatmapCounts {
        var result = HeatmapCounts()
        guard (0...22).contains(tile.zoom) else { return result }
        var stamp = [UInt32](repeating: 0, count: pixelCount)
        let originX = Double(tile.x * side), originY = Double(tile.y * side)
        let scale = Double(1 << (WorldPoint.bits - 8 - tile.zoom))
        for (ordinal, line) in lines.enumerated() {
            let mark = UInt32(ordinal + 1)
            result.counts.withUnsafeMutableBufferPointer { counts in
                stamp.withUnsafeMutableBufferPointer { stamp in
                    line.forEachSegment { a, b in
                        let start = (x: Double(a.x) / scale - originX, y: Double(a.y) / scale - originY)
                        let end = (x: Double(b.x) / scale - originX, y: Double(b.y) / scale - originY)
                        guard let clipped = GridLine.clip(from: start, to: end, minX: 0, minY: 0, maxX: 256, maxY: 256) else { return }
                        GridLine.forEachCell(from: clipped.start, to: clipped.end) { x, y in
                            guard x >= 0, y >= 0, x < side, y < side else { return }
                            let i = y * side + x
                            if stamp[i] != mark {
                                stamp[i] = mark
                                counts[i] &+= 1
                            }
                        }
                    }
                }
            }
        }
        return result
    }
}

/// One tile of a zoom: what the low-zoom count rasters are keyed by.
public struct HeatmapTileKey: Sendable, Hashable, Comparable {
    public var zoom: Int
    public var x: Int
    public var y: Int

    public init(zoom: Int, x: Int, y: Int) {
        self.zoom = zoom
        self.x = x
        self.y = y
    }

    public static func < (a: HeatmapTileKey, b: HeatmapTileKey) -> Bool { (a.zoom, a.y, a.x) < (b.zoom, b.y, b.x) }
}

extension HeatmapLine {
    /// The pixels the line passes through at each zoom of `zooms`, per tile, each pixel once (sorted indexes
    /// y × 256 + x): what one track adds to the count rasters of those zooms.
    ///
    /// O(Σ over zooms of points + pixels crossed); segments are at most `maximumJumpUnits` long, so a pixel walk at
    /// zoom 13 is at most about 1,000 pixels a segment.
    public func pixels(zooms: ClosedRange<Int>) -> [HeatmapTileKey: [UInt16]] {
        var result: [HeatmapTileKey: [UInt16]] = [:]
        for zoom in zooms where (0...22).contains(zoom) {
            // A bitset per tile touched at this zoom, with the last tile cached: consecutive pixels share a tile.
            var bitsets: [[UInt64]] = []
            var keys: [HeatmapTileKey] = []
            var slotOf: [Int: Int] = [:]
            var lastTileCode = -1, lastSlot = -1
            let scale = Double(1 << (WorldPoint.bits - 8 - zoom))
            forEachSegment { a, b in
                GridLine.forEachCell(from: (Double(a.x) / scale, Double(a.y) / scale), to: (Double(b.x) / scale, Double(b.y) / scale)) { px, py in
                    let tx = px >> 8, ty = py >> 8
                    let code = (ty << 23) | tx
                    if code != lastTileCode {
                        if let slot = slotOf[code] {
                            lastSlot = slot
                        } else {
                            lastSlot = bitsets.count
                            slotOf[code] = lastSlot
                            bitsets.append([UInt64](repeating: 0, count: HeatmapCounts.pixelCount / 64))
                            keys.append(HeatmapTileKey(zoom: zoom, x: tx, y: ty))
                        }
                        lastTileCode = code
                    }
                    let index = (py & 255) << 8 | (px & 255)
                    bitsets[lastSlot][index >> 6] |= 1 << UInt64(index & 63)
                }
            }
            for (slot, bits) in bitsets.enumerated() {
                var indexes: [UInt16] = []
                for (word, value) in bits.enumerated() where value != 0 {
                    var v = value
                    while v != 0 {
                        let bit = v.trailingZeroBitCount
                        indexes.append(UInt16(word << 6 | bit))
                        v &= v - 1
                    }
                }
                result[keys[slot]] = indexes
            }
        }
        return result
    }
}
