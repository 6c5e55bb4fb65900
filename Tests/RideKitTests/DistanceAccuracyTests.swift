import Foundation
import TestSupport
import Testing
@testable import RideKit

/// How far the fast distance measures are from the ellipsoid (Vincenty, itself checked in `VincentyTests`).
///
/// Measured on this implementation (seeded, so the same on every run):
/// - `distanceMeters(to:)` — the measure the stats sum — over 200,000 random pairs 0.1 m … 30 km apart at all
///   latitudes up to ±89.99°: max relative error 3.1·10⁻⁶ (0.0003 %); over 100 random polylines of 2,000
///   hops of 1–16 m the relative error of the summed length is at most 9.5·10⁻¹¹. DESIGN 2.4 allows 0.5 %.
/// - the haversine on the mean radius: max relative error 0.561 % (north–south hops near the equator),
///   which is why the stats do not use it.
@Suite struct DistanceAccuracyTests {
    @Test func localEllipsoidalDistanceStaysWithinAThousandthOfAPercentAtAllLatitudes() {
        var random = SeededGenerator(seed: 42)
        var worst = 0.0
        for _ in 0..<200_000 {
            let start = Coordinate(latitude: random.symmetric(89.99), longitude: random.symmetric(180))
            // Log-uniform lengths, 0.1 m … 30 km, so that short hops get as many samples as long ones.
            let meters = 0.1 * pow(300_000, random.unit())
            let end = start.destination(distanceMeters: meters, bearingDegrees: random.unit() * 360)
            let error = relativeError(start.distanceMeters(to: end), start.ellipsoidalDistanceMeters(to: end))
            worst = max(worst, error)
        }
        #expect(worst < 1e-5, "max relative error \(worst)")
        #expect(worst < 0.005)
    }

    @Test func summedTrackLengthMatchesTheEllipsoid() {
        var random = SeededGenerator(seed: 9)
        var worst = 0.0
        for _ in 0..<100 {
            var position = Coordinate(latitude: random.symmetric(89), longitude: random.symmetric(180))
            var bearing = random.unit() * 360
            var fast = 0.0, reference = 0.0
            for _ in 0..<2_000 {
                bearing += random.symmetric(20)
                let next = position.destination(distanceMeters: 1 + random.unit() * 15, bearingDegrees: bearing)
                fast += position.distanceMeters(to: next)
                reference += position.ellipsoidalDistanceMeters(to: next)
                position = next
            }
            worst = max(worst, relativeError(fast, reference))
        }
        #expect(worst < 1e-9, "max relative error \(worst)")
    }

    @Test func haversineErrorIsUpToHalfAPercentAndSlightlyMore() {
        var random = SeededGenerator(seed: 3)
        var worst = 0.0
        for _ in 0..<50_000 {
            let start = Coordinate(latitude: random.symmetric(89.99), longitude: random.symmetric(180))
            let end = start.destination(distanceMeters: 0.1 * pow(1_000_000, random.unit()), bearingDegrees: random.unit() * 360)
            worst = max(worst, relativeError(start.haversineDistanceMeters(to: end), start.ellipsoidalDistanceMeters(to: end)))
        }
        // The mean radius over the equator's meridional radius: 6,371,008.8 / 6,335,439.3 − 1 = 0.561 %.
        let bound = WGS84.meanRadiusMeters / WGS84.meridionalRadiusMeters(latitudeDegrees: 0) - 1
        #expect(worst <= bound + 1e-5)
        #expect(worst > 0.005)
    }

    /// The stats take local scales from a series (angle addition from a reference latitude, no sine and cosine per
    /// point): they must be the scales `LocalScale` computes directly, whatever the steps between latitudes.
    @Test func scalesFromASeriesOfLatitudesAreTheDirectOnes() {
        var random = SeededGenerator(seed: 7)
        var series = LocalScaleSeries()
        var φ = 0.0
        var worst = 0.0
        for step in 0..<200_000 {
            // Rider-sized steps (under 10 m) drifting north, so that the reach is crossed; now and then a jump across the globe.
            φ = step % 5_000 == 0 ? random.symmetric(89.9) * .pi / 180 : max(-1.569, min(1.569, φ + 4e-7 + random.symmetric(1.5e-6)))
            let direct = LocalScale(latitudeRadians: φ), fromSeries = series.scale(latitudeRadians: φ)
            // Errors relative to the metres per radian northwards: what a step's length would be off by.
            worst = max(worst, abs(fromSeries.metersPerRadianNorth - direct.metersPerRadianNorth) / direct.metersPerRadianNorth)
            worst = max(worst, abs(fromSeries.metersPerRadianEast - direct.metersPerRadianEast) / direct.metersPerRadianNorth)
        }
        #expect(worst < 1e-14)
    }

    @Test func shortHopsAcrossTheAntimeridianAreShort() {
        let west = Coordinate(latitude: 0, longitude: 179.9999), east = Coordinate(latitude: 0, longitude: -179.9999)
        #expect(abs(west.distanceMeters(to: east) - WGS84.semiMajorAxisMeters * 0.0002 * .pi / 180) < 1e-6)
    }

    @Test func longHopsFallBackToVincenty() {
        let london = Coordinate(latitude: 51.4778, longitude: -0.0014), newYork = Coordinate(latitude: 40.6413, longitude: -73.7781)
        #expect(abs(london.distanceMeters(to: newYork) - 5_584_545.867263) < 0.001)
    }
}
