import Foundation
import Testing
import RideKit

/// A line simplified for a map zoom: one pixel of that zoom is the tolerance.
@Suite struct LineSimplificationZoomTests {
    /// 1 km east along `latitude`, 10 m apart, with one point `bump` metres north in the middle.
    static func line(latitude: Double, bump: Double) -> [TrackPoint] {
        let start = Coordinate(latitude: latitude, longitude: 8)
        return (0...100).map { index in
            let position = offset(start, east: Double(index) * 10, north: index == 50 ? bump : 0)
            return TrackPoint(latitude: position.latitude, longitude: position.longitude)
        }
    }

    @Test func thePixelIsTheTolerance() {
        // 2π · 6,378,137 m / 256 = 156,543.03 m per pixel at zoom 0 on the equator; halved per zoom and by cos φ.
        #expect(abs(LineSimplification.toleranceMeters(forZoom: 0, latitudeDegrees: 0) - 156_543.034) < 0.001)
        #expect(abs(LineSimplification.toleranceMeters(forZoom: 16, latitudeDegrees: 0) - 2.388_66) < 0.000_01)
        #expect(abs(LineSimplification.toleranceMeters(forZoom: 16, latitudeDegrees: 60) - 1.194_33) < 0.000_01)
    }

    @Test func aBumpUnderAPixelIsDroppedAndOneOverItKept() {
        // 1.8 m: under a pixel at zoom 16 on the equator (2.39 m), over one at zoom 17 (1.19 m).
        let line = Self.line(latitude: 0, bump: 1.8)
        #expect(LineSimplification.simplified(line, forZoom: 16, latitudeDegrees: 0).count == 2)
        // Kept: the ends, the bump and its two neighbours (the lines to the bump rise 1.76 m by them).
        #expect(LineSimplification.simplified(line, forZoom: 17, latitudeDegrees: 0).count == 5)
        // At 60° a pixel covers half the ground: zoom 16 already keeps it.
        let north = Self.line(latitude: 60, bump: 1.8)
        #expect(LineSimplification.simplified(north, forZoom: 16, latitudeDegrees: 60).count == 5)
    }

    @Test(arguments: [0, 1, 2])
    func fewPointsAreAllKept(_ count: Int) {
        let points = (0..<count).map { TrackPoint(latitude: Double($0) * 0.001, longitude: 0) }
        #expect(LineSimplification.simplified(points, forZoom: 0, latitudeDegrees: 0) == points)
    }

    @Test func theDetailZoomIsOneCloserThanTheFit() {
        // Central Cupertino, about 4.4 × 3.9 km, fits a 390 × 420 map at zoom 13 (291 × 256 px there).
        let cupertino = GPXBounds(minLatitude: 37.30, minLongitude: -122.06, maxLatitude: 37.335, maxLongitude: -122.01)
        #expect(LineSimplification.detailZoom(fitting: cupertino, widthPixels: 390, heightPixels: 420) == 14)
        // A single point fits at any zoom: the closest the API allows.
        let point = GPXBounds(minLatitude: 47, minLongitude: 8, maxLatitude: 47, maxLongitude: 8)
        #expect(LineSimplification.detailZoom(fitting: point, widthPixels: 100, heightPixels: 100) == 24)
    }

    @Test func aDocumentIsSimplifiedSegmentBySegment() {
        let document = GPXDocument(tracks: [Track(segments: [TrackSegment(points: Self.line(latitude: 0, bump: 1.8))])])
        let simplified = document.simplified(forZoom: 16, latitudeDegrees: 0)
        #expect(simplified.tracks[0].segments[0].points.count == 2)
    }
}
