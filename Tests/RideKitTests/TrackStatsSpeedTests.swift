import Testing
import RideKit
import TestSupport

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

    // MARK: Average over timed distance

    /// Where the points without a time lie in a ride whose other half has times.
    enum UntimedHalf: String, CaseIterable {
        case secondHalf, firstHalf, everyOtherPoint
    }

    @Test(arguments: UntimedHalf.allCases)
    func averageSpeedIsTheDistanceShownOverTheMovingTimeShownEvenWithTimesMissing(_ untimed: UntimedHalf) {
        // 2 km at 5 m/s, half of the fixes without a time. The average is the distance shown over the moving
        // time shown (issue 8: figures that agree with each other), so when the times cover only half of the
        // ride it reads 10 m/s; `movingDistanceMeters` says how much of the distance the times cover.
        var points = SyntheticRide(
            path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 45), lengthMeters: 2_000, horizontalJitterMeters: 3
        ).points()
        let half = points.count / 2
        for index in points.indices {
            switch untimed {
            case .secondHalf: if index > half { points[index].time = nil }
            case .firstHalf: if index < half { points[index].time = nil }
            case .everyOtherPoint: if index % 2 == 1 { points[index].time = nil }
            }
        }
        let result = stats(of: points)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
        #expect(result.averageSpeedMetersPerSecond == result.distanceMeters / result.movingSeconds)
        let pace = result.movingSeconds / (result.distanceMeters / 1000)
        #expect(result.averageMovingPaceSecondsPerKilometer == pace)
        #expect(relativeError(result.averageSpeedMetersPerSecond, untimed == .everyOtherPoint ? 5 : 10) < 0.02)
        let timedMeters = untimed == .everyOtherPoint ? 2_000.0 : 1_000
        #expect(relativeError(result.movingDistanceMeters, timedMeters) < 0.02)
        #expect(relativeError(result.movingSeconds, timedMeters / 5) < 0.01)
    }

    @Test func stoppedStretchesAreNotMovingDistance() {
        // 1 km at 5 m/s, 500 m pushed at 0.5 m/s (stopped for a ride), 1 km at 5 m/s. The 500 m are distance
        // but not moving time, nor moving distance; the average is the distance shown over the moving time
        // shown, 2,500 m in 400 s.
        let start = Self.lyon
        var points: [TrackPoint] = []
        var meters = 0.0, seconds = 1_700_000_000.0
        while meters <= 2_500 {
            let p = start.destination(distanceMeters: meters, bearingDegrees: 0)
            points.append(TrackPoint(latitude: p.latitude, longitude: p.longitude, time: gpxTime(seconds)))
            // 5 m a step: 1 s riding, 10 s pushing.
            seconds += (1_000..<1_500).contains(meters) ? 10 : 1
            meters += 5
        }
        let result = stats(of: points)
        #expect(relativeError(result.distanceMeters, 2_500) < 0.01)
        #expect(relativeError(result.movingDistanceMeters, 2_000) < 0.01)
        #expect(relativeError(result.movingSeconds, 400) < 0.01)
        #expect(result.averageSpeedMetersPerSecond == result.distanceMeters / result.movingSeconds)
        #expect(abs(result.stoppedSeconds - 1_000) < 11)
    }

    // MARK: Max speed on sparse tracks

    /// Fixes `intervalSeconds` apart, each leg at the given speed, due east, without scatter.
    static func sparseRide(legSpeeds: [Double], intervalSeconds: Double = 60) -> [TrackPoint] {
        var points = [TrackPoint(latitude: Self.lyon.latitude, longitude: Self.lyon.longitude, time: gpxTime(1_700_000_000))]
        var meters = 0.0
        for (index, speed) in legSpeeds.enumerated() {
            meters += speed * intervalSeconds
            let p = Self.lyon.destination(distanceMeters: meters, bearingDegrees: 90)
            let seconds = 1_700_000_000 + Double(index + 1) * intervalSeconds
            points.append(TrackPoint(latitude: p.latitude, longitude: p.longitude, time: gpxTime(seconds)))
        }
        return points
    }

    @Test(arguments: [1, 2, 3, 4, 8])
    func fewFixesMinutesApartStillHaveAMaxSpeed(_ legs: Int) {
        let result = stats(of: Self.sparseRide(legSpeeds: Array(repeating: 8, count: legs)))
        #expect(relativeError(result.maxSpeedMetersPerSecond, 8) < 1e-6)
    }

    @Test(arguments: [3, 4, 6])
    func oneFastLegAmongFewDoesNotSetTheMaximum(_ legs: Int) {
        // One leg at 20 m/s (a bad fix at its end, or a lift in a car: either way not the ride's speed) among
        // legs at 8 m/s: with three windows or more, the median ignores it. But the maximum is never under
        // the average, which the 20 m/s leg lifts to (8 (n − 1) + 20) / n: that is the maximum.
        var speeds = Array(repeating: 8.0, count: legs)
        speeds[legs / 2] = 20
        let result = stats(of: Self.sparseRide(legSpeeds: speeds))
        let average = (8 * Double(legs - 1) + 20) / Double(legs)
        #expect(relativeError(result.averageSpeedMetersPerSecond, average) < 1e-6)
        #expect(relativeError(result.maxSpeedMetersPerSecond, average) < 1e-6)
    }

    @Test func fastLegsOverThePlausibleSpeedAreIgnoredOnSparseTracksToo() {
        // A car on the motorway recorded as a ride: legs at 50 m/s are over a ride's 40 m/s and do not
        // count; the one town leg at 10 m/s is the maximum, while the distance keeps every leg.
        let result = stats(of: Self.sparseRide(legSpeeds: [10, 50, 50, 50]))
        #expect(relativeError(result.maxSpeedMetersPerSecond, 10) < 1e-6)
        #expect(relativeError(result.distanceMeters, 160 * 60) < 1e-3)
    }

    // MARK: Recorded speeds

    static func rideWithRecordedSpeeds(_ speed: (Int) -> Double?) -> [TrackPoint] {
        var points = SyntheticRide(
            path: SyntheticRide.line(from: Self.lyon, bearingDegrees: 45), lengthMeters: 3_000, horizontalJitterMeters: 3
        ).points()
        for index in points.indices { points[index].speedMetersPerSecond = speed(index) }
        return points
    }

    @Test func recordedSpeedsSetTheMaximumAndOneSpikeDoesNot() {
        // The positions say 5 m/s; the device measured 6 m/s, with one reading of 25 m/s.
        let result = stats(of: Self.rideWithRecordedSpeeds { $0 == 300 ? 25 : 6 })
        #expect(result.maxSpeedMetersPerSecond == 6)
        // Distance and the average still come from the positions.
        #expect(relativeError(result.averageSpeedMetersPerSecond, 5) < 0.01)
    }

    @Test func aFewRecordedSpeedsLeaveTheMaximumToThePositions() {
        // Speeds on one point in ten: not enough to stand for the ride.
        let result = stats(of: Self.rideWithRecordedSpeeds { $0 % 10 == 0 ? 9 : nil })
        #expect(relativeError(result.maxSpeedMetersPerSecond, 5) < 0.1)
    }

    @Test func recordedSpeedsOverThePlausibleSpeedAreIgnored() {
        let result = stats(of: Self.rideWithRecordedSpeeds { (100..<110).contains($0) ? 60 : 6 })
        #expect(result.maxSpeedMetersPerSecond == 6)
    }
}
