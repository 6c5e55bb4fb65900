import Testing
import RideKit

/// Tracks as files really come: times that go backwards or repeat, missing times and elevations, empty
/// segments, single points, pauses between segments, invalid positions.
@Suite struct TrackStatsEdgeCaseTests {
    static let start = Coordinate(latitude: 40.4168, longitude: -3.7038)

    static func ride(_ meters: Double = 2_000, seed: UInt64 = 1) -> [TrackPoint] {
        SyntheticRide(path: SyntheticRide.line(from: start, bearingDegrees: 80), lengthMeters: meters, horizontalJitterMeters: 3, seed: seed).points()
    }

    @Test func noPointsGiveEmptyStats() {
        let result = TrackStatsAccumulator().finish()
        #expect(result.pointCount == 0)
        #expect(result.segmentCount == 0)
        #expect(result.distanceMeters == 0)
        #expect(result.bounds == nil)
        #expect(result.start == nil && result.startTime == nil)
        #expect(result.kilometerSplits.isEmpty)
        #expect(result.averageMovingPaceSecondsPerKilometer == nil)
    }

    @Test func onePointHasPositionButNoMotion() {
        let point = TrackPoint(latitude: 1.5, longitude: 2.5, elevation: 10, time: gpxTime(1_700_000_000))
        let result = stats(of: [point])
        #expect(result.pointCount == 1)
        #expect(result.distanceMeters == 0)
        #expect(result.elapsedSeconds == 0)
        #expect(result.maxSpeedMetersPerSecond == 0)
        #expect(result.start == point.coordinate && result.end == point.coordinate)
        #expect(result.bounds == GPXBounds(minLatitude: 1.5, minLongitude: 2.5, maxLatitude: 1.5, maxLongitude: 2.5))
        #expect(result.minElevationMeters == 10 && result.maxElevationMeters == 10)
        #expect(result.startTime == point.time && result.endTime == point.time)
    }

    @Test func emptySegmentsCountButChangeNothing() {
        let points = Self.ride()
        let plain = Track(segments: [TrackSegment(points: points)]).stats()
        let padded = Track(segments: [TrackSegment(), TrackSegment(points: points), TrackSegment()]).stats()
        #expect(padded.segmentCount == 3)
        #expect(padded.distanceMeters == plain.distanceMeters)
        #expect(padded.movingSeconds == plain.movingSeconds)
        #expect(padded.elapsedSeconds == plain.elapsedSeconds)
    }

    @Test func gapBetweenSegmentsIsNeitherDistanceNorMovingTime() {
        // Two 1 km rides 5 km apart, the second starting 30 minutes after the first ends.
        let first = Self.ride(1_000)
        let elsewhere = Self.start.destination(distanceMeters: 5_000, bearingDegrees: 180)
        let second = SyntheticRide(
            path: SyntheticRide.line(from: elsewhere, bearingDegrees: 80), lengthMeters: 1_000, horizontalJitterMeters: 3,
            startSeconds: 1_700_000_000 + 200 + 1_800, seed: 2
        ).points()
        let result = Track(segments: [TrackSegment(points: first), TrackSegment(points: second)]).stats()
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
        #expect(abs(result.pausedSeconds - 1_800) < 1e-6)
        #expect(abs(result.movingSeconds - 400) < 1e-6)
        // First to last: 200 s, 30 min, 200 s.
        #expect(abs(result.elapsedSeconds - 2_200) < 1e-6)
        #expect(result.elapsedSeconds == result.movingSeconds + result.stoppedSeconds + result.pausedSeconds)
    }

    @Test func timesGoingBackwardsGiveNoNegativeOrInfiniteSpeed() {
        var points = Self.ride()
        // Every 50th fix is stamped 30 s in the past.
        for index in stride(from: 25, to: points.count, by: 50) {
            points[index].time = gpxTime(points[index].time!.timeIntervalSince1970 - 30)
        }
        let result = stats(of: points)
        #expect(result.maxSpeedMetersPerSecond.isFinite && result.maxSpeedMetersPerSecond < 6)
        #expect(result.movingSeconds >= 0 && result.stoppedSeconds >= 0)
        #expect(abs(result.elapsedSeconds - 400) < 1e-6)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
    }

    @Test func wholeTrackInReverseTimeOrderHasNoMotionTime() {
        let points = Self.ride()
        let reversedTimes = zip(points, points.reversed()).map { point, other -> TrackPoint in
            var point = point
            point.time = other.time
            return point
        }
        let result = stats(of: reversedTimes)
        #expect(result.elapsedSeconds == 0)
        #expect(result.maxSpeedMetersPerSecond == 0)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
    }

