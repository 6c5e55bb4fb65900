import Foundation
import Testing
import RideKit

@Suite struct CrossTrackTests {
    let start = Coordinate(latitude: 0, longitude: 0)
    let end = Coordinate(latitude: 0, longitude: 1)
    /// One thousandth of a degree on the mean sphere, metres.
    let milliDegree = WGS84.meanRadiusMeters * 0.001 * .pi / 180

    @Test func pointSouthOfAnEastboundPathIsToItsRight() {
        let d = Coordinate(latitude: -0.001, longitude: 0.5).crossTrackDistanceMeters(fromPathStart: start, to: end)
        #expect(abs(d - milliDegree) < 1e-6)
    }

    @Test func pointNorthOfAnEastboundPathIsToItsLeft() {
        let d = Coordinate(latitude: 0.001, longitude: 0.5).crossTrackDistanceMeters(fromPathStart: start, to: end)
        #expect(abs(d + milliDegree) < 1e-6)
    }

    @Test func alongTrackDistanceIsTheFootOfThePerpendicular() {
        let along = Coordinate(latitude: 0.001, longitude: 0.5).alongTrackDistanceMeters(fromPathStart: start, to: end)
        #expect(abs(along - 500 * milliDegree) < 1e-3)
    }

    @Test func alongTrackIsNegativeBehindTheStart() {
        let along = Coordinate(latitude: 0.0001, longitude: -0.01).alongTrackDistanceMeters(fromPathStart: start, to: end)
        #expect(abs(along + 10 * milliDegree) < 1e-3)
    }

    @Test func metreScaleDistancesKeepTheirPrecision() {
        // A 20 m path and a point 3 m to its side, 12 m along: the acos form would be off by centimetres.
        let a = Coordinate(latitude: 46.5, longitude: 6.6)
        let b = a.destination(distanceMeters: 20, bearingDegrees: 30)
        let foot = a.destination(distanceMeters: 12, bearingDegrees: 30)
        let point = foot.destination(distanceMeters: 3, bearingDegrees: 120)
        #expect(abs(point.crossTrackDistanceMeters(fromPathStart: a, to: b) - 3) < 0.03)
        #expect(abs(point.alongTrackDistanceMeters(fromPathStart: a, to: b) - 12) < 0.03)
    }
}
