import Testing
import RideKit
import TestSupport

/// GPS scatter while standing still must add no distance and count as stopped time.
@Suite struct TrackStatsJitterTests {
    static let bern = Coordinate(latitude: 46.948, longitude: 7.4474)

    /// Ten minutes of fixes scattered ±3 m around one spot.
    static func standstill(at position: Coordinate, startSeconds: Double, seconds: Int, seed: UInt64) -> [TrackPoint] {
        var random = SeededGenerator(seed: seed)
        return (0..<seconds).map { i in
            let p = offset(position, east: random.symmetric(3), north: random.symmetric(3))
            return TrackPoint(latitude: p.latitude, longitude: p.longitude, elevation: 540 + random.symmetric(2), time: gpxTime(startSeconds + Double(i)))
        }
    }

    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func tenMinutesStandingStillAddNoDistance(_ seed: UInt64) {
        let result = stats(of: Self.standstill(at: Self.bern, startSeconds: 1_700_000_000, seconds: 600, seed: seed))
        #expect(result.distanceMeters < 10)
        #expect(result.stoppedSeconds >= 590)
        #expect(result.movingSeconds <= 10)
        #expect(result.ascentMeters == 0)
    }

    @Test(arguments: [ActivityKind.ride, .run, .walk])
    func standingStillIsStoppedForEveryActivity(_ activity: ActivityKind) {
        let result = stats(of: Self.standstill(at: Self.bern, startSeconds: 1_700_000_000, seconds: 600, seed: 9), activity: activity)
        #expect(result.distanceMeters < 10)
        #expect(result.stoppedSeconds >= 590)
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func aStopInTheMiddleOfARideAddsUnderTenMetresAndTenMinutesStopped(_ seed: UInt64) {
        // 1 km, 10 min stop, 1 km on; the moving fixes are the same with and without the stop.
        let first = SyntheticRide(
            path: SyntheticRide.line(from: Self.bern, bearingDegrees: 90), lengthMeters: 1_000, horizontalJitterMeters: 3, seed: seed
        ).points()
        let stopAt = Self.bern.destination(distanceMeters: 1_000, bearingDegrees: 90)
        let stopStart = 1_700_000_000 + 200.0
        let stop = Self.standstill(at: stopAt, startSeconds: stopStart + 1, seconds: 600, seed: seed + 100)
        let secondRide = SyntheticRide(
            path: SyntheticRide.line(from: stopAt, bearingDegrees: 90), lengthMeters: 1_000, horizontalJitterMeters: 3, seed: seed + 200
        ).points().dropFirst()
        func shifted(by seconds: Double) -> [TrackPoint] {
            secondRide.map { point in
                var point = point
                point.time = gpxTime(point.time!.timeIntervalSince1970 + seconds)
                return point
            }
        }
        // The first kilometre takes 0…200 s, the stop 201…800 s, the second kilometre 801…1,000 s.
        let withStop = stats(of: first + stop + shifted(by: 800))
        let withoutStop = stats(of: first + shifted(by: 200))
        #expect(withStop.distanceMeters - withoutStop.distanceMeters < 10)
        #expect(relativeError(withStop.distanceMeters, 2_000) < 0.015)
        #expect(withStop.stoppedSeconds >= 590)
        #expect(abs(withStop.movingSeconds - 400) < 15)
        #expect(abs(withStop.elapsedSeconds - 1_000) < 1e-6)
    }
}
