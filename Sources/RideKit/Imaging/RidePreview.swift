import Foundation

/// The picture chat apps show for a shared ride (issue 23): 1,200 × 630 pixels (the Open Graph size), the line in
/// red over map tiles when a tile set is given, else over a plain background, and a band at the bottom with the
/// figures written in `BitmapFont`.
///
///     let layout = RidePreview.layout(for: segments)
///     let canvas = RidePreview.render(segments: segments, text: "12.3 km · 230 m climb · 1:02 h", tiles: nil)
///     let png = PNGEncoder.encode(canvas)
///
/// The caller passes only what may be shown (the privacy-clipped segments): the picture draws each segment as its
/// own line, so a gap stays a gap. The map is Web Mercator at the highest whole zoom at which the line fits above
/// the band; a line across the antimeridian is drawn the short way. O(points + pixels).
public enum RidePreview {
    public static let width = 1_200
    public static let height = 630
    /// The band holding the figures, at the bottom.
    public static let bandHeight = 110
    /// Space kept free around the line, so that it never touches an edge or the band.
    public static let margin = 48.0
    public static let background = RGBAColor(red: 233, green: 236, blue: 239)
    public static let lineColor = RGBAColor(red: 198, green: 40, blue: 40)
    public static let casingColor = RGBAColor(red: 255, green: 255, blue: 255)
    public static let lineWidth = 6.0
    /// The white edge under the line that keeps it visible on a busy map.
    public static let casingWidth = 10.0
    public static let bandColor = RGBAColor(red: 33, green: 37, blue: 41, alpha: 230)
    public static let textColor = RGBAColor(red: 255, green: 255, blue: 255)

    /// Where the map lies under the canvas: its whole zoom and the map pixel (256-pixel tiles at `zoom`, from the
    /// map's top left, possibly beyond one world width after the antimeridian) at the canvas's top left.
    public struct Layout: Sendable, Hashable {
        public var zoom: Int
        public var originX: Double
        public var originY: Double

        public init(zoom: Int, originX: Double, originY: Double) {
            self.zoom = zoom
            self.originX = originX
            self.originY = originY
        }
    }

    /// Map tiles to draw under the line: `tile(zoom, x, y)` gives a decoded tile or nil; zooms above
    /// `maximumZoom` are drawn by enlarging the tiles of `maximumZoom`, and none are drawn below `minimumZoom`.
    public struct Tiles: Sendable {
        public var minimumZoom: Int
        public var maximumZoom: Int
        public var tile: @Sendable (_ zoom: Int, _ x: Int, _ y: Int) -> RGBACanvas?

        public init(minimumZoom: Int, maximumZoom: Int, tile: @escaping @Sendable (_ zoom: Int, _ x: Int, _ y: Int) -> RGBACanvas?) {
            self.minimumZoom = minimumZoom
            self.maximumZoom = maximumZoom
            self.tile = tile
        }
    }

    /// The positions at zoom 0 in tile units (0…1 across the world), each longitude moved by whole worlds to be
    /// within half a world of the one before: a line across the antimeridian stays one line.
    static func unwrapped(_ segments: [[Coordinate]]) -> [[(x: Double, y: Double)]] {
        var previous: Double?
        return segments.map { segment in
            segment.map { coordinate in
                var (x, y) = WebMercator.tileCoordinates(of: coordinate, zoom: 0)
                if let previous {
                    x += ((previous - x) + 0.5).rounded(.down)
                }
                previous = x
                return (x, y)
            }
        }
    }

