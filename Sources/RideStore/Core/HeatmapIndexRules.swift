import Foundation
import RideKit

/// The heatmap's index, as both stores keep it: what a track puts in it and how a tile is read from it. The stores
/// only run the SQL.
///
/// - `heatmapTrack`: one row per indexed track: its kind and year, a signature of its points (counts, bounds,
///   length: `signature(of:)`), and its line (`HeatmapLine`), so that taking it out later subtracts exactly
///   what was added even if its points have changed since.
/// - `heatmapPiece`: the track's line cut into zoom-14 tiles (`baseZoom`), one row per (user, tile, track). A tile at
///   zoom 14–18 is drawn from the pieces of its one zoom-14 tile: its cost is what was ridden there. The distinct
///   tiles of a user's pieces are the explorer tiles.
/// - `heatmapRaster`: for zooms 0–13, per (user, kind, year, zoom, x, y), how many tracks passed through each pixel
///   (`HeatmapCounts`, sparse). A track's save adds 1 to each pixel it crosses, its removal subtracts 1. A tile is
///   the sum of a handful of rows (one per kind and year): its cost is bounded by the tile, not by the library.
/// - `heatmapState`: per user, a version that every change of the index raises in the same transaction: a tile
///   rendered at version v may be served from memory while the database still says v.
///
/// A user's index is built whole on the first read that needs it (`heatmapTile`, `explorerTiles`), then kept in step;
/// until then saves leave it alone, so that a bulk import is not slowed by it.
///
/// A track counts when it is complete, not deleted, and counts toward the statistics (`StatisticsRules`: no route,
/// no simulated ride). Year 0 stands for a
/// track without a start time (counted, but in no year).
package enum HeatmapIndexRules {
    /// A user's index is built (the first time, or again) by one request at a time, whichever instance it reaches:
    /// SQLite keeps a claim row (`heatmapBuild`), PostgreSQL an advisory lock held by the building transaction. A
    /// request that finds a build under way is answered at once with this error (503 and Retry-After), not with a
    /// tile of what is indexed so far: the index is written in one transaction, so there is nothing to show yet.
    package static func buildUnderWay() -> RideStoreError {
        .busy("the heatmap of your rides is being built (the first time takes a while); ask again shortly", retryAfterSeconds: buildRetryAfterSeconds)
    }

    /// Seconds a client waits before asking again while the index is built.
    package static let buildRetryAfterSeconds = 5
    /// A claim (SQLite) older than this was left by a process that stopped mid-build: the next request builds. A build
    /// of 30 million points takes about 25 s here.
    package static let buildClaimSeconds: Int64 = 600

    /// The zoom of the pieces and of explorer tiles.
    package static let baseZoom = ExplorerTiles.zoom
    /// The zooms kept as count rasters.
    package static let rasterZooms = 0...(baseZoom - 1)

    /// What a track is indexed as.
    package struct Entry: Sendable, Hashable {
        package var kind: String
        package var year: Int
        package var signature: Int64

        package init(kind: String, year: Int, signature: Int64) {
            self.kind = kind
            self.year = year
            self.signature = signature
        }
    }

    /// The entry of a track as it is now, or nil when it does not count.
    package static func entry(for record: TrackRecord) -> Entry? {
        guard record.state == .complete, record.deletedAt == nil, StatisticsRules.counts(kind: record.kind, source: record.source) else { return nil }
        return Entry(kind: record.kind.rawValue, year: HeatmapFilter.year(ofStartTime: record.startTime) ?? 0, signature: signature(of: record))
    }

    /// What changes when a track's points change (a replaced file, a finished recording): counts, bounds and length,
    /// hashed (FNV-1a). A rename leaves it, so it does not redraw the track.
    package static func signature(of record: TrackRecord) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: UInt64) {
            for shift in stride(from: 0, to: 64, by: 8) {
                hash ^= (value >> UInt64(shift)) & 0xFF
                hash = hash &* 0x0000_0100_0000_01B3
            }
        }
        mix(UInt64(record.pointCount))
        mix(UInt64(record.segmentCount))
        for value in [record.minLatitude, record.minLongitude, record.maxLatitude, record.maxLongitude, record.distanceMeters] {
            mix((value ?? .nan).bitPattern)
        }
        return Int64(bitPattern: hash)
    }

    /// The line of a track's recorded segments (routes and waypoints are not ridden).
    package static func line(of content: TrackContent) throws -> HeatmapLine {
        var segments: [[Coordinate]] = []
        for track in content.tracks {
            for segment in track.segments {
                segments.append(try segment.points.coordinates())
            }
        }
        return HeatmapLine(segments: segments)
    }

    /// Everything one track puts in the index.
    package struct TrackIndex: Sendable {
        package var entry: Entry
        package var line: Data
        package var pieces: [(tile: TileXY, data: Data)]
        package var pixels: [HeatmapTileKey: [UInt16]]
    }

    package static func index(_ line: HeatmapLine, entry: Entry) -> TrackIndex {
        let pieces = line.pieces(zoom: baseZoom).sorted { $0.key < $1.key }.map { tile, piece in
            (tile: tile, data: piece.encoded(origin: origin(of: tile)))
        }
        return TrackIndex(entry: entry, line: line.encoded(), pieces: pieces, pixels: line.pixels(zooms: rasterZooms))
    }

    /// What a stored track line takes out of the rasters.
    package static func pixels(ofStoredLine data: Data) throws -> [HeatmapTileKey: [UInt16]] {
        try HeatmapLine(encoded: data).pixels(zooms: rasterZooms)
    }

    /// The top-left corner of a base tile, from which a piece's points are stored.
    package static func origin(of tile: TileXY) -> WorldPoint {
        let shift = WorldPoint.bits - baseZoom
        return WorldPoint(x: Int32(tile.x << shift), y: Int32(tile.y << shift))
    }

    /// A raster row with a track's pixels added (`delta` +1) or taken out (−1); nil when nothing is left (the row goes).
    package static func applying(_ pixels: [UInt16], delta: Int, to stored: Data?) throws -> Data? {
        var counts = try stored.map { data throws(HeatmapDataError) in try HeatmapCounts(encoded: data) } ?? HeatmapCounts()
        counts.add(pixels: pixels, delta: delta)
        return counts.isEmpty ? nil : counts.encoded()
    }

    /// Where a tile is read from.
    package enum TileSource: Sendable, Hashable {
        /// The pieces of this base tile, drawn at the tile's zoom.
        case pieces(TileXY)
        /// The rasters of this tile.
        case rasters(HeatmapTileKey)
    }

    package static func source(of tile: MapTile) -> TileSource {
        if tile.zoom >= baseZoom {
            let shift = tile.zoom - baseZoom
            return .pieces(TileXY(x: tile.x >> shift, y: tile.y >> shift))
        }
        return .rasters(HeatmapTileKey(zoom: tile.zoom, x: tile.x, y: tile.y))
    }

    /// A tile drawn from the pieces of its base tile (one per track).
    package static func draw(pieces: [Data], base: TileXY, tile: MapTile) throws -> HeatmapCounts {
        let origin = origin(of: base)
        let lines = try pieces.map { data throws(HeatmapDataError) in try HeatmapLine(encoded: data, origin: origin) }
        return HeatmapCounts.draw(lines, tile: tile)
    }

    /// A tile summed from its raster rows.
    package static func sum(rasters: [Data]) throws -> HeatmapCounts {
        var counts = HeatmapCounts()
        for data in rasters { try counts.add(encoded: data) }
        return counts
    }

    /// Rasters of many tracks summed in memory (a rebuild), written once at the end.
    package struct RasterAccumulator: Sendable {
        package struct Key: Hashable, Sendable {
            package var kind: String
            package var year: Int
            package var tile: HeatmapTileKey
        }

        package private(set) var tiles: [Key: HeatmapCounts] = [:]

        package init() {}

        package mutating func add(_ index: TrackIndex) {
            for (tile, pixels) in index.pixels {
                let key = Key(kind: index.entry.kind, year: index.entry.year, tile: tile)
                if tiles[key] == nil { tiles[key] = HeatmapCounts() }
                tiles[key]!.add(pixels: pixels, delta: 1)
            }
        }
    }
}

/// A heatmap tile as the store read it, with the version of the index it was read at.
public struct HeatmapTile: Sendable {
    public var version: Int64
    public var counts: HeatmapCounts

    public init(version: Int64, counts: HeatmapCounts) {
        self.version = version
        self.counts = counts
    }
}

/// The explorer tiles of a user, with the version of the index they were read at.
public struct ExplorerTileList: Sendable {
    public var version: Int64
    public var tiles: [TileXY]

    public init(version: Int64, tiles: [TileXY]) {
        self.version = version
        self.tiles = tiles
    }
}

/// What a rebuild of a user's index did.
public struct HeatmapBuildReport: Sendable {
    public var trackCount: Int
    public var pointCount: Int
    public var version: Int64

    public init(trackCount: Int, pointCount: Int, version: Int64) {
        self.trackCount = trackCount
        self.pointCount = pointCount
        self.version = version
    }
}
