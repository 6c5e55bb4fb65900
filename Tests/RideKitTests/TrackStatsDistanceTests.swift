import Foundation
import Testing
import RideKit

/// Distance on rides of known length, with and without GPS scatter.
///
/// The rides are 1 Hz at 5 m/s (18 km/h), so fixes are 5 m apart, and the scatter is uniform ±3 m east and
/// north, independent from fix to fix: a raw sum of such fixes is 8–9 % too long (each 5 m hop gains
/// about Var(Δ)/(2·5 m) ≈ 0.6 m sideways), so this checks the smoothing and the anchor, not just the sum.
@Suite struct TrackStatsDistanceTests {
    static let zurich = Coordinate(latitude: 47.3769, longitude: 8.5417)
    static let seeds: [UInt64] = [1, 2, 3]

    @Test(arguments: seeds)
    func straightTenKilometresWithScatterMeasureWithinOnePercent(_ seed: UInt64) {
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.zurich, bearingDegrees: 30), lengthMeters: 10_000, horizontalJitterMeters: 3, seed: seed
        )
        #expect(relativeError(stats(of: ride.points()).distanceMeters, 10_000) < 0.01)
    }

    @Test(arguments: seeds)
    func circleWithScatterMeasuresItsCircumferenceWithinOnePercent(_ seed: UInt64) {
        // Radius chosen for a 10 km circumference, 2πr (the chords of 5 m fall short of the arc by 4·10⁻⁷).
        let radius = 10_000 / (2 * Double.pi)
        let ride = SyntheticRide(
            path: SyntheticRide.circle(center: Self.zurich, radiusMeters: radius), lengthMeters: 10_000, horizontalJitterMeters: 3, seed: seed
        )
        #expect(relativeError(stats(of: ride.points()).distanceMeters, 10_000) < 0.01)
    }

    @Test(arguments: seeds)
    func outAndBackWithScatterCountsBothWays(_ seed: UInt64) {
        let ride = SyntheticRide(
            path: SyntheticRide.outAndBack(from: Self.zurich, bearingDegrees: 200, halfMeters: 5_000), lengthMeters: 10_000,
            horizontalJitterMeters: 3, seed: seed
        )
        #expect(relativeError(stats(of: ride.points()).distanceMeters, 10_000) < 0.01)
    }

    @Test func cleanStraightLineIsExact() {
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.zurich, bearingDegrees: 100), lengthMeters: 10_000)
        #expect(relativeError(stats(of: ride.points()).distanceMeters, 10_000) < 1e-6)
    }

    @Test(arguments: [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 69.65, longitude: 18.96), Coordinate(latitude: -54.8, longitude: -68.3)])
    func latitudeDoesNotChangeTheMeasure(_ start: Coordinate) {
        let ride = SyntheticRide(path: SyntheticRide.line(from: start, bearingDegrees: 0), lengthMeters: 5_000, horizontalJitterMeters: 3)
        #expect(relativeError(stats(of: ride.points()).distanceMeters, 5_000) < 0.01)
    }

    /// Sharp street corners every 200 m: the price of filtering is up to about three metres per corner (an
    /// anchor chord that straddles the corner cuts it), so a grid route with a corner every 200 m comes out
    /// under 2 % short clean (1.5 % measured), and within 3 % with scatter.
    @Test func streetGridCornersCostLittle() {
        let path = SyntheticRide.staircase(from: Self.zurich, blockMeters: 200)
        let clean = stats(of: SyntheticRide(path: path, lengthMeters: 10_000).points()).distanceMeters
        #expect(relativeError(clean, 10_000) < 0.02)
        let scattered = stats(of: SyntheticRide(path: path, lengthMeters: 10_000, horizontalJitterMeters: 3).points()).distanceMeters
        #expect(relativeError(scattered, 10_000) < 0.03)
    }

    /// Walking pace at 1 Hz puts fixes 1.4 m apart, under half the scatter: the hardest case for a
    /// length estimate. Within 2.5 % (a raw sum would be 140 % too long).
    @Test func scatteredWalkStaysWithinTwoAndAHalfPercent() {
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.zurich, bearingDegrees: 70), lengthMeters: 3_000, speedMetersPerSecond: 1.4,
            horizontalJitterMeters: 3
        )
        #expect(relativeError(stats(of: ride.points(), activity: .walk).distanceMeters, 3_000) < 0.025)
    }

    @Test func sparseFixesAreNotSmoothedAway() {
        // A zigzag with a fix every 100 m (a logger set to one fix a minute): every fix is a corner, and
        // the length is exactly the sum of the legs.
        let start = Self.zurich
        var points: [TrackPoint] = []
        for i in 0...40 {
            let position = offset(start, east: Double(i) * 80, north: i % 2 == 0 ? 0 : 60)
            points.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, time: gpxTime(1_700_000_000 + Double(i) * 60)))
        }
        #expect(relativeError(stats(of: points).distanceMeters, 40 * 100) < 0.001)
    }
}
