import Foundation
import Testing
import RideKit
import TestSupport

/// Explorer tiles against direct computations: tiles a line visits by fine sampling, the largest square by trying
/// every position and size, the largest cluster by a flood fill over a grid.
@Suite struct ExplorerTilesTests {
    @Test func aFastRideSkipsNoTile() {
        // Two fixes 12 km apart (a fast train of thought): every zoom-14 tile between them counts.
        let a = Coordinate(latitude: 48.85, longitude: 2.25), b = Coordinate(latitude: 48.90, longitude: 2.40)
        let visited = Set(HeatmapLine(segments: [[a, b]]).pieces(zoom: ExplorerTiles.zoom).keys)
        // Sampling the segment every 1/1000 of its length finds tiles it surely passes through.
        var sampled = Set<TileXY>()
        for i in 0...1000 {
            let t = Double(i) / 1000
            let c = Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t)
            let p = WebMercator.tileCoordinates(of: c, zoom: 14)
            // Sampling in degrees bends the line in Mercator a hair; only take samples clear of tile edges.
            let fx = p.x - p.x.rounded(.down), fy = p.y - p.y.rounded(.down)
            if fx > 0.02, fx < 0.98, fy > 0.02, fy < 0.98 { sampled.insert(TileXY(x: Int(p.x), y: Int(p.y))) }
        }
        #expect(sampled.isSubset(of: visited))
        let ta = MapTile(containing: a, zoom: 14), tb = MapTile(containing: b, zoom: 14)
        // A 4-connected path from one end's tile to the other's: exactly |dx| + |dy| + 1 tiles.
        #expect(visited.count == abs(tb.x - ta.x) + abs(tb.y - ta.y) + 1)
        #expect(visited.count > 10)
    }

    static func bruteForceSquare(_ set: Set<TileXY>) -> Int {
        guard let minX = set.map(\.x).min(), let maxX = set.map(\.x).max(), let minY = set.map(\.y).min(), let maxY = set.map(\.y).max() else { return 0 }
        var best = 0
        for y in minY...maxY {
            for x in minX...maxX {
                var size = 1
                while true {
                    var full = true
                    for dy in 0..<size { for dx in 0..<size where !set.contains(TileXY(x: x + dx, y: y + dy)) { full = false } }
                    if !full { break }
                    best = max(best, size)
                    size += 1
                }
            }
        }
        return best
    }

    static func bruteForceCluster(_ set: Set<TileXY>) -> (largest: Int, inner: Int) {
        let inner = set.filter { t in
            [(-1, 0), (1, 0), (0, -1), (0, 1)].allSatisfy { set.contains(TileXY(x: t.x + $0.0, y: t.y + $0.1)) }
        }
        var label: [TileXY: Int] = [:]
        var sizes: [Int] = []
        for tile in inner where label[tile] == nil {
            var queue = [tile]
            label[tile] = sizes.count
            var head = 0
            while head < queue.count {
                let t = queue[head]
                head += 1
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let n = TileXY(x: t.x + dx, y: t.y + dy)
                    if inner.contains(n), label[n] == nil {
                        label[n] = sizes.count
                        queue.append(n)
                    }
                }
            }
            sizes.append(queue.count)
        }
        return (sizes.max() ?? 0, inner.count)
    }

    @Test(arguments: [0, 1, 2, 3, 7, 40, 150, 400])
    func squareAndClusterMatchDirectComputation(count: Int) {
        var random = SeededGenerator(seed: UInt64(count) + 11)
        var set = Set<TileXY>()
        // Blobs around a few centres, so that squares and clusters of several sizes appear.
        for _ in 0..<count {
            set.insert(TileXY(x: 8000 + Int(random.gaussian(4)), y: 5000 + Int(random.gaussian(4))))
        }
        let explorer = ExplorerTiles(visited: set)
        #expect(explorer.visited.count == set.count)
        let square = Self.bruteForceSquare(set)
        #expect((explorer.maximumSquare?.size ?? 0) == square)
        if let found = explorer.maximumSquare {
            for dy in 0..<found.size { for dx in 0..<found.size { #expect(set.contains(TileXY(x: found.x + dx, y: found.y + dy))) } }
        }
        let cluster = Self.bruteForceCluster(set)
        #expect(explorer.maximumCluster.count == cluster.largest)
        #expect(explorer.clusterTileCount == cluster.inner)
    }

    @Test func aFilledBlockHasItsSquareAndItsInsideAsCluster() {
        var set = Set<TileXY>()
        for y in 10..<16 { for x in 20..<25 { set.insert(TileXY(x: x, y: y)) } }  // 5 wide, 6 tall
        set.insert(TileXY(x: 40, y: 40))
        let explorer = ExplorerTiles(visited: set)
        #expect(explorer.maximumSquare == ExplorerTiles.Square(x: 20, y: 10, size: 5))
        #expect(explorer.maximumCluster.count == 3 * 4)
        #expect(explorer.maximumCluster.first == TileXY(x: 21, y: 11))
    }
}
