import Foundation

/// Web Mercator (EPSG:3857) as slippy-map tiles use it: tile numbers, tile bounds and ground resolution.
///
///     WebMercator.tileCoordinates(of: Coordinate(latitude: 51.5, longitude: -0.125), zoom: 10)
///     // (x: 511.64…, y: 340.53…) — inside tile 511/340
public enum WebMercator {
    /// Latitude at which the square world map ends, ±85.0511287798…°: atan(sinh π).
    public static let maxLatitudeDegrees: Double = atan(sinh(Double.pi)) * 180 / .pi
    /// Tile edge in pixels of the standard raster tiles.
    public static let standardTileSizePixels = 256

    /// Fractional tile coordinates at `zoom`: x grows eastwards from the antimeridian, y southwards from
    /// the top of the map; the integer parts name the tile. Latitudes beyond `maxLatitudeDegrees` are clamped.
    public static func tileCoordinates(of coordinate: Coordinate, zoom: Int) -> (x: Double, y: Double) {
        let tiles = exp2(Double(zoom))
        let latitude = min(maxLatitudeDegrees, max(-maxLatitudeDegrees, coordinate.latitude)) * .pi / 180
        let x = (coordinate.longitude + 180) / 360 * tiles
        let y = (1 - log(tan(latitude) + 1 / cos(latitude)) / .pi) / 2 * tiles
        return (x, y)
    }

    /// The position at fractional tile coordinates (the inverse of `tileCoordinates(of:zoom:)`).
    ///
    ///     WebMercator.coordinate(tileX: 0, tileY: 0, zoom: 0)  // (85.0511…, -180): the map's top-left corner
    public static func coordinate(tileX: Double, tileY: Double, zoom: Int) -> Coordinate {
        let tiles = exp2(Double(zoom))
        let longitude = tileX / tiles * 360 - 180
        let latitude = atan(sinh(.pi * (1 - 2 * tileY / tiles))) * 180 / .pi
        return Coordinate(latitude: latitude, longitude: longitude)
    }

    /// Ground distance covered by one pixel at `latitudeDegrees` and `zoom`, metres:
    /// 2π·a·cos φ / (tileSize · 2^zoom).
    ///
    ///     WebMercator.metersPerPixel(latitudeDegrees: 0, zoom: 0)  // 156543.0339… for 256-pixel tiles
    public static func metersPerPixel(latitudeDegrees: Double, zoom: Int, tileSizePixels: Int = standardTileSizePixels) -> Double {
        2 * .pi * WGS84.semiMajorAxisMeters * cos(latitudeDegrees * .pi / 180) / (Double(tileSizePixels) * exp2(Double(zoom)))
    }

    /// The highest whole zoom at which `bounds` fits in a map of `widthPixels` × `heightPixels`, as a map
    /// library's "fit bounds" picks it (Leaflet's `getBoundsZoom` with whole zoom steps), at most `maximumZoom`.
    /// A box of no extent (a single point) gets `maximumZoom`.
    ///
    ///     // Central Cupertino, about 4.4 × 3.9 km, in a 390 × 420 map: zoom 13 (the box is 291 × 256 px there).
    ///     WebMercator.zoomToFit(GPXBounds(minLatitude: 37.30, minLongitude: -122.06, maxLatitude: 37.335, maxLongitude: -122.01),
    ///                           widthPixels: 390, heightPixels: 420)
    public static func zoomToFit(
        _ bounds: GPXBounds, widthPixels: Double, heightPixels: Double, maximumZoom: Int = 18,
        tileSizePixels: Int = standardTileSizePixels
    ) -> Int {
        // The box's size in pixels at zoom 0, then how many times it may double and still fit.
        let northWest = tileCoordinates(of: Coordinate(latitude: bounds.maxLatitude, longitude: bounds.minLongitude), zoom: 0)
        let southEast = tileCoordinates(of: Coordinate(latitude: bounds.minLatitude, longitude: bounds.maxLongitude), zoom: 0)
        let width = abs(southEast.x - northWest.x) * Double(tileSizePixels)
        let height = abs(southEast.y - northWest.y) * Double(tileSizePixels)
        let scale = min(width > 0 ? widthPixels / width : .infinity, height > 0 ? heightPixels / height : .infinity)
        guard scale.isFinite else { return maximumZoom }
        guard scale > 0 else { return 0 }
        return min(maximumZoom, max(0, Int(log2(scale).rounded(.down))))
    }
}

/// One slippy-map tile: `zoom`/`x`/`y` as in tile URLs.
public struct MapTile: Sendable, Hashable, Codable {
    public var x: Int
    public var y: Int
    public var zoom: Int

    public init(x: Int, y: Int, zoom: Int) {
        self.x = x
        self.y = y
        self.zoom = zoom
    }

    /// The tile that contains `coordinate` at `zoom` (points on the antimeridian or beyond the map's
    /// latitude limits fall into the edge tiles).
    ///
    ///     MapTile(containing: Coordinate(latitude: 51.5, longitude: -0.125), zoom: 10)  // 10/511/340
    public init(containing coordinate: Coordinate, zoom: Int) {
        let (x, y) = WebMercator.tileCoordinates(of: coordinate, zoom: zoom)
        let last = (1 << zoom) - 1
        self.init(x: min(last, max(0, Int(x.rounded(.down)))), y: min(last, max(0, Int(y.rounded(.down)))), zoom: zoom)
    }

    /// The tile's edges in degrees: west and east longitude, south and north latitude.
    public var bounds: GPXBounds {
        let northWest = WebMercator.coordinate(tileX: Double(x), tileY: Double(y), zoom: zoom)
        let southEast = WebMercator.coordinate(tileX: Double(x + 1), tileY: Double(y + 1), zoom: zoom)
        return GPXBounds(
            minLatitude: southEast.latitude, minLongitude: northWest.longitude,
            maxLatitude: northWest.latitude, maxLongitude: southEast.longitude
        )
    }
}
