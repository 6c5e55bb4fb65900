import Foundation
import Testing

@testable import RideKit

/// The laps the Lap button cuts (`RecordedLaps`): known geometry, a straight ride at a known speed.
@Suite struct RecordedLapsTests {
    /// `count` points 10 m apart due north, 2 s apart (5 m/s), from 2024-05-01T08:00:00Z.
    static func ride(count: Int, segmentsAt breaks: Set<Int> = []) -> Track {
        let origin = Coordinate(latitude: 46.5, longitude: 6.6)
        var segments: [TrackSegment] = [TrackSegment()]
        for index in 0..<count {
            if breaks.contains(index) { segments.append(TrackSegment()) }
            let position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: 1_714_550_400 + Int64(index) * 2)
            segments[segments.count - 1].points.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: 400, time: time))
        }
        return Track(segments: segments)
    }

    static func milliseconds(ofPoint index: Int) -> Int64 { (1_714_550_400 + Int64(index) * 2) * 1000 }

    @Test func marksCutLapsThatJoinAtTheMarkedFix() {
        // 301 points: 3 km in 600 s; marks at the fixes at 1 km and 2 km.
        let laps = RecordedLaps.figures(of: Self.ride(count: 301), marksMilliseconds: [Self.milliseconds(ofPoint: 200), Self.milliseconds(ofPoint: 100)], activity: .ride)
        #expect(laps.count == 3)
        for lap in laps {
            #expect(abs((lap.distanceMeters ?? 0) - 1000) < 2)
            #expect(lap.elapsedSeconds == 200)
            #expect(abs((lap.averageSpeedMetersPerSecond ?? 0) - 5) < 0.05)
        }
        #expect(laps.map { $0.startTime?.secondsSince1970 } == [0, 100, 200].map { 1_714_550_400 + Int64($0) * 2 })
        // The laps add up to the ride.
        let whole = Self.ride(count: 301).stats(activity: .ride)
        #expect(abs(laps.reduce(0) { $0 + ($1.distanceMeters ?? 0) } - whole.distanceMeters) < 1)
    }

    @Test func noMarksIsOneLapAndMarksOutsideTheRideMakeNoEmptyLap() {
        let ride = Self.ride(count: 11)
        #expect(RecordedLaps.figures(of: ride, marksMilliseconds: [], activity: .ride).count == 1)
        let outside = [Self.milliseconds(ofPoint: -5), Self.milliseconds(ofPoint: 50)]
        #expect(RecordedLaps.figures(of: ride, marksMilliseconds: outside, activity: .ride).count == 1)
        #expect(RecordedLaps.figures(of: Track(), marksMilliseconds: [1], activity: .ride).isEmpty)
        // A mark on the last fix ends the last lap: nothing after it.
        #expect(RecordedLaps.figures(of: ride, marksMilliseconds: [Self.milliseconds(ofPoint: 10)], activity: .ride).count == 1)
    }

    @Test func aPauseInsideALapKeepsItsSegmentsApart() {
        // A pause (new segment) at point 50 inside the first lap; a mark at point 80.
        let laps = RecordedLaps.figures(of: Self.ride(count: 101, segmentsAt: [50]), marksMilliseconds: [Self.milliseconds(ofPoint: 80)], activity: .ride)
        #expect(laps.count == 2)
        // 0...49 and 50...80 (the gap 49 to 50 is not ridden): 490 + 300 m; then 80...100: 200 m.
        #expect(abs((laps[0].distanceMeters ?? 0) - 790) < 2)
        #expect(abs((laps[1].distanceMeters ?? 0) - 200) < 2)
    }
}
