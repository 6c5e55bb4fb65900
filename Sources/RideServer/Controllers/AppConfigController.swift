import Hummingbird
import RideKit
import RideStore

/// `GET /api/config`: what the web app needs to know about this server: the map layers and the defaults.
struct AppConfigController<Context: RequestContext> {
    struct TileLayer: Encodable {
        var url: String
        var attribution: String
        var minZoom: Int?
        var maxZoom: Int?
        var bounds: [Double]?
    }

    struct AppConfig: ResponseEncodable {
        /// The offline base map from `--tiles`, drawn under every map type; nil without one.
        var offlineTiles: TileLayer?
        var standard: TileLayer
        var satellite: TileLayer
        /// Labels over the imagery for the hybrid map.
        var labels: TileLayer
        var cameraRadiusMeters: Double
        var breadcrumbSpacingMeters: Double
        /// True when address search (`/api/geocode`) is on (`--geocoder-url`).
        var geocoder: Bool
    }

    let configuration: ServerConfiguration
    let tiles: MBTilesReader?

    func addRoutes(to router: Router<Context>) {
        router.get("api/config") { _, _ in
            AppConfig(
                offlineTiles: tiles.map { tiles in
                    TileLayer(
                        url: "/tiles/{z}/{x}/{y}.\(tiles.metadata.format == "jpeg" ? "jpg" : tiles.metadata.format)",
                        attribution: tiles.metadata.attribution ?? tiles.metadata.name,
                        minZoom: tiles.metadata.minZoom, maxZoom: tiles.metadata.maxZoom, bounds: tiles.metadata.bounds)
                },
                standard: TileLayer(url: configuration.standardTilesURL, attribution: configuration.standardTilesAttribution),
                satellite: TileLayer(url: configuration.satelliteTilesURL, attribution: configuration.satelliteTilesAttribution),
                labels: TileLayer(url: configuration.labelTilesURL, attribution: configuration.satelliteTilesAttribution),
                cameraRadiusMeters: CameraRegion.recordingRadiusMeters,
                breadcrumbSpacingMeters: BreadcrumbTrail.defaultSpacingMeters,
                geocoder: configuration.geocoder != nil
            )
        }
    }
}
