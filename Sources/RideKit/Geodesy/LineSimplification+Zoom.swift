import Foundation

// A line simplified for a map's zoom level: what the track page draws (`GET /api/tracks/{id}?fit=…` or `?zoom=…`).

extension LineSimplification {
    /// The tolerance that draws a line at `zoom` the same as every point: the ground size of one pixel there,
    /// at `latitudeDegrees` (Web Mercator, 256-pixel tiles).
    ///
    ///     LineSimplification.toleranceMeters(forZoom: 16, latitudeDegrees: 0)    // 2.39 m
    public static func toleranceMeters(forZoom zoom: Int, latitudeDegrees: Double) -> Double {
        WebMercator.metersPerPixel(latitudeDegrees: latitudeDegrees, zoom: zoom)
    }

    /// The points to draw at `zoom`: no dropped point lies farther than one pixel of that zoom (measured at
    /// `latitudeDegrees`) from the line kept; the first and last points are always kept.
    ///
    /// Complexity: that of `douglasPeuckerIndices(of:toleranceMeters:)`.
    public static func simplified(_ points: [TrackPoint], forZoom zoom: Int, latitudeDegrees: Double) -> [TrackPoint] {
        guard points.count > 2 else { return points }
        let tolerance = toleranceMeters(forZoom: zoom, latitudeDegrees: latitudeDegrees)
        return douglasPeuckerIndices(of: points.map(\.coordinate), toleranceMeters: tolerance).map { points[$0] }
    }

    /// The zoom to simplify a line for that a map of `widthPixels` × `heightPixels` opens on, fitted to
    /// `bounds`: one closer than the zoom at which the box fits (the map may round its zoom the other way, and
    /// the line then still holds within a pixel; at the zoom it opens at, within half a pixel). At most 24.
    ///
    ///     // Central Cupertino in a 390 × 420 map fits at zoom 13: the line is simplified for zoom 14.
    ///     LineSimplification.detailZoom(
    ///         fitting: GPXBounds(minLatitude: 37.30, minLongitude: -122.06, maxLatitude: 37.335, maxLongitude: -122.01),
    ///         widthPixels: 390, heightPixels: 420)    // 14
    public static func detailZoom(fitting bounds: GPXBounds, widthPixels: Double, heightPixels: Double) -> Int {
        min(24, WebMercator.zoomToFit(bounds, widthPixels: widthPixels, heightPixels: heightPixels, maximumZoom: 23) + 1)
    }
}

extension GPXDocument {
    /// The document with every track segment and route simplified for `zoom` at `latitudeDegrees`
    /// (`LineSimplification.simplified(_:forZoom:latitudeDegrees:)`).
    public func simplified(forZoom zoom: Int, latitudeDegrees: Double) -> GPXDocument {
        simplified(toleranceMeters: LineSimplification.toleranceMeters(forZoom: zoom, latitudeDegrees: latitudeDegrees))
    }
}
