import Foundation
import Hummingbird
import RideKit
import RideStore

/// `/api/heatmap/{z}/{x}/{y}.png?kind=&year=` (a tile of everywhere the user rode, drawn by the server from the
/// store's index: the browser never receives the points) and `/api/explorer` (explorer tiles, their largest square
/// and cluster).
///
/// A rendered tile is kept in memory under the index version it was read at, and served from there only while the
/// database still says that version: any save, change or deletion of a track raises it (`heatmapVersion`), so several
/// instances never serve a stale tile. The version is also the tile's ETag.
struct HeatmapController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    let cache: HeatmapTileCache

    init(library: TrackLibrary, cache: HeatmapTileCache = HeatmapTileCache(capacity: 2_048)) {
        self.library = library
        self.cache = cache
    }

    func addRoutes(to router: Router<Context>) {
        router.get("api/heatmap/{z}/{x}/{y}.png") { request, context in try await tile(library.scoped(to: context), request, context) }
        router.get("api/explorer") { request, context in try await explorer(library.scoped(to: context), request, context) }
    }

    func tile(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> Response {
        // Everything is checked before the store is asked: a bad address costs nothing.
        let parsed = try Self.request(
            z: context.parameters.get("z") ?? "", x: context.parameters.get("x") ?? "", y: context.parameters.get("y") ?? "", request)
        let key = HeatmapTileCache.Key(user: library.userID.rawValue, request: parsed)
        var png: Data
        var version: Int64
        if let current = try await library.mine.heatmapVersion(), let cached = await cache.png(for: key, version: current) {
            png = cached
            version = current
        } else {
            let tile = try await library.mine.heatmapTile(parsed)
            png = HeatmapStyle.png(tile.counts)
            version = tile.version
            await cache.store(png, for: key, version: version)
        }
        var headers = HTTPFields()
        headers[.contentType] = "image/png"
        // The browser asks again each time (the index may have changed) and gets 304 while it has not.
        headers[.cacheControl] = "private, no-cache"
        let tag = "\"heatmap-\(version)\""
        headers[.eTag] = tag
        if request.headers[.ifNoneMatch] == tag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: png)))
    }

    static func request(z: String, x: String, y: String, _ request: Request) throws -> HeatmapRequest {
        do {
            return try HeatmapRequest(z: z, x: x, y: y, kind: request.uri.formQueryValue("kind"), year: request.uri.formQueryValue("year"))
        } catch {
            throw APIError.badRequest("invalid_value", error.description)
        }
    }

    static func filter(_ request: Request) throws -> HeatmapFilter {
        do {
            return try HeatmapFilter(kind: request.uri.formQueryValue("kind"), year: request.uri.formQueryValue("year"))
        } catch {
            throw APIError.badRequest("invalid_value", error.description)
        }
    }

    /// `GET /api/explorer?kind=&year=`.
    func explorer(_ library: TrackLibrary, _ request: Request, _ context: Context) async throws -> ExplorerPayload {
        let filter = try Self.filter(request)
        let list = try await library.mine.explorerTiles(filter: filter)
        return ExplorerPayload(ExplorerTiles(visited: list.tiles))
    }
}

/// The answer of `GET /api/explorer`: tiles as `[x, y]` pairs at zoom 14, row by row.
struct ExplorerPayload: ResponseEncodable, Sendable {
    var zoom: Int
    var tileCount: Int
    var tiles: [[Int]]
    var maxSquare: ExplorerTiles.Square?
    var clusterTileCount: Int
    var maxCluster: Cluster

    struct Cluster: Codable, Sendable {
        var size: Int
        var tiles: [[Int]]
    }

    init(_ explorer: ExplorerTiles) {
        zoom = ExplorerTiles.zoom
        tileCount = explorer.visited.count
        tiles = explorer.visited.map { [$0.x, $0.y] }
        maxSquare = explorer.maximumSquare
        clusterTileCount = explorer.clusterTileCount
        maxCluster = Cluster(size: explorer.maximumCluster.count, tiles: explorer.maximumCluster.map { [$0.x, $0.y] })
    }
}

/// Rendered heatmap tiles in memory, each under the index version it was drawn at.
actor HeatmapTileCache {
    struct Key: Hashable, Sendable {
        var user: String
        var request: HeatmapRequest
    }

    private var entries: LRUCache<Key, (version: Int64, png: Data)>

    init(capacity: Int) {
        entries = LRUCache(capacity: max(1, capacity))
    }

    /// The tile if it was drawn at exactly this version.
    func png(for key: Key, version: Int64) -> Data? {
        guard let entry = entries[key], entry.version == version else { return nil }
        return entry.png
    }

    func store(_ png: Data, for key: Key, version: Int64) {
        entries[key] = (version, png)
    }
}
