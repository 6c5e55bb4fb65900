import Foundation

/// Where a map drawn without script puts its tiles and its points: a frame of `width` × `height` pixels in Web
/// Mercator at the highest zoom (at most `maximumZoom`) where every coordinate fits inside the margin, centred on
/// them. The share pages draw the tiles as images under an SVG of the line, at these positions.
///
///     let layout = StaticMapLayout(coordinates: [Coordinate(latitude: 48.137, longitude: 11.575)], width: 640, height: 360)
///     layout.zoom                 // 16 (`maximumZoom` for a single point)
///     layout.pixel(of: …)         // (320, 180): the point is in the middle
///     layout.tiles.count          // 6 or so: the 256-pixel tiles that cover the frame
///
/// A line across the antimeridian is drawn the short way: longitudes are taken within 180° of the first one, and
/// tile columns wrap around the world. O(points + tiles).
public struct StaticMapLayout: Sendable, Hashable {
    /// A tile and where its top left corner falls in the frame (pixels, may be negative).
    public struct Tile: Sendable, Hashable {
        public var zoom: Int
        public var x: Int
        public var y: Int
        public var left: Double
        public var top: Double
    }

    public let zoom: Int
    public let width: Double
    public let height: Double
    /// The frame's top left in world pixels at `zoom`.
    let originX: Double
    let originY: Double
    /// Longitudes are unwrapped around this one.
    let referenceLongitude: Double

    public static let tileSizePixels = 256.0

    /// `coordinates` must not be empty (a frame around nothing has no place); a single point gets `maximumZoom`.
    public init(coordinates: [Coordinate], width: Double, height: Double, margin: Double = 24, maximumZoom: Int = 16) {
        precondition(!coordinates.isEmpty && width > 2 * margin && height > 2 * margin)
        self.width = width
        self.height = height
        referenceLongitude = coordinates[0].longitude
        let reference = referenceLongitude
        func world(_ c: Coordinate, _ zoom: Int) -> (x: Double, y: Double) {
            var longitude = c.longitude - reference
            longitude -= 360 * (longitude / 360).rounded()
            let tile = WebMercator.tileCoordinates(of: Coordinate(latitude: c.latitude, longitude: reference + longitude), zoom: zoom)
            return (tile.x * Self.tileSizePixels, tile.y * Self.tileSizePixels)
        }
        // The extent at zoom 0, then the highest zoom where it still fits (each zoom doubles it).
        let atZero = coordinates.map { world($0, 0) }
        let spanX = atZero.map(\.x).max()! - atZero.map(\.x).min()!, spanY = atZero.map(\.y).max()! - atZero.map(\.y).min()!
        var zoom = maximumZoom
        while zoom > 0, spanX * exp2(Double(zoom)) > width - 2 * margin || spanY * exp2(Double(zoom)) > height - 2 * margin { zoom -= 1 }
        self.zoom = zoom
        let points = coordinates.map { world($0, zoom) }
        let centreX = (points.map(\.x).min()! + points.map(\.x).max()!) / 2, centreY = (points.map(\.y).min()! + points.map(\.y).max()!) / 2
        originX = centreX - width / 2
        originY = centreY - height / 2
    }

    /// Where a coordinate falls in the frame, pixels from its top left.
    public func pixel(of coordinate: Coordinate) -> (x: Double, y: Double) {
        var longitude = coordinate.longitude - referenceLongitude
        longitude -= 360 * (longitude / 360).rounded()
        let tile = WebMercator.tileCoordinates(of: Coordinate(latitude: coordinate.latitude, longitude: referenceLongitude + longitude), zoom: zoom)
        return (tile.x * Self.tileSizePixels - originX, tile.y * Self.tileSizePixels - originY)
    }

    /// The tiles that cover the frame, row by row; columns wrap around the world, rows beyond the poles are left out.
    public var tiles: [Tile] {
        let count = 1 << zoom
        let size = Self.tileSizePixels
        let firstX = Int((originX / size).rounded(.down)), lastX = Int(((originX + width) / size).rounded(.up)) - 1
        let firstY = max(0, Int((originY / size).rounded(.down))), lastY = min(count - 1, Int(((originY + height) / size).rounded(.up)) - 1)
        guard firstY <= lastY else { return [] }
        var result: [Tile] = []
        for y in firstY...lastY {
            for x in firstX...lastX {
                let wrapped = ((x % count) + count) % count
                result.append(Tile(zoom: zoom, x: wrapped, y: y, left: Double(x) * size - originX, top: Double(y) * size - originY))
            }
        }
        return result
    }
}
