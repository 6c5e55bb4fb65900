import Foundation
import RideKit
import Synchronization
import Testing
import TestSupport

/// The shared ride's preview picture: where the line goes (Web Mercator computed here from its formula), that it is
/// drawn there and nowhere else, the tiles under it, and the figures' font.
@Suite struct RidePreviewTests {
    /// Map pixel at `zoom` by the textbook formula, independent of RideKit's WebMercator.
    static func mapPixel(_ latitude: Double, _ longitude: Double, zoom: Int) -> (x: Double, y: Double) {
        let size = 256 * pow(2, Double(zoom)), phi = latitude * .pi / 180
        return ((longitude + 180) / 360 * size, (1 - asinh(tan(phi)) / .pi) / 2 * size)
    }

    /// 8 km east then 3 km north from Lausanne.
    static let segments: [[Coordinate]] = {
        let start = Coordinate(latitude: 46.52, longitude: 6.63)
        let corner = start.destination(distanceMeters: 8_000, bearingDegrees: 90)
        let east = (0...80).map { start.destination(distanceMeters: Double($0) * 100, bearingDegrees: 90) }
        let north = (1...30).map { corner.destination(distanceMeters: Double($0) * 100, bearingDegrees: 0) }
        return [east + north]
    }()

    @Test func theLineFillsTheAreaAboveTheBandAtTheHighestZoomThatFits() {
        let layout = RidePreview.layout(for: Self.segments)
        let points = RidePreview.projected(Self.segments, layout: layout).flatMap { $0 }
        let area = (minX: RidePreview.margin, maxX: Double(RidePreview.width) - RidePreview.margin,
                    minY: RidePreview.margin, maxY: Double(RidePreview.height - RidePreview.bandHeight) - RidePreview.margin)
        for p in points { #expect(p.x >= area.minX - 1e-6 && p.x <= area.maxX + 1e-6 && p.y >= area.minY - 1e-6 && p.y <= area.maxY + 1e-6) }
        // The projection is Web Mercator at the layout's zoom.
        let first = Self.mapPixel(46.52, 6.63, zoom: layout.zoom)
        #expect(abs(points[0].x - (first.x - layout.originX)) < 1e-6 && abs(points[0].y - (first.y - layout.originY)) < 1e-6)
        // One zoom more would not fit: 8 km at 46.5° is about 11,000 Mercator metres, which at zoom z spans
        // 11,000 / (156,543 / 2^z) pixels.
        let xs = points.map(\.x), ys = points.map(\.y)
        let spanX = xs.max()! - xs.min()!, spanY = ys.max()! - ys.min()!
        #expect(spanX * 2 > area.maxX - area.minX || spanY * 2 > area.maxY - area.minY)
        #expect(layout.zoom == 13)
    }

    @Test func aLineAcrossTheAntimeridianIsDrawnTheShortWay() {
        let segments = [[Coordinate(latitude: -17, longitude: 179.99), Coordinate(latitude: -17, longitude: -179.99)]]
        let points = RidePreview.projected(segments, layout: RidePreview.layout(for: segments)).flatMap { $0 }
        // 0.02° of longitude at zoom z is 0.02 / 360 × 256 × 2^z pixels, and the second point is east of the first.
        let layout = RidePreview.layout(for: segments)
        let expected = 0.02 / 360 * 256 * pow(2, Double(layout.zoom))
        #expect(abs((points[1].x - points[0].x) - expected) < 1e-3)
    }

    @Test func theLineIsDrawnWhereItIsProjectedAndNowhereElse() throws {
        let canvas = RidePreview.render(segments: Self.segments, text: "11.0 km · 0:30 h · 12 m climb")
        let png = try DecodedPNG(PNGEncoder.encode(canvas))
        let layout = RidePreview.layout(for: Self.segments)
        let points = RidePreview.projected(Self.segments, layout: layout).flatMap { $0 }
        for p in points {
            let pixel = png.rgba(x: Int(p.x), y: Int(p.y))
            #expect(pixel == [198, 40, 40, 255], "\(p): \(pixel)")
        }
        // Away from the line (more than the casing's half width from every point's segment), the plain background.
        var coloured = 0
        for y in 0..<(RidePreview.height - RidePreview.bandHeight) {
            for x in 0..<RidePreview.width where png.rgba(x: x, y: y) != [233, 236, 239, 255] {
                coloured += 1
                let near = zip(points, points.dropFirst()).contains { a, b in
                    Self.distance((Double(x) + 0.5, Double(y) + 0.5), a, b) <= RidePreview.casingWidth / 2 + 1.5
                }
                #expect(near, "pixel \(x),\(y) coloured away from the line")
                if !near { return }
            }
        }
        #expect(coloured > 1_000)
        // The band holds the figures in white.
        var white = 0
        for y in (RidePreview.height - RidePreview.bandHeight)..<RidePreview.height {
            for x in 0..<RidePreview.width where png.rgba(x: x, y: y) == [255, 255, 255, 255] { white += 1 }
        }
        let inkPerGlyph = "11.0 km · 0:30 h · 12 m climb".map { BitmapFont.glyph($0).flatMap { $0 }.filter { $0 }.count }.reduce(0, +)
        #expect(white == inkPerGlyph * 36)  // scale 6: each font pixel is 6 × 6
    }

    static func distance(_ p: (Double, Double), _ a: (x: Double, y: Double), _ b: (x: Double, y: Double)) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let t = max(0, min(1, ((p.0 - a.x) * dx + (p.1 - a.y) * dy) / max(dx * dx + dy * dy, 1e-12)))
        return hypot(p.0 - (a.x + t * dx), p.1 - (a.y + t * dy))
    }