    /// The zoom and position that fit every point of `segments` in the canvas above the band, centred; the whole
    /// world at zoom 0 when there is nothing to show.
    public static func layout(for segments: [[Coordinate]], maximumZoom: Int = 17) -> Layout {
        let points = unwrapped(segments).flatMap { $0 }
        let areaWidth = Double(width) - 2 * margin, areaHeight = Double(height - bandHeight) - 2 * margin
        guard let first = points.first else {
            return Layout(zoom: 0, originX: 128 - Double(width) / 2, originY: 128 - Double(height - bandHeight) / 2)
        }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for p in points {
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        let spanX = (maxX - minX) * 256, spanY = (maxY - minY) * 256
        let scale = min(spanX > 0 ? areaWidth / spanX : .infinity, spanY > 0 ? areaHeight / spanY : .infinity)
        let zoom = scale.isFinite ? max(0, min(maximumZoom, Int(log2(scale).rounded(.down)))) : maximumZoom
        let size = 256 * exp2(Double(zoom))
        let centreX = (minX + maxX) / 2 * size, centreY = (minY + maxY) / 2 * size
        return Layout(zoom: zoom, originX: centreX - Double(width) / 2, originY: centreY - Double(height - bandHeight) / 2)
    }

    /// The segments in canvas pixels under `layout`: exactly the points the picture draws its lines through.
    public static func projected(_ segments: [[Coordinate]], layout: Layout) -> [[(x: Double, y: Double)]] {
        let size = 256 * exp2(Double(layout.zoom))
        return unwrapped(segments).map { segment in segment.map { ($0.x * size - layout.originX, $0.y * size - layout.originY) } }
    }

    /// The picture: tiles (or the plain background), the line, and `text` in the band, as large as fits.
    public static func render(segments: [[Coordinate]], text: String, tiles: Tiles? = nil) -> RGBACanvas {
        var canvas = RGBACanvas(width: width, height: height)
        canvas.fill(background)
        let layout = layout(for: segments, maximumZoom: 17)
        if let tiles { drawTiles(tiles, layout: layout, on: &canvas) }
        let lines = projected(segments, layout: layout)
        for line in lines { canvas.drawPolyline(line, color: casingColor, width: casingWidth) }
        for line in lines { canvas.drawPolyline(line, color: lineColor, width: lineWidth) }
        for y in (height - bandHeight)..<height {
            for x in 0..<width { canvas.blend(x: x, y: y, color: bandColor) }
        }
        let room = width - 2 * 40
        var scale = 6
        while scale > 1, BitmapFont.width(of: text, scale: scale) > room { scale -= 1 }
        let textHeight = BitmapFont.glyphHeight * scale
        BitmapFont.draw(
            text, on: &canvas, x: (width - BitmapFont.width(of: text, scale: scale)) / 2,
            y: height - bandHeight + (bandHeight - textHeight) / 2, scale: scale, color: textColor)
        return canvas
    }

    /// Paints the tiles under the canvas, pixel by pixel (nearest neighbour when a tile is enlarged), over the
    /// background; missing tiles leave it showing.
    static func drawTiles(_ tiles: Tiles, layout: Layout, on canvas: inout RGBACanvas) {
        let source = min(layout.zoom, tiles.maximumZoom)
        guard source >= tiles.minimumZoom, source >= 0 else { return }
        let shrink = exp2(Double(layout.zoom - source))
        let count = 1 << source
        var cache: [Int: RGBACanvas?] = [:]
        for y in 0..<(height - bandHeight) {
            let mapY = ((layout.originY + Double(y) + 0.5) / shrink).rounded(.down)
            guard mapY >= 0, mapY < Double(count * 256) else { continue }
            let tileY = Int(mapY) / 256, inY = Int(mapY) % 256
            for x in 0..<width {
                let mapX = ((layout.originX + Double(x) + 0.5) / shrink).rounded(.down)
                let column = Int((mapX / 256).rounded(.down))
                let inX = Int(mapX) - column * 256
                let tileX = ((column % count) + count) % count
                let key = tileY * count + tileX
                let tile: RGBACanvas?
                if let cached = cache[key] {
                    tile = cached
                } else {
                    tile = tiles.tile(source, tileX, tileY)
                    cache[key] = .some(tile)
                }
                guard let tile else { continue }
                let colour = tile[min(tile.width - 1, inX * tile.width / 256), min(tile.height - 1, inY * tile.height / 256)]
                canvas.blend(x: x, y: y, color: colour)
            }
        }
    }
}
