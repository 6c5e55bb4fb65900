import Foundation
import Testing
import RideKit

/// Elevation gain and loss on rides with a known profile, with altitude noise.
@Suite struct TrackStatsClimbTests {
    static let grenoble = Coordinate(latitude: 45.188, longitude: 5.724)

    /// Five hills over 10 km: elevation 200 + 30·(1 − cos(2π s / 2 km)), each rising 60 m and falling 60 m,
    /// so the truth is 300 m up and 300 m down.
    static func hills(_ meters: Double) -> Double { 200 + 30 * (1 - cos(2 * .pi * meters / 2_000)) }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func sineHillsWithNoiseClimbWithinFivePercent(_ seed: UInt64) {
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.grenoble, bearingDegrees: 10), lengthMeters: 10_000, elevation: Self.hills,
            horizontalJitterMeters: 3, verticalNoiseMeters: 2, seed: seed
        )
        let result = stats(of: ride.points())
        #expect(relativeError(result.ascentMeters, 300) < 0.05)
        #expect(relativeError(result.descentMeters, 300) < 0.05)
        #expect(abs((result.minElevationMeters ?? 0) - 200) < 2)
        #expect(abs((result.maxElevationMeters ?? 0) - 260) < 2)
    }

    @Test func cleanHillsClimbExactly() {
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.grenoble, bearingDegrees: 10), lengthMeters: 10_000, elevation: Self.hills)
        let result = stats(of: ride.points())
        #expect(abs(result.ascentMeters - 300) < 0.5)
        #expect(abs(result.descentMeters - 300) < 0.5)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func flatRideWithAltitudeNoiseClimbsNothing(_ seed: UInt64) {
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.grenoble, bearingDegrees: 10), lengthMeters: 10_000, elevation: { _ in 212 },
            verticalNoiseMeters: 2, seed: seed
        )
        let result = stats(of: ride.points())
        #expect(result.ascentMeters == 0)
        #expect(result.descentMeters == 0)
    }

    @Test func steadyClimbCountsInFull() {
        // 3 % for 10 km: 300 m up, nothing down, even though the last metres never turn back.
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.grenoble, bearingDegrees: 10), lengthMeters: 10_000, elevation: { 200 + 0.03 * $0 },
            verticalNoiseMeters: 2
        )
        let result = stats(of: ride.points())
        #expect(relativeError(result.ascentMeters, 300) < 0.02)
        #expect(result.descentMeters == 0)
    }

    // Rollers under 5 m: ignored on GPS altitude, counted on barometric altitude (TrackStatsAltitudeTests).

    @Test func trackWithoutElevationsHasNoClimbAndNoElevationRange() {
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.grenoble, bearingDegrees: 10), lengthMeters: 2_000)
        let result = stats(of: ride.points())
        #expect(result.ascentMeters == 0)
        #expect(result.descentMeters == 0)
        #expect(result.minElevationMeters == nil)
        #expect(result.maxElevationMeters == nil)
    }
}
