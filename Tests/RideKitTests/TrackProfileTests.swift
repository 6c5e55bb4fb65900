import RideKit
import Testing

@Suite struct TrackProfileTests {
    /// `count` points going north `stepMeters` apart, one every `intervalSeconds`, climbing 1 m per point.
    private func line(count: Int, stepMeters: Double = 10, intervalSeconds: Int64 = 2, startSeconds: Int64 = 1_700_000_000,
                      from start: Coordinate = Coordinate(latitude: 45, longitude: 7)) -> [TrackPoint] {
        (0..<count).map { index in
            let position = start.destination(distanceMeters: Double(index) * stepMeters, bearingDegrees: 0)
            return TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: 100 + Double(index),
                              time: GPXTime(secondsSince1970: startSeconds + Int64(index) * intervalSeconds))
        }
    }

    @Test func anEmptyTrackHasNoSamples() {
        let profile = TrackProfile(track: Track(segments: [TrackSegment()]))
        #expect(profile.distanceMeters.isEmpty && profile.elevationMeters.isEmpty && profile.speedMetersPerSecond.isEmpty)
    }

    @Test func onePointIsOneSampleAtZero() {
        let profile = TrackProfile(track: Track(segments: [TrackSegment(points: Array(line(count: 1)))]))
        #expect(profile.distanceMeters == [0])
        #expect(profile.elevationMeters == [100])
        #expect(profile.speedMetersPerSecond == [nil])
    }

    @Test func aSteadyClimbGivesEqualSamplesOfSteadySpeed() throws {
        // 1,000 m at 5 m/s in 101 points, 10 samples of 100 m.
        let profile = TrackProfile(track: Track(segments: [TrackSegment(points: line(count: 101))]), maximumSamples: 10)
        #expect(profile.distanceMeters.count == 10)
        for (index, distance) in profile.distanceMeters.enumerated() {
            #expect(abs(distance - Double(index + 1) * 100) < 0.01)
        }
        for speed in profile.speedMetersPerSecond { #expect(abs(try #require(speed) - 5) < 1e-6) }
        let elevations = profile.elevationMeters.compactMap { $0 }
        #expect(elevations == elevations.sorted() && elevations.count == 10)
    }

    @Test func manyPointsAreCutToTheMaximum() {
        let profile = TrackProfile(track: Track(segments: [TrackSegment(points: line(count: 10_001, stepMeters: 3))]), maximumSamples: 500)
        #expect((499...501).contains(profile.distanceMeters.count))
        #expect(abs(profile.distanceMeters.last! - 30_000) < 1)
    }

    @Test func thePauseBetweenSegmentsIsNeitherDistanceNorTime() throws {
        let first = line(count: 11)  // 100 m in 20 s
        // Resumed an hour later and a kilometre away.
        let second = line(count: 11, startSeconds: 1_700_003_600, from: Coordinate(latitude: 45.01, longitude: 7))
        let profile = TrackProfile(track: Track(segments: [TrackSegment(points: first), TrackSegment(points: second)]), maximumSamples: 4)
        #expect(abs(profile.distanceMeters.last! - 200) < 0.01)
        for speed in profile.speedMetersPerSecond { #expect(abs(try #require(speed) - 5) < 1e-6) }
    }

    @Test func pointsWithoutTimesHaveNoSpeed() {
        let points = line(count: 20).map { point -> TrackPoint in
            var copy = point
            copy.time = nil
            return copy
        }
        let profile = TrackProfile(track: Track(segments: [TrackSegment(points: points)]), maximumSamples: 5)
        #expect(profile.speedMetersPerSecond.allSatisfy { $0 == nil })
        #expect(profile.elevationMeters.allSatisfy { $0 != nil })
    }
}
