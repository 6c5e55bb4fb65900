import Testing
import RideKit

/// Moving time, average and maximum speed on rides of known speed.
@Suite struct TrackStatsSpeedTests {
    static let lyon = Coordinate(latitude: 45.764, longitude: 4.8357)

    @Test(arguments: [1, 2, 3] as [UInt64])
    func constantSpeedRideHasThatSpeed(_ seed: UInt64) {
        // 10 km at 5 m/s: 2,000 s, all of it moving.
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 45), lengthMeters: 10_000, horizontalJitterMeters: 3, seed: seed)
        let result = stats(of: ride.points())
        #expect(abs(result.movingSeconds - 2_000) < 1e-6)
        #expect(result.stoppedSeconds == 0)
        #expect(relativeError(result.averageSpeedMetersPerSecond, 5) < 0.01)
        #expect(relativeError(result.maxSpeedMetersPerSecond, 5) < 0.1)
        #expect(result.maxSpeedMetersPerSecond >= 5 * 0.98)
    }

    @Test func singleBadFixThreeHundredMetresOffDoesNotSetMaxSpeedOrDistance() {
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 45), lengthMeters: 5_000, horizontalJitterMeters: 3)
        var points = ride.points()
        let spike = points[500].coordinate.destination(distanceMeters: 300, bearingDegrees: 135)
        points[500].latitude = spike.latitude
        points[500].longitude = spike.longitude
        let result = stats(of: points)
        #expect(result.ignoredOutlierCount == 1)
        #expect(result.maxSpeedMetersPerSecond < 5.5)
        #expect(relativeError(result.distanceMeters, 5_000) < 0.01)
    }

    @Test func jumpOfKilometresInSecondsIsNoSpeed() {
        // After a tunnel the receiver reports a fix 2 km on, 15 s later, then carries on at 5 m/s: no rider
        // did 130 m/s, so the maximum stays the riding speed (the 2 km still count as distance).
        let before = SyntheticRide(path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 90), lengthMeters: 1_000, horizontalJitterMeters: 3).points()
        let resumeAt = Self.lyon.destination(distanceMeters: 3_000, bearingDegrees: 90)
        let after = SyntheticRide(
            path: SyntheticRide.line(from: resumeAt, bearingDegrees: 90), lengthMeters: 1_000, horizontalJitterMeters: 3,
            startSeconds: 1_700_000_000 + 215, seed: 2
        ).points()
        let result = stats(of: before + after)
        #expect(result.maxSpeedMetersPerSecond < 5.5)
        #expect(relativeError(result.distanceMeters, 4_000) < 0.01)
    }

    @Test func fastStretchSetsMaxSpeed() {
        // 2 km at 5 m/s, 1.2 km at 12 m/s (100 s), 2 km at 5 m/s: the fastest 10 s are 12 m/s.
        let start = Self.lyon
        var points: [TrackPoint] = []
        var meters = 0.0, seconds = 1_700_000_000.0
        var random = SeededGenerator(seed: 4)
        while meters <= 5_200 {
            let p = offset(start.destination(distanceMeters: meters, bearingDegrees: 0), east: random.symmetric(3), north: random.symmetric(3))
            points.append(TrackPoint(latitude: p.latitude, longitude: p.longitude, time: gpxTime(seconds)))
            let speed = (2_000..<3_200).contains(meters) ? 12.0 : 5.0
            meters += speed
            seconds += 1
        }
        let result = stats(of: points)
        #expect(relativeError(result.maxSpeedMetersPerSecond, 12) < 0.05)
    }

    @Test func runHasPaceInSecondsPerKilometre() {
        // 5 km at 3.333… m/s: 300 s per km.
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 300), lengthMeters: 5_000, speedMetersPerSecond: 10.0 / 3)
        let pace = stats(of: ride.points(), activity: .run).averageMovingPaceSecondsPerKilometer
        #expect(abs((pace ?? 0) - 300) < 0.5)
    }

    @Test func slowPushingCountsAsStoppedForARideButMovingForAWalk() {
        // 0.8 m/s for 10 minutes: under a ride's 1 m/s, over a walk's 0.3 m/s.
        let ride = SyntheticRide(path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 300), lengthMeters: 480, speedMetersPerSecond: 0.8)
        let asRide = stats(of: ride.points(), activity: .ride)
        let asWalk = stats(of: ride.points(), activity: .walk)
        #expect(asRide.movingSeconds == 0)
        #expect(abs(asRide.stoppedSeconds - 600) < 1e-6)
        #expect(abs(asWalk.movingSeconds - 600) < 1e-6)
        // Distance is distance, whatever the activity.
        #expect(relativeError(asRide.distanceMeters, 480) < 1e-6)
        #expect(relativeError(asWalk.distanceMeters, 480) < 1e-6)
    }
}
