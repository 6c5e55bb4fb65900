import TestSupport
import Testing
@testable import RideKit

/// Reference values: the Flinders Peak → Buninyong line is Vincenty's and Geoscience Australia's published
/// example (54,972.271 m, azimuth 306°52′05.37″); the others are GeographicLib 2.1's `Geodesic.WGS84.Inverse`
/// (Karney's algorithm, accurate to 15 nm), an implementation independent of this one.
@Suite struct VincentyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var from: (Double, Double), to: (Double, Double)
        var meters: Double, initial: Double, final: Double
        var testDescription: String { "\(from) → \(to)" }
    }

    static let cases: [Case] = [
        Case(from: (-37.95103342, 144.42486789), to: (-37.65282114, 143.92649554), meters: 54_972.270505, initial: 306.868160026, final: 307.173631446),
        Case(from: (0, 0), to: (1, 0), meters: 110_574.388558, initial: 0, final: 0),
        Case(from: (44.5, 0), to: (45.5, 0), meters: 111_131.777653, initial: 0, final: 0),
        Case(from: (89, 0), to: (90, 0), meters: 111_693.864914, initial: 0, final: 0),
        Case(from: (0, 0), to: (0, 1), meters: 111_319.490793, initial: 90, final: 90),
        Case(from: (60, 0), to: (60, 1), meters: 55_799.470393, initial: 89.566984546, final: 90.433015454),
        Case(from: (51.4778, -0.0014), to: (40.6413, -73.7781), meters: 5_584_545.867263, initial: 288.257199598, final: 231.257295615),
        Case(from: (-33.9, 151.2), to: (51.5, -0.1), meters: 16_990_083.880122, initial: 319.213719576, final: 240.469939881),
        Case(from: (0, 0), to: (0.5, 179.5), meters: 19_936_288.578965, initial: 25.671872868, final: 154.327085470),
        Case(from: (-0.0001, 179.9999), to: (0.0001, -179.9999), meters: 31.380694, initial: 45.192423217, final: 45.192423217),
    ]

    @Test(arguments: cases)
    func inverseMatchesPublishedGeodesics(_ c: Case) {
        let result = Vincenty.inverse(from: Coordinate(latitude: c.from.0, longitude: c.from.1), to: Coordinate(latitude: c.to.0, longitude: c.to.1))
        #expect(abs(result.distanceMeters - c.meters) < 0.001)
        #expect(angleDifference(result.initialBearingDegrees, c.initial) < 1e-6)
        #expect(angleDifference(result.finalBearingDegrees, c.final) < 1e-6)
    }

    @Test func oneDegreeOfLatitudeFollowsTheMeridianArcFormula() {
        // Independent check from the WGS-84 meridian arc: the integral of M(φ) over one degree, by Simpson's
        // rule on the closed-form M — no geodesic code involved.
        for start in stride(from: -89.0, through: 88.0, by: 11.0) {
            let steps = 200
            var integral = 0.0
            for i in 0...steps {
                let weight: Double = (i == 0 || i == steps) ? 1 : (i % 2 == 1 ? 4 : 2)
                integral += weight * WGS84.meridionalRadiusMeters(latitudeDegrees: start + Double(i) / Double(steps))
            }
            let arc = integral / Double(steps) / 3 * .pi / 180
            let measured = Vincenty.inverse(from: Coordinate(latitude: start, longitude: 7), to: Coordinate(latitude: start + 1, longitude: 7))
            #expect(abs(measured.distanceMeters - arc) < 0.001, "at \(start)°")
        }
    }

    @Test func equatorialDegreeIsTheSemiMajorAxisTimesTheAngle() {
        let measured = Coordinate(latitude: 0, longitude: 10).ellipsoidalDistanceMeters(to: Coordinate(latitude: 0, longitude: 11))
        #expect(abs(measured - WGS84.semiMajorAxisMeters * .pi / 180) < 0.001)
    }

    @Test func coincidentPointsAreZeroApart() {
        let point = Coordinate(latitude: 47.3, longitude: 8.5)
        #expect(Vincenty.inverse(from: point, to: point).distanceMeters == 0)
    }

    /// Near-antipodal pairs, where the plain iteration does not converge: the answer must be finite, within
    /// the bounds that geometry allows, and close to GeographicLib's.
    @Test(arguments: [
        ((0.0, 0.0), (0.0, 179.5), 19_980_861.908891),
        ((0.0, 0.0), (0.0, 179.9), 20_003_008.421509),
        ((0.0, 0.0), (0.1, 179.9), 19_992_082.107914),
        ((10.0, 20.0), (-10.0, -159.7), 19_995_624.889961),
        ((30.0, 40.0), (-30.0, -140.0), 20_003_931.458625),
    ])
    func nearAntipodalPairsStayWithinTheFallbackBound(_ from: (Double, Double), _ to: (Double, Double), _ reference: Double) {
        let result = Vincenty.inverse(from: Coordinate(latitude: from.0, longitude: from.1), to: Coordinate(latitude: to.0, longitude: to.1))
        #expect(result.distanceMeters.isFinite)
        // No geodesic is longer than half a meridian (20,003,931.46 m), the longest shortest path on WGS-84.
        #expect(result.distanceMeters <= 20_003_931.5)
        // The documented bound of the bisection fallback: within 0.17 % (here measured at most 0.12 %).
        #expect(relativeError(result.distanceMeters, reference) < 0.0017)
    }

    @Test func directInvertsInverse() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<500 {
            let start = Coordinate(latitude: random.symmetric(89), longitude: random.symmetric(180))
            let meters = random.unit() * 5_000_000
            let bearing = random.unit() * 360
            let end = Vincenty.direct(from: start, distanceMeters: meters, initialBearingDegrees: bearing).coordinate
            let back = Vincenty.inverse(from: start, to: end)
            #expect(abs(back.distanceMeters - meters) < 0.001)
            if meters > 1 { #expect(angleDifference(back.initialBearingDegrees, bearing) < 1e-6) }
        }
    }
}

/// Smallest difference between two bearings, degrees.
func angleDifference(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
}
