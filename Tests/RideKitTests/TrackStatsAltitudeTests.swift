import Foundation
import Testing
import RideKit
import TestSupport

/// Altitudes that cannot be, and the two kinds of altitude (barometric, GPS), on profiles of known climb and
/// on real device files against the device's own totals.
@Suite struct TrackStatsAltitudeTests {
    static let munich = Coordinate(latitude: 48.137, longitude: 11.575)

    /// Two hills of 30 m over 5.9 km: 60 m up, 60 m down.
    static func twoHills(_ meters: Double) -> Double { 520 + 15 * (1 - cos(2 * .pi * meters / 2_950)) }

    /// A 5.9 km walk (1.4 m/s, a fix every 2 s) whose altitude dives to −672 m for four fixes at three places.
    static func walkWithDives(verticalNoiseMeters: Double = 2, seed: UInt64 = 1, dives: Bool = true) -> [TrackPoint] {
        var points = SyntheticRide(
            path: SyntheticRide.line(from: munich, bearingDegrees: 60), lengthMeters: 5_900, speedMetersPerSecond: 1.4,
            intervalSeconds: 2, elevation: twoHills, verticalNoiseMeters: verticalNoiseMeters, seed: seed
        ).points()
        for start in [100, 900, 1_700] where dives {
            for index in start..<(start + 4) { points[index].elevation = -672 }
        }
        return points
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func altitudeDivesAreNoClimb(_ seed: UInt64) {
        let result = stats(of: Self.walkWithDives(seed: seed), activity: .walk)
        let withoutDives = stats(of: Self.walkWithDives(seed: seed, dives: false), activity: .walk)
        #expect(relativeError(result.ascentMeters, 60) < 0.1)
        #expect(relativeError(result.descentMeters, 60) < 0.1)
        #expect(abs(result.ascentMeters - withoutDives.ascentMeters) < 1)
        #expect((result.minElevationMeters ?? -1_000) > 500)
        #expect(result.ignoredAltitudeCount == 12)
        // The first kilometre rises from 520 m by 15·(1 − cos(2π/2.95)) m; its split climbs that, not +213 m.
        let firstRise = Self.twoHills(1_000) - Self.twoHills(0)
        #expect(abs((result.kilometerSplits.first?.climbMeters ?? -1) - firstRise) < 4)
    }

    @Test func altitudeDivesWithoutTimesAreJudgedByDistance() {
        let points = Self.walkWithDives(verticalNoiseMeters: 0).map { point in
            var point = point
            point.time = nil
            return point
        }
        let result = stats(of: points, activity: .walk)
        #expect(abs(result.ascentMeters - 60) < 1)
        #expect(result.ignoredAltitudeCount == 12)
    }

    @Test func aLastingShiftOfLevelIsAFreshStartNotAClimb() {
        // A sensor recalibrated halfway: +300 m from there on. Truth is the profile's own 60 m.
        var points = SyntheticRide(
            path: SyntheticRide.line(from: Self.munich, bearingDegrees: 60), lengthMeters: 5_900, speedMetersPerSecond: 1.4,
            intervalSeconds: 2, elevation: Self.twoHills
        ).points()
        for index in (points.count / 2)..<points.count { points[index].elevation! += 300 }
        let result = stats(of: points, activity: .walk)
        #expect(abs(result.ascentMeters - 60) < 2)
        #expect(result.ignoredAltitudeCount == AltitudeGateFacts.runToAdopt - 1)
    }

    @Test func aSteepRealDescentIsKept() {
        // 1,000 m down in 10 minutes (1.7 m/s vertical, a fast alpine descent): nothing is dropped.
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.munich, bearingDegrees: 10), lengthMeters: 10_000, speedMetersPerSecond: 16.7,
            elevation: { 2_000 - 0.1 * $0 }
        )
        let result = stats(of: ride.points())
        #expect(result.ignoredAltitudeCount == 0)
        #expect(abs(result.descentMeters - 1_000) < 1)
    }

    // MARK: Kinds of altitude

    /// A barometric altimeter's record: the true profile in steps of 0.2 m (a FIT altitude's resolution).
    static func barometric(_ profile: @escaping (Double) -> Double) -> (Double) -> Double {
        { (profile($0) / 0.2).rounded() * 0.2 }
    }

    @Test func rollersCountOnBarometricAltitude() {
        // 3 m rollers every 200 m over 5 km: 25 × 3 = 75 m up, which a bike computer counts.
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.munich, bearingDegrees: 10), lengthMeters: 5_000,
            elevation: Self.barometric { 300 + 1.5 * (1 - cos(2 * .pi * $0 / 200)) }
        )
        let result = stats(of: ride.points())
        #expect(result.altitudeKind == .barometric)
        #expect(relativeError(result.ascentMeters, 75) < 0.05)
    }

    @Test func rollersUnderFiveMetresOnGPSAltitudeAreIgnored() {
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.munich, bearingDegrees: 10), lengthMeters: 5_000,
            elevation: { 300 + 1.5 * (1 - cos(2 * .pi * $0 / 200)) }, verticalNoiseMeters: 2
        )
        let result = stats(of: ride.points())
        #expect(result.altitudeKind == .gps)
        #expect(result.ascentMeters < 10)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func barometricHillsClimbWithinTwoPercent(_ seed: UInt64) {
        // Five 60 m hills plus 4 m bumps every 700 m: 300 + 5 × … Truth by brute force on the true profile.
        let profile: (Double) -> Double = { 200 + 30 * (1 - cos(2 * .pi * $0 / 2_000)) + 2 * sin(2 * .pi * $0 / 700) }
        let truth = Self.bruteForceClimb(profile, lengthMeters: 10_000)
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.munich, bearingDegrees: 10), lengthMeters: 10_000,
            elevation: Self.barometric(profile), horizontalJitterMeters: 2, seed: seed
        )
        let result = stats(of: ride.points())
        #expect(result.altitudeKind == .barometric)
        #expect(relativeError(result.ascentMeters, truth) < 0.02)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func barometricWanderUnderAMetreIsNotClimbed(_ seed: UInt64) {
        // A barometer's slow wander (±0.4 m over 90 s at 5 m/s, its phase set by the seed) in 0.2 m steps: on
        // flat ground no climb at all; on five 60 m hills the hills' own climb by brute force, within 2 %.
        let phase = Double(seed)
        let wander: (Double) -> Double = { 0.4 * sin(2 * .pi * $0 / 450 + phase) }
        let hills: (Double) -> Double = { 200 + 30 * (1 - cos(2 * .pi * $0 / 2_000)) }
        let cases: [(terrain: (Double) -> Double, truth: Double)] = [
            ({ _ in 200 }, 0), (hills, Self.bruteForceClimb(hills, lengthMeters: 10_000)),
        ]
        for (terrain, truth) in cases {
            let ride = SyntheticRide(
                path: SyntheticRide.line(from: Self.munich, bearingDegrees: 10), lengthMeters: 10_000,
                elevation: Self.barometric { terrain($0) + wander($0) }, horizontalJitterMeters: 2, seed: seed
            )
            let result = stats(of: ride.points())
            #expect(result.altitudeKind == .barometric)
            #expect(abs(result.ascentMeters - truth) <= max(0.5, 0.02 * truth), "truth \(truth), ours \(result.ascentMeters)")
        }
    }

    @Test(arguments: [1, 2] as [UInt64])
    func splitsClimbAddUpToTheClimbAndAreNotNetChange(_ seed: UInt64) {
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.munich, bearingDegrees: 10), lengthMeters: 10_000,
            elevation: { 200 + 30 * (1 - cos(2 * .pi * $0 / 2_000)) }, verticalNoiseMeters: 2, seed: seed
        )
        let result = stats(of: ride.points())
        for splits in [result.kilometerSplits, result.mileSplits] {
            let total = splits.compactMap(\.climbMeters).reduce(0, +)
            #expect(abs(total - result.ascentMeters) < 0.01)
            #expect(splits.allSatisfy { ($0.climbMeters ?? -1) >= 0 })
        }
        // Each 2 km hill rises 60 m in its first kilometre (net +60) and falls in its second (net −60, climb 0).
        #expect(abs((result.kilometerSplits[0].climbMeters ?? 0) - 60) < 5)
        #expect((result.kilometerSplits[1].climbMeters ?? 99) < 5)
    }

    /// Sum of rises of the profile sampled every metre: every rise counts (the profile has no noise).
    static func bruteForceClimb(_ profile: (Double) -> Double, lengthMeters: Int) -> Double {
        var climb = 0.0
        for meter in 0..<lengthMeters { climb += max(0, profile(Double(meter + 1)) - profile(Double(meter))) }
        return climb
    }
}

/// `AltitudeGate.runToAdopt` as the documentation states it (8 fixes), so the test reads as the rule.
enum AltitudeGateFacts {
    static let runToAdopt = 8
}
