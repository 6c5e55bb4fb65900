/// Explorer tiles: the zoom-14 slippy-map tiles a rider has passed through, the largest square block of them and the
/// largest cluster (tiles whose four neighbours were all visited, connected through their sides).
///
///     let explorer = ExplorerTiles(visited: [TileXY(x: 0, y: 0), TileXY(x: 1, y: 0), TileXY(x: 0, y: 1), TileXY(x: 1, y: 1)])
///     explorer.maximumSquare  // (x: 0, y: 0, size: 2)
///     explorer.maximumCluster // []: no tile has all four neighbours
///
/// O(n log n) in the visited tiles (sorting), the rest linear with hash lookups.
public struct ExplorerTiles: Sendable, Hashable {
    /// The zoom explorer tiles are counted at (about 2.4 km at the equator, 1.5 km at 50° N).
    public static let zoom = 14

    /// Visited tiles, row by row.
    public let visited: [TileXY]
    /// The top-left tile and edge of the largest square of visited tiles (the top-most, then left-most of equals).
    public let maximumSquare: Square?
    /// The tiles of the largest cluster, row by row (the one with the top-most, left-most tile of equals).
    public let maximumCluster: [TileXY]
    /// How many visited tiles have all four neighbours visited.
    public let clusterTileCount: Int

    public struct Square: Sendable, Hashable, Codable {
        public var x: Int
        public var y: Int
        public var size: Int
        public init(x: Int, y: Int, size: Int) {
            self.x = x
            self.y = y
            self.size = size
        }
    }

    public init(visited tiles: some Sequence<TileXY>) {
        let set = Set(tiles)
        let sorted = set.sorted()
        visited = sorted
        // Largest square: for each tile, the edge of the largest square with it as the bottom-right corner is one more
        // than the smallest of those of its left, upper and upper-left neighbours. Row by row, they are known in time.
        var edge: [TileXY: Int] = [:]
        edge.reserveCapacity(sorted.count)
        var best: Square?
        for tile in sorted {
            let left = edge[TileXY(x: tile.x - 1, y: tile.y)] ?? 0
            let up = edge[TileXY(x: tile.x, y: tile.y - 1)] ?? 0
            let diagonal = edge[TileXY(x: tile.x - 1, y: tile.y - 1)] ?? 0
            let size = 1 + min(left, up, diagonal)
            edge[tile] = size
            let square = Square(x: tile.x - size + 1, y: tile.y - size + 1, size: size)
            if let current = best {
                if size > current.size || (size == current.size && (square.y, square.x) < (current.y, current.x)) { best = square }
            } else {
                best = square
            }
        }
        maximumSquare = best
        // Clusters: tiles with four visited neighbours, grouped by flood fill through sides.
        let inner = sorted.filter { t in
            set.contains(TileXY(x: t.x - 1, y: t.y)) && set.contains(TileXY(x: t.x + 1, y: t.y))
                && set.contains(TileXY(x: t.x, y: t.y - 1)) && set.contains(TileXY(x: t.x, y: t.y + 1))
        }
        clusterTileCount = inner.count
        let innerSet = Set(inner)
        var seen = Set<TileXY>()
        var largest: [TileXY] = []
        for start in inner where !seen.contains(start) {
            var component: [TileXY] = []
            var stack = [start]
            seen.insert(start)
            while let tile = stack.popLast() {
                component.append(tile)
                for next in [TileXY(x: tile.x - 1, y: tile.y), TileXY(x: tile.x + 1, y: tile.y), TileXY(x: tile.x, y: tile.y - 1), TileXY(x: tile.x, y: tile.y + 1)]
                where innerSet.contains(next) && !seen.contains(next) {
                    seen.insert(next)
                    stack.append(next)
                }
            }
            // Starts go row by row, so the first of equal size found holds the top-most, left-most tile.
            if component.count > largest.count { largest = component }
        }
        maximumCluster = largest.sorted()
    }
}