    @Test func tilesAreDrawnUnderTheLineAndEnlargedAboveTheSetsLastZoom() throws {
        let blue = RGBAColor(red: 20, green: 60, blue: 200)
        var tile = RGBACanvas(width: 256, height: 256)
        tile.fill(blue)
        // The top left quarter of each tile green: enlarged by 2^(13 − 11) = 4, a green block 512 pixels wide.
        for y in 0..<128 { for x in 0..<128 { tile[x, y] = RGBAColor(red: 0, green: 200, blue: 0) } }
        let requested = Mutex<Set<[Int]>>([])
        let tiles = RidePreview.Tiles(minimumZoom: 0, maximumZoom: 11) { [tile] zoom, x, y in
            requested.withLock { _ = $0.insert([zoom, x, y]) }
            return tile
        }
        let canvas = RidePreview.render(segments: Self.segments, text: "", tiles: tiles)
        let layout = RidePreview.layout(for: Self.segments)
        #expect(requested.withLock { $0 }.allSatisfy { $0[0] == 11 })
        // Every tile at zoom 11 that the canvas covers was asked for once.
        let left = Int((layout.originX / 4 / 256).rounded(.down)), right = Int(((layout.originX + 1_200) / 4 / 256).rounded(.down))
        let top = Int((layout.originY / 4 / 256).rounded(.down)), bottom = Int(((layout.originY + 520) / 4 / 256).rounded(.down))
        #expect(requested.withLock { $0.count } == (right - left + 1) * (bottom - top + 1))
        // A pixel far from the line: green where its zoom-11 pixel is in a tile's top left quarter, else blue.
        let x = 5, y = 5
        let mapX = Int(((layout.originX + 5.5) / 4).rounded(.down)), mapY = Int(((layout.originY + 5.5) / 4).rounded(.down))
        let green = mapX % 256 < 128 && mapY % 256 < 128
        #expect(canvas[x, y] == (green ? RGBAColor(red: 0, green: 200, blue: 0) : blue))
        // Below the set's first zoom: no tiles.
        let none = RidePreview.render(segments: Self.segments, text: "", tiles: RidePreview.Tiles(minimumZoom: 14, maximumZoom: 16) { [tile] _, _, _ in tile })
        #expect(none[5, 5] == RidePreview.background)
    }

    @Test func theFontHasADistinctGlyphForEveryCharacterOfTheFigures() {
        let characters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ .,:·-/%()'+")
        var seen: Set<[[Bool]]> = []
        for c in characters {
            let glyph = BitmapFont.glyph(c)
            #expect(glyph.count == 7 && glyph.allSatisfy { $0.count == 5 })
            #expect(BitmapFont.hasGlyph(c))
            #expect(seen.insert(glyph).inserted, "\(c) looks like another character")
            if c != " " { #expect(glyph.flatMap { $0 }.contains(true)) }
        }
        #expect(BitmapFont.glyph("k") == BitmapFont.glyph("K"))
        #expect(!BitmapFont.hasGlyph("é") && BitmapFont.glyph("é") != BitmapFont.glyph(" "))
        #expect(BitmapFont.width(of: "", scale: 3) == 0 && BitmapFont.width(of: "12", scale: 3) == 33)
        // Drawn at scale 2: each ink pixel of "7" is a 2 × 2 block at its place.
        var canvas = RGBACanvas(width: 12, height: 16)
        BitmapFont.draw("7", on: &canvas, x: 1, y: 1, scale: 2, color: RGBAColor(red: 0, green: 0, blue: 0))
        let glyph = BitmapFont.glyph("7")
        for y in 0..<16 {
            for x in 0..<12 {
                let fx = (x - 1) / 2, fy = (y - 1) / 2
                let ink = x >= 1 && y >= 1 && fx < 5 && fy < 7 && glyph[fy][fx]
                #expect((canvas[x, y].alpha == 255) == ink)
            }
        }
    }
}
