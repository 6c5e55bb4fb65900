import Foundation
import RideKit
import Testing

/// The share pages' map layout, on known geometry: Web Mercator's own tile numbers for known places, the frame
/// covered by its tiles exactly once, and the short way across the antimeridian.
@Suite struct StaticMapLayoutTests {
    /// A single point is in the middle of the frame at the highest zoom, inside the tile that OpenStreetMap's
    /// slippy-map formula names (Munich's Marienplatz at zoom 16: tile 34875/22743, computed apart, with Python, from
    /// x = (lon + 180) / 360 · 2^z and y = (1 − ln(tan φ + sec φ) / π) / 2 · 2^z).
    @Test func aPointSitsInTheMiddleOfItsTile() {
        let point = Coordinate(latitude: 48.13743, longitude: 11.57549)
        let layout = StaticMapLayout(coordinates: [point], width: 640, height: 360)
        #expect(layout.zoom == 16)
        let p = layout.pixel(of: point)
        #expect(abs(p.x - 320) < 1e-6 && abs(p.y - 180) < 1e-6)
        let holding = layout.tiles.filter { p.x >= $0.left && p.x < $0.left + 256 && p.y >= $0.top && p.y < $0.top + 256 }
        #expect(holding.count == 1)
        #expect(holding.first.map { ($0.x, $0.y) } ?? (0, 0) == (34875, 22743))
    }

    /// Every pixel of the frame lies in exactly one tile (sampled on a grid), whatever the frame's position.
    @Test(arguments: [(48.137, 11.575), (-33.86, 151.21), (0, 0), (84.9, -179.99), (64.1, -21.9)])
    func theTilesCoverTheFrameOnce(latitude: Double, longitude: Double) {
        let layout = StaticMapLayout(
            coordinates: [Coordinate(latitude: latitude, longitude: longitude), Coordinate(latitude: latitude - 0.01, longitude: longitude + 0.02)],
            width: 640, height: 360)
        for y in stride(from: 0.5, to: 360, by: 7) {
            for x in stride(from: 0.5, to: 640, by: 7) {
                let count = layout.tiles.filter { x >= $0.left && x < $0.left + 256 && y >= $0.top && y < $0.top + 256 }.count
                // Beyond the poles (the top of the world) there is no tile, and nothing to cover.
                let worldY = layout.tiles.first.map { y - $0.top + Double($0.y) * 256 } ?? 0
                if worldY >= 0 && worldY < 256 * Double(1 << layout.zoom) { #expect(count == 1, "pixel \(x), \(y)") }
            }
        }
        for tile in layout.tiles { #expect((0..<(1 << tile.zoom)).contains(tile.x) && (0..<(1 << tile.zoom)).contains(tile.y)) }
    }

    /// All points fall inside the frame, within its margin, and the zoom is the highest that allows it: one more
    /// doubles the extent past the frame.
    @Test func theZoomIsTheHighestThatFits() {
        let points = [Coordinate(latitude: 46.50, longitude: 6.60), Coordinate(latitude: 46.53, longitude: 6.66), Coordinate(latitude: 46.51, longitude: 6.63)]
        let layout = StaticMapLayout(coordinates: points, width: 640, height: 360, margin: 24)
        let pixels = points.map(layout.pixel(of:))
        for p in pixels { #expect(p.x >= 24 - 1e-9 && p.x <= 616 + 1e-9 && p.y >= 24 - 1e-9 && p.y <= 336 + 1e-9) }
        let spanX = pixels.map(\.x).max()! - pixels.map(\.x).min()!, spanY = pixels.map(\.y).max()! - pixels.map(\.y).min()!
        #expect(2 * spanX > 592 || 2 * spanY > 312)
    }

    /// A ride from 179.99° E to 179.99° W is 2.2 km long at the equator, not the width of the world.
    @Test func aLineAcrossTheAntimeridianGoesTheShortWay() {
        let west = Coordinate(latitude: -16.5, longitude: 179.99), east = Coordinate(latitude: -16.5, longitude: -179.99)
        let layout = StaticMapLayout(coordinates: [west, east], width: 640, height: 360)
        #expect(layout.zoom >= 12)
        #expect(layout.pixel(of: east).x > layout.pixel(of: west).x)
        #expect(Set(layout.tiles.map(\.x)).contains(0) && Set(layout.tiles.map(\.x)).contains((1 << layout.zoom) - 1))
    }
}
