import Testing
import RideKit

@Suite struct TrackStatsSplitTests {
    static let oslo = Coordinate(latitude: 59.9139, longitude: 10.7522)

    @Test func tenAndAHalfKilometresGiveTenFullSplitsAndAPartialOne() {
        // 5 m/s: 200 s per kilometre, 100 s for the last 500 m; a 1 % grade: +10 m per kilometre.
        let ride = SyntheticRide(
            path: SyntheticRide.line(from: Self.oslo, bearingDegrees: 135), lengthMeters: 10_500, elevation: { 100 + 0.01 * $0 }
        )
        let splits = stats(of: ride.points()).kilometerSplits
        #expect(splits.count == 11)
        for split in splits.prefix(10) {
            #expect(!split.isPartial)
            #expect(abs(split.distanceMeters - 1_000) < 1e-9)
            #expect(abs((split.durationSeconds ?? 0) - 200) < 0.01)
            #expect(abs((split.elevationChangeMeters ?? 0) - 10) < 0.1)
        }
        #expect(splits.map(\.index) == Array(0..<11))
        #expect(splits[10].isPartial)
        #expect(abs(splits[10].distanceMeters - 500) < 0.01)
        #expect(abs((splits[10].durationSeconds ?? 0) - 100) < 0.01)
    }

    @Test func mileSplitsUseTheInternationalMile() {
        // 10,500 m is 6 miles and 844.9 m; a mile at 5 m/s takes 321.8688 s.
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.oslo, bearingDegrees: 135), lengthMeters: 10_500)
        let splits = stats(of: ride.points()).mileSplits
        #expect(splits.count == 7)
        #expect(splits.prefix(6).allSatisfy { abs(($0.durationSeconds ?? 0) - 321.8688) < 0.01 && !$0.isPartial })
        #expect(splits[6].isPartial)
        #expect(abs(splits[6].distanceMeters - (10_500 - 6 * 1_609.344)) < 0.01)
    }

    @Test func scatteredRideHasSplitsWithinAFewSeconds() {
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.oslo, bearingDegrees: 135), lengthMeters: 10_500, horizontalJitterMeters: 3)
        let result = stats(of: ride.points())
        let full = result.kilometerSplits.filter { !$0.isPartial }
        #expect(full.count == 10)
        #expect(full.allSatisfy { abs(($0.durationSeconds ?? 0) - 200) < 5 })
        let total = result.kilometerSplits.compactMap(\.durationSeconds).reduce(0, +)
        #expect(abs(total - 2_100) < 1e-6)
    }

    @Test func splitsWithoutTimesHaveNoDurations() {
        let points = SyntheticRide(path: SyntheticRide.line(from: Self.oslo, bearingDegrees: 135), lengthMeters: 2_500).points().map { point -> TrackPoint in
            var point = point
            point.time = nil
            return point
        }
        let splits = stats(of: points).kilometerSplits
        #expect(splits.count == 3)
        #expect(splits.allSatisfy { $0.durationSeconds == nil && $0.elevationChangeMeters == nil })
    }

    @Test func exactKilometresHaveNoPartialSplit() {
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.oslo, bearingDegrees: 135), lengthMeters: 3_000.5)
        let splits = stats(of: ride.points()).kilometerSplits
        #expect(splits.count == 3)
        #expect(!splits.contains { $0.isPartial })
    }
}
