import Foundation
import Testing
import RideKit
import TestSupport

/// Heatmap tiles drawn from lines, checked pixel by pixel against geometry computed here from the coordinates (the
/// Web Mercator formula and a segment–square intersection test), through the PNG the server would send.
@Suite struct HeatmapTileTests {
    /// A line crossing part of Cupertino diagonally (about 1.7 km).
    static let start = Coordinate(latitude: 37.3230, longitude: -122.0322)
    static let end = Coordinate(latitude: 37.3318, longitude: -122.0165)

    /// The pixel position of a coordinate at a zoom, in 256-pixel units from the map's top left, by the formula.
    static func pixel(_ c: Coordinate, zoom: Int) -> (x: Double, y: Double) {
        let n = pow(2.0, Double(zoom)) * 256
        let lat = c.latitude * .pi / 180
        return ((c.longitude + 180) / 360 * n, (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)
    }

    /// Whether the segment a–b meets the open square x…x+1 × y…y+1 shrunk by `margin`: the parameter ranges in which
    /// the segment is inside the x slab and inside the y slab overlap.
    static func segment(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), meetsPixel x: Int, _ y: Int, margin: Double) -> Bool {
        func slab(_ p: Double, _ q: Double, _ low: Double, _ high: Double) -> (Double, Double)? {
            if p == q { return (p > low && p < high) ? (0, 1) : nil }
            let t1 = (low - p) / (q - p), t2 = (high - p) / (q - p)
            let lo = max(0, min(t1, t2)), hi = min(1, max(t1, t2))
            return lo < hi ? (lo, hi) : nil
        }
        guard let sx = slab(a.x, b.x, Double(x) + margin, Double(x + 1) - margin),
              let sy = slab(a.y, b.y, Double(y) + margin, Double(y + 1) - margin) else { return false }
        return max(sx.0, sy.0) < min(sx.1, sy.1)
    }

    /// Distance from the pixel's centre to the segment, pixels.
    static func distance(_ a: (x: Double, y: Double), _ b: (x: Double, y: Double), toPixel x: Int, _ y: Int) -> Double {
        let px = Double(x) + 0.5, py = Double(y) + 0.5
        let dx = b.x - a.x, dy = b.y - a.y
        let t = max(0, min(1, ((px - a.x) * dx + (py - a.y) * dy) / max(1e-12, dx * dx + dy * dy)))
        let cx = a.x + t * dx - px, cy = a.y + t * dy - py
        return (cx * cx + cy * cy).squareRoot()
    }

    @Test(arguments: [10, 13, 14, 16, 18])
    func aKnownLineIsDrawnInThePixelsItCrosses(zoom: Int) throws {
        let line = HeatmapLine(segments: [[Self.start, Self.end]])
        let a = Self.pixel(Self.start, zoom: zoom), b = Self.pixel(Self.end, zoom: zoom)
        // Every tile the line's ends and middle fall in.
        var tiles = Set<TileXY>()
        for t in stride(from: 0.0, through: 1.0, by: 0.01) {
            tiles.insert(TileXY(x: Int((a.x + (b.x - a.x) * t) / 256), y: Int((a.y + (b.y - a.y) * t) / 256)))
        }
        var drawnPixels = 0
        for tile in tiles {
            let counts = HeatmapCounts.draw([line], tile: MapTile(x: tile.x, y: tile.y, zoom: zoom))
            let png = try DecodedPNG(HeatmapStyle.png(counts))
            #expect(png.width == 256 && png.height == 256)
            let ta = (a.x - Double(tile.x * 256), a.y - Double(tile.y * 256)), tb = (b.x - Double(tile.x * 256), b.y - Double(tile.y * 256))
            for y in 0..<256 {
                for x in 0..<256 {
                    let drawn = png.alpha(x: x, y: y) != 0
                    #expect(drawn == (counts[x, y] > 0))
                    if drawn {
                        drawnPixels += 1
                        #expect(counts[x, y] == 1)
                        // Nothing drawn away from the line.
                        #expect(Self.distance(ta, tb, toPixel: x, y) < 0.75, "zoom \(zoom) tile \(tile) pixel \(x),\(y)")
                    } else {
                        // Every pixel the line clearly passes through is drawn; slack for the stored positions, which keep
                        // 2^(zoom − 22) of a pixel (1/16 at zoom 18).
                        #expect(!Self.segment(ta, tb, meetsPixel: x, y, margin: 1.5 * pow(2, Double(zoom - 22)) + 1.0 / 1024), "zoom \(zoom) tile \(tile) pixel \(x),\(y)")
                    }
                }
            }
        }
        // A supercover has at least as many pixels as the line's longer extent.
        #expect(Double(drawnPixels) >= max(abs(b.x - a.x), abs(b.y - a.y)))
    }

    @Test func lowZoomPixelsAreThoseTheTileDrawingGives() {
        let line = HeatmapLine(segments: [[Self.start, Self.end, Coordinate(latitude: 37.35, longitude: -122.0)]])
        let pixels = line.pixels(zooms: 0...16)
        for (key, indexes) in pixels {
            let counts = HeatmapCounts.draw([line], tile: MapTile(x: key.x, y: key.y, zoom: key.zoom))
            let drawn = (0..<HeatmapCounts.pixelCount).filter { counts.counts[$0] > 0 }.map(UInt16.init)
            #expect(drawn == indexes, "\(key)")
        }
        // Each zoom's tiles hold every pixel: at zoom 0 the whole line is a few pixels of one tile.
        #expect(pixels.keys.filter { $0.zoom == 0 } == [HeatmapTileKey(zoom: 0, x: 0, y: 0)])
    }

