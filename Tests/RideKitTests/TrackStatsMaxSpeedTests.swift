import Foundation
import Testing
import RideKit
import TestSupport

/// The maximum speed: true on straights and in tight bends, not set by single bad fixes, never under the
/// average. Truth: rides whose speed is known at every moment, with seeded GPS scatter.
@Suite struct TrackStatsMaxSpeedTests {
    static let start = Coordinate(latitude: 48.85, longitude: 2.35)

    /// Fixes every `interval` s along `path`, the distance travelled by time t being `meters(t)`, with
    /// independent scatter of `sigma` metres per axis.
    static func ride(
        seconds: Double, interval: Double = 1, sigma: Double, seed: UInt64, path: (Double) -> Coordinate, meters: (Double) -> Double
    ) -> [TrackPoint] {
        var random = SeededGenerator(seed: seed)
        return stride(from: 0.0, through: seconds, by: interval).map { t in
            let p = offset(path(meters(t)), east: random.gaussian(sigma), north: random.gaussian(sigma))
            return TrackPoint(latitude: p.latitude, longitude: p.longitude, elevation: 100, time: gpxTime(1_700_000_000 + t))
        }
    }

    /// A 250 m velodrome (radius 39.8 m) lapped at 40 km/h for five minutes: every window is in a bend.
    @Test(arguments: [1, 2, 3] as [UInt64], [1.0, 2.0])
    func aVelodromeAtFortyReadsForty(_ seed: UInt64, _ interval: Double) {
        let speed = 40 / 3.6
        let points = Self.ride(
            seconds: 300, interval: interval, sigma: 1, seed: seed, path: SyntheticRide.circle(center: Self.start, radiusMeters: 250 / (2 * .pi)),
            meters: { $0 * speed })
        let result = stats(of: points)
        print("velodrome at 40 km/h, fixes every \(interval) s, seed \(seed):", String(format: "max %.1f km/h", result.maxSpeedMetersPerSecond * 3.6))
        #expect(relativeError(result.maxSpeedMetersPerSecond, speed) < 0.05, "\(result.maxSpeedMetersPerSecond * 3.6) km/h")
        #expect(relativeError(result.distanceMeters, 300 * speed) < 0.03)
    }

    /// 6 m/s with a 40 s sprint at 15 m/s, on a straight, then the same on a street grid.
    static func sprint(_ t: Double) -> Double {
        if t < 300 { return 6 * t }
        if t < 340 { return 1_800 + 15 * (t - 300) }
        return 2_400 + 6 * (t - 340)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aSprintSetsTheMaximumOnAStraightAndAroundCorners(_ seed: UInt64) {
        for path in [SyntheticRide.line(from: Self.start, bearingDegrees: 60), SyntheticRide.staircase(from: Self.start, blockMeters: 150)] {
            let result = stats(of: Self.ride(seconds: 600, sigma: 2, seed: seed, path: path, meters: Self.sprint))
            #expect(relativeError(result.maxSpeedMetersPerSecond, 15) < 0.05, "\(result.maxSpeedMetersPerSecond) m/s")
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func singleFixSpikesDoNotSetTheMaximum(_ seed: UInt64) {
        // A steady 6 m/s ride; every 97 s one fix lands 1–5 km off (a receiver reacquiring after a tunnel).
        var points = Self.ride(seconds: 900, sigma: 1, seed: seed, path: SyntheticRide.line(from: Self.start, bearingDegrees: 10), meters: { 6 * $0 })
        var random = SeededGenerator(seed: seed + 50)
        for index in stride(from: 60, to: points.count - 10, by: 97) {
            let far = 1_000 + 4_000 * random.unit()
            let moved = offset(points[index].coordinate, east: far * cos(random.unit() * 6.28), north: far * sin(random.unit() * 6.28))
            points[index].latitude = moved.latitude
            points[index].longitude = moved.longitude
        }
        let result = stats(of: points)
        #expect(relativeError(result.maxSpeedMetersPerSecond, 6) < 0.05, "\(result.maxSpeedMetersPerSecond) m/s")
        #expect(relativeError(result.distanceMeters, 5_400) < 0.02)
    }

    @Test func theMaximumIsNeverUnderTheAverage() throws {
        // Over a minute of moving, the maximum is at least the average. (Not for a car drive recorded as a
        // ride, gpxpy's first_and_last_elevation.gpx: its legs over a bicycle's plausible speed are left out
        // of the maximum and of its floor alike — TrackStatsFixtureTests.)
        for file in ["gpx/togeojson/blue_hills.gpx", "gpx/gpxpy/cerknicko-jezero.gpx", "gpx/georust-gpx/garmin-activity.gpx"] {
            let stats = try GPXReader.read(bytes: Array(try Data(contentsOf: Fixtures.url(file)))).stats(activity: .ride)
            #expect(stats.movingSeconds > 60)
            #expect(stats.maxSpeedMetersPerSecond >= stats.averageSpeedMetersPerSecond, "\(file)")
        }
        let slow = Self.ride(seconds: 120, interval: 30, sigma: 0, seed: 1, path: SyntheticRide.line(from: Self.start, bearingDegrees: 0), meters: { 4 * $0 })
        let result = stats(of: slow)
        #expect(result.maxSpeedMetersPerSecond >= result.averageSpeedMetersPerSecond)
    }

    @Test func aWalkRecordedAsARideHasItsFastestSpeedNotItsAverage() {
        // A minute at 2 m/s, a minute at 0.7 m/s (under a ride's stopped speed), for 40 minutes. The average
        // (distance over moving time) counts the slow minutes' distance over the fast minutes' time: 2.7 m/s,
        // over anything walked. The maximum is what was walked fastest, 2 m/s, not that average.
        let speeds: (Double) -> Double = { seconds in Int(seconds / 60) % 2 == 0 ? 2 : 0.7 }
        var points: [TrackPoint] = []
        var meters = 0.0
        for second in 0...2_400 {
            let position = Self.start.destination(distanceMeters: meters, bearingDegrees: 30)
            points.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: nil, time: gpxTime(1_700_000_000 + Double(second))))
            meters += speeds(Double(second))
        }
        let result = stats(of: points, activity: .ride)
        #expect(relativeError(result.maxSpeedMetersPerSecond, 2) < 0.05, "\(result.maxSpeedMetersPerSecond) m/s")
        #expect(result.averageSpeedMetersPerSecond > 2.5)
        let splitSpeeds = result.kilometerSplits.filter { !$0.isPartial }.compactMap { split in split.durationSeconds.map { split.distanceMeters / $0 } }
        #expect(splitSpeeds.count >= 2)
    }
}