    @Test func duplicatedTimesGiveFiniteSpeeds() {
        // A logger that writes each second twice, the second fix 2.5 m further on.
        let points = SyntheticRide(
            path: SyntheticRide.line(from: Self.start, bearingDegrees: 80), lengthMeters: 2_000, intervalSeconds: 0.5, horizontalJitterMeters: 3
        ).points().map { point -> TrackPoint in
            var point = point
            point.time = gpxTime(point.time!.timeIntervalSince1970.rounded(.down))
            return point
        }
        let result = stats(of: points)
        #expect(result.maxSpeedMetersPerSecond.isFinite)
        #expect(relativeError(result.maxSpeedMetersPerSecond, 5) < 0.1)
        #expect(relativeError(result.averageSpeedMetersPerSecond, 5) < 0.02)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
    }

    @Test func pointsWithoutTimesStillCountForDistance() {
        let points = Self.ride().map { point -> TrackPoint in
            var point = point
            point.time = nil
            return point
        }
        let result = stats(of: points)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
        #expect(result.elapsedSeconds == 0 && result.movingSeconds == 0 && result.maxSpeedMetersPerSecond == 0)
        #expect(result.averageSpeedMetersPerSecond == 0)
        #expect(result.startTime == nil && result.endTime == nil)
        #expect(result.kilometerSplits.allSatisfy { $0.durationSeconds == nil })
    }

    @Test func someMissingTimesDoNotBreakTheClock() {
        var points = Self.ride()
        for index in stride(from: 3, to: points.count - 1, by: 4) { points[index].time = nil }
        let result = stats(of: points)
        #expect(abs(result.movingSeconds - 400) < 1e-6)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
        #expect(relativeError(result.averageSpeedMetersPerSecond, 5) < 0.01)
    }

    @Test func invalidPositionsAndElevationsAreIgnored() {
        var points = Self.ride(1_000)
        points.insert(TrackPoint(latitude: .nan, longitude: 0, time: points[10].time), at: 10)
        points.insert(TrackPoint(latitude: 95, longitude: 0, time: points[20].time), at: 20)
        points[30].elevation = .infinity
        let result = stats(of: points)
        #expect(result.pointCount == points.count - 2)
        #expect(relativeError(result.distanceMeters, 1_000) < 0.01)
        #expect(result.minElevationMeters == nil)
    }

    @Test func startAndEndTimesKeepTheirOffset() throws {
        var points = Self.ride(500)
        let first = try GPXTime(parsing: "2023-11-14T23:13:20.000+02:00")
        points[0].time = first
        let result = stats(of: points)
        #expect(result.startTime == first)
        #expect(result.startTime?.rfc3339 == "2023-11-14T23:13:20.000+02:00")
        #expect(result.endTime == points.last?.time)
    }

    @Test func finishLeavesTheAccumulatorGoingForLiveFigures() {
        let points = Self.ride()
        var accumulator = TrackStatsAccumulator()
        for point in points.prefix(200) { accumulator.add(point) }
        let halfway = accumulator.finish()
        #expect(accumulator.finish() == halfway)
        for point in points.dropFirst(200) { accumulator.add(point) }
        let whole = accumulator.finish()
        #expect(whole == stats(of: points))
        #expect(halfway.distanceMeters < whole.distanceMeters)
    }

    @Test func aFewLeftoverTimesAreNoTimes() {
        // 6 of 401 fixes keep a time (an export that stripped the rest): the 5 s they span say nothing about
        // a 2 km ride, so no time figure is given; distance and start time stay.
        var points = Self.ride()
        for index in points.indices where !(200..<206).contains(index) { points[index].time = nil }
        let result = stats(of: points)
        #expect(relativeError(result.distanceMeters, 2_000) < 0.01)
        #expect(result.elapsedSeconds == 0 && result.movingSeconds == 0 && result.stoppedSeconds == 0)
        #expect(result.movingDistanceMeters == 0)
        #expect(result.averageSpeedMetersPerSecond == 0 && result.averageMovingPaceSecondsPerKilometer == nil)
        #expect(result.maxSpeedMetersPerSecond == 0)
        #expect(result.kilometerSplits.allSatisfy { $0.durationSeconds == nil })
        #expect(result.startTime == points[200].time)
    }

    @Test func timesOnAQuarterOfThePointsCount() {
        var points = Self.ride()
        let timed = Int((Double(points.count) * TrackStatsAccumulator.minimumTimedFraction).rounded(.up))
        for index in points.indices.dropFirst(timed) { points[index].time = nil }
        let result = stats(of: points)
        #expect(result.movingSeconds > 0)
        // The times cover a quarter of the ride, and the average is the whole distance over that moving time.
        #expect(relativeError(result.movingDistanceMeters / result.movingSeconds, 5) < 0.02)
        #expect(result.averageSpeedMetersPerSecond == result.distanceMeters / result.movingSeconds)
    }
}
