import Hummingbird
import RideStore

/// `/tiles/{z}/{x}/{y}.png`: the offline base map from the MBTiles file given with `--tiles`.
struct TilesController<Context: RequestContext> {
    let tiles: MBTilesReader
    let metrics: ServerMetrics

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("{z}/{x}/{y}.png", use: tile)
        group.get("{z}/{x}/{y}.jpg", use: tile)
        group.get("{z}/{x}/{y}.webp", use: tile)
    }

    @Sendable func tile(_ request: Request, context: Context) async throws -> Response {
        let z = try context.parameters.require("z", as: Int.self)
        let x = try context.parameters.require("x", as: Int.self)
        let y = try context.parameters.require("y", as: Int.self)
        guard let data = try tiles.tile(zoom: z, x: x, y: y), !data.isEmpty else {
            // Leaflet shows nothing for a missing tile, and the layers above stay visible.
            throw APIError.notFound("no tile \(z)/\(x)/\(y) in this tile set")
        }
        metrics.increment(.tilesServed)
        var headers = HTTPFields()
        headers[.contentType] = tiles.metadata.mediaType
        // Tiles of a file do not change while the server runs; a day keeps a phone's map without asking.
        headers[.cacheControl] = "public, max-age=86400"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
