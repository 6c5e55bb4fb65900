import Foundation
import Testing
import RideKit
import TestSupport

@Suite struct WebMercatorTests {
    @Test func worldTileCoversTheWholeMap() {
        let tile = MapTile(containing: Coordinate(latitude: 10, longitude: 10), zoom: 0)
        #expect(tile == MapTile(x: 0, y: 0, zoom: 0))
        #expect(abs(tile.bounds.maxLatitude - 85.0511287798066) < 1e-9)
        #expect(abs(tile.bounds.minLatitude + 85.0511287798066) < 1e-9)
        #expect(tile.bounds.minLongitude == -180)
        #expect(tile.bounds.maxLongitude == 180)
    }

    @Test func londonAtZoomTenIsTheKnownTile() {
        // Trafalgar Square on the OpenStreetMap tile grid: 10/511/340.
        #expect(MapTile(containing: Coordinate(latitude: 51.508, longitude: -0.128), zoom: 10) == MapTile(x: 511, y: 340, zoom: 10))
    }

    @Test func tileBoundsContainThePointAndTileAgain() {
        var random = SeededGenerator(seed: 5)
        for _ in 0..<1_000 {
            let point = Coordinate(latitude: random.symmetric(85), longitude: random.symmetric(179.999))
            let zoom = Int(random.unit() * 19)
            let bounds = MapTile(containing: point, zoom: zoom).bounds
            #expect(bounds.minLatitude <= point.latitude && point.latitude <= bounds.maxLatitude)
            #expect(bounds.minLongitude <= point.longitude && point.longitude <= bounds.maxLongitude)
        }
    }

    @Test func tileCoordinatesRoundTrip() {
        let point = Coordinate(latitude: -33.8688, longitude: 151.2093)
        let (x, y) = WebMercator.tileCoordinates(of: point, zoom: 15)
        let back = WebMercator.coordinate(tileX: x, tileY: y, zoom: 15)
        #expect(abs(back.latitude - point.latitude) < 1e-10)
        #expect(abs(back.longitude - point.longitude) < 1e-10)
    }

    @Test func polesAreClampedToTheMapEdge() {
        #expect(MapTile(containing: Coordinate(latitude: 90, longitude: 0), zoom: 3).y == 0)
        #expect(MapTile(containing: Coordinate(latitude: -90, longitude: 0), zoom: 3).y == 7)
        #expect(MapTile(containing: Coordinate(latitude: 0, longitude: 180), zoom: 3).x == 7)
    }

    @Test func metersPerPixelFollowsTheEquatorAndTheCosine() {
        // 2π·6378137 / 256 = 156,543.034 m per pixel at zoom 0 on the equator, halving with every zoom level.
        #expect(abs(WebMercator.metersPerPixel(latitudeDegrees: 0, zoom: 0) - 156_543.033_928) < 1e-5)
        #expect(abs(WebMercator.metersPerPixel(latitudeDegrees: 60, zoom: 10) - 156_543.033_928 / 2 / 1024) < 1e-6)
        #expect(abs(WebMercator.metersPerPixel(latitudeDegrees: 0, zoom: 1, tileSizePixels: 512) - 156_543.033_928 / 4) < 1e-6)
    }

    @Test func zoomToFitIsTheHighestZoomAtWhichTheBoxFits() {
        let cupertino = GPXBounds(minLatitude: 37.30, minLongitude: -122.06, maxLatitude: 37.335, maxLongitude: -122.01)
        let zoom = WebMercator.zoomToFit(cupertino, widthPixels: 390, heightPixels: 420)
        #expect(zoom == 13)
        // At that zoom the box fits, one zoom further it does not.
        func pixels(_ zoom: Int) -> (Double, Double) {
            let a = WebMercator.tileCoordinates(of: Coordinate(latitude: cupertino.maxLatitude, longitude: cupertino.minLongitude), zoom: zoom)
            let b = WebMercator.tileCoordinates(of: Coordinate(latitude: cupertino.minLatitude, longitude: cupertino.maxLongitude), zoom: zoom)
            return ((b.x - a.x) * 256, (b.y - a.y) * 256)
        }
        #expect(pixels(zoom).0 <= 390 && pixels(zoom).1 <= 420)
        #expect(pixels(zoom + 1).0 > 390 || pixels(zoom + 1).1 > 420)
        // A wider map fits more: the same box in 4× the pixels is two zooms closer.
        #expect(WebMercator.zoomToFit(cupertino, widthPixels: 1560, heightPixels: 1680) == 15)
        // A single point, and the limits.
        let point = GPXBounds(minLatitude: 10, minLongitude: 10, maxLatitude: 10, maxLongitude: 10)
        #expect(WebMercator.zoomToFit(point, widthPixels: 400, heightPixels: 400) == 18)
        #expect(WebMercator.zoomToFit(point, widthPixels: 400, heightPixels: 400, maximumZoom: 20) == 20)
        let world = GPXBounds(minLatitude: -80, minLongitude: -180, maxLatitude: 80, maxLongitude: 180)
        #expect(WebMercator.zoomToFit(world, widthPixels: 100, heightPixels: 100) == 0)
    }
}
