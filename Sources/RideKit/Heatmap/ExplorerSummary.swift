/// Explorer tiles as the overview of a year counts them: every tile ridden (ever, of the kind), those ridden in the
/// year, those first ridden in the year (ridden that year and in no year before), and the largest square and cluster
/// of all of them (`ExplorerTiles`).
///
///     ExplorerSummary(visits: [(TileXY(x: 0, y: 0), 2023), (TileXY(x: 0, y: 0), 2024), (TileXY(x: 1, y: 0), 2024)], year: 2024)
///     // tileCount 2, tilesThisYear 2, newThisYear 1 (the tile at x 1), maxSquareSize 1
///
/// A visit's year 0 stands for a track without a time: it counts in the totals and as ridden before any year, so a
/// tile is never called new because the ride that first went there had no time. Linear in the visits, plus
/// `ExplorerTiles`' sort.
public struct ExplorerSummary: Sendable, Hashable, Codable {
    public var year: Int
    /// Tiles ever ridden.
    public var tileCount: Int
    /// Tiles ridden in `year`.
    public var tilesThisYear: Int
    /// Tiles ridden in `year` and in no year before it.
    public var newThisYear: Int
    /// The edge, in tiles, of the largest square block of ridden tiles (0 without any).
    public var maxSquareSize: Int
    /// Ridden tiles whose four neighbours are ridden too.
    public var clusterTileCount: Int
    /// Tiles of the largest cluster of those.
    public var maxClusterSize: Int

    /// From each (tile, year) a track of the kind passed through.
    public init(visits: some Sequence<(tile: TileXY, year: Int)>, year: Int) {
        var firstYear: [TileXY: Int] = [:]
        var thisYear = Set<TileXY>()
        for visit in visits {
            firstYear[visit.tile] = min(firstYear[visit.tile] ?? visit.year, visit.year)
            if visit.year == year { thisYear.insert(visit.tile) }
        }
        let explorer = ExplorerTiles(visited: firstYear.keys)
        self.year = year
        tileCount = firstYear.count
        tilesThisYear = thisYear.count
        newThisYear = thisYear.filter { firstYear[$0] == year }.count
        maxSquareSize = explorer.maximumSquare?.size ?? 0
        clusterTileCount = explorer.clusterTileCount
        maxClusterSize = explorer.maximumCluster.count
    }
}