    @Test func tilesAwayFromEveryRideAreTransparent() throws {
        let line = HeatmapLine(segments: [[Self.start, Self.end]])
        let here = MapTile(containing: Self.start, zoom: 15)
        for tile in [MapTile(x: here.x + 3, y: here.y, zoom: 15), MapTile(x: here.x, y: here.y - 2, zoom: 15), MapTile(x: 0, y: 0, zoom: 15)] {
            let png = try DecodedPNG(HeatmapStyle.png(HeatmapCounts.draw([line], tile: tile)))
            #expect(png.pixels.allSatisfy { $0 == 0 })
        }
    }

    @Test func aPixelCountsEachTrackOnceAndTracksAddUp() {
        // One track passing three times over the same street, another once.
        let back = [Self.start, Self.end, Self.start, Self.end]
        let counts = HeatmapCounts.draw(
            [HeatmapLine(segments: [back]), HeatmapLine(segments: [[Self.start, Self.end]])], tile: MapTile(containing: Self.start, zoom: 12))
        #expect(counts.maximum == 2)
        #expect(HeatmapStyle.color(count: 2) != HeatmapStyle.color(count: 1))
        #expect(HeatmapStyle.color(count: 0).alpha == 0)
    }

    @Test func aLongSegmentCostsOnlyItsPixelsInTheTile() {
        // A 15 km straight line at zoom 18 crosses about 25,000 pixels, nearly all outside the tile asked for.
        let a = Coordinate(latitude: 37.30, longitude: -122.10), b = Coordinate(latitude: 37.30, longitude: -121.93)
        let tile = MapTile(containing: Coordinate(latitude: 37.30, longitude: -122.0), zoom: 18)
        let counts = HeatmapCounts.draw([HeatmapLine(segments: [[a, b]])], tile: tile)
        let drawn = counts.counts.filter { $0 > 0 }.count
        #expect(drawn >= 256 && drawn <= 512)
    }

    @Test func storedCountsAndLinesReadBackAndDamageIsRefused() throws {
        var counts = HeatmapCounts()
        counts.add(pixels: [0, 5, 65535], delta: 1)
        counts.add(pixels: [5], delta: 3)
        #expect(try HeatmapCounts(encoded: counts.encoded()) == counts)
        counts.add(pixels: [5, 0, 0], delta: -10)
        #expect(counts.counts[5] == 0 && counts.counts[0] == 0 && counts.counts[65535] == 1)
        let line = HeatmapLine(segments: [[Self.start, Self.end], [Self.end]])
        let origin = WorldPoint(x: 1 << 20, y: 1 << 21)
        #expect(try HeatmapLine(encoded: line.encoded(origin: origin), origin: origin) == line)
        for damaged in [Data([5]), Data([1, 200]), Data([0, 0]), line.encoded().dropLast()] {
            #expect(throws: HeatmapDataError.self) { try HeatmapLine(encoded: Data(damaged)) }
        }
        #expect(throws: HeatmapDataError.self) { try HeatmapCounts(encoded: Data([1, 0, 1])) }  // a step of 0
        #expect(throws: HeatmapDataError.self) { try HeatmapCounts(encoded: Data([2, 0x80, 0x80, 0x04, 1, 1, 1])) }  // beyond the tile
    }

    @Test func requestsOutsideTheMapAreRefusedNamingTheField() throws {
        let ok = try HeatmapRequest(z: "14", x: "2636", y: "6366", kind: "run", year: "2024")
        #expect(ok.tile == MapTile(x: 2636, y: 6366, zoom: 14) && ok.filter == HeatmapFilter(kind: .run, year: 2024))
        let cases: [(String, String, String, String?, String?, String)] = [
            ("19", "0", "0", nil, nil, "z"), ("3", "8", "0", nil, nil, "x"), ("3", "0", "8", nil, nil, "y"), ("-1", "0", "0", nil, nil, "z"),
            ("1e1", "0", "0", nil, nil, "z"), ("2", "0x1", "0", nil, nil, "x"), ("2", "", "0", nil, nil, "x"),
            ("99999999999999999999", "0", "0", nil, nil, "z"), ("2", "0", "0", "route", nil, "kind"), ("2", "0", "0", "bike", nil, "kind"),
            ("2", "0", "0", nil, "1900", "year"), ("2", "0", "0", nil, "20x4", "year"), ("2", "0", "0", nil, "99999", "year"),
        ]
        for (z, x, y, kind, year, field) in cases {
            #expect(throws: HeatmapRequestError.self) { try HeatmapRequest(z: z, x: x, y: y, kind: kind, year: year) }
            do {
                _ = try HeatmapRequest(z: z, x: x, y: y, kind: kind, year: year)
            } catch .invalid(let named, _) {
                #expect(named == field)
            }
        }
    }
}
