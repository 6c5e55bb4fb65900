import Foundation
import Testing
import RideKit
import TestSupport

@Suite struct BearingTests {
    @Test(arguments: [((0.0, 1.0), 90.0), ((1.0, 0.0), 0.0), ((0.0, -1.0), 270.0), ((-1.0, 0.0), 180.0)])
    func cardinalDirectionsFromTheOrigin(_ to: (Double, Double), _ expected: Double) {
        let bearing = Coordinate(latitude: 0, longitude: 0).initialBearingDegrees(to: Coordinate(latitude: to.0, longitude: to.1))
        #expect(angleDifference(bearing, expected) < 1e-9)
    }

    @Test func bearingAcrossTheAntimeridianPointsTheShortWay() {
        let bearing = Coordinate(latitude: 0, longitude: 179.5).initialBearingDegrees(to: Coordinate(latitude: 0, longitude: -179.5))
        #expect(angleDifference(bearing, 90) < 1e-9)
    }

    @Test func greatCircleBearingAgreesWithTheGeodesicWithinAFifthOfADegree() {
        var random = SeededGenerator(seed: 11)
        for _ in 0..<2_000 {
            let start = Coordinate(latitude: random.symmetric(80), longitude: random.symmetric(180))
            let end = start.destination(distanceMeters: 10 + random.unit() * 50_000, bearingDegrees: random.unit() * 360)
            let geodesic = Vincenty.inverse(from: start, to: end).initialBearingDegrees
            #expect(angleDifference(start.initialBearingDegrees(to: end), geodesic) < 0.2)
        }
    }

    @Test func destinationTravelsTheGivenDistanceAndBearing() {
        let start = Coordinate(latitude: 47.37, longitude: 8.54)
        let end = start.destination(distanceMeters: 10_000, bearingDegrees: 45)
        let check = Vincenty.inverse(from: start, to: end)
        #expect(abs(check.distanceMeters - 10_000) < 1e-6)
        #expect(angleDifference(check.initialBearingDegrees, 45) < 1e-9)
    }

    @Test func destinationOfOneDegreeOfEquatorIsOneDegreeOfLongitude() {
        // a·π/180: the equator is a circle of radius a.
        let end = Coordinate(latitude: 0, longitude: 0).destination(distanceMeters: WGS84.semiMajorAxisMeters * .pi / 180, bearingDegrees: 90)
        #expect(abs(end.latitude) < 1e-12)
        #expect(abs(end.longitude - 1) < 1e-10)
    }
}
