import Foundation
import Testing
import RideKit
import TestSupport

/// Best efforts against brute force (all pairs, O(n²), here only) and rides of known fastest stretches.
@Suite struct BestEffortsTests {
    // MARK: Oracles

    /// All pairs: for every end sample and every step that holds the start of a stretch of `target` ending there,
    /// the interpolated time; the least of them.
    static func bruteFastest(_ target: Double, _ meters: [Double], _ seconds: [Double]) -> Double? {
        var best: Double?
        for end in meters.indices {
            let from = meters[end] - target
            for start in 0..<end where meters[start] <= from && from <= meters[start + 1] {
                let span = meters[start + 1] - meters[start]
                let at = span > 0 ? seconds[start] + (from - meters[start]) / span * (seconds[start + 1] - seconds[start]) : seconds[start + 1]
                let time = seconds[end] - at
                if best == nil || time < best! { best = time }
            }
        }
        return best
    }

    /// Every window of `window` consecutive 1 Hz samples inside one run (the first sample of a run holds over no
    /// time, so a window ending at sample j of a run holds j − window + 1 … j): the highest mean.
    static func bruteMean(_ window: Int, runs: [[Double]]) -> Double? {
        var best: Double?
        for run in runs where run.count > window {
            for end in window..<run.count {
                let mean = run[(end - window + 1)...end].reduce(0, +) / Double(window)
                if best == nil || mean > best! { best = mean }
            }
        }
        return best
    }

    // MARK: Windows

    @Test(arguments: [1 as UInt64, 2, 3, 4, 5])
    func fastestMatchesAllPairs(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var meters: [Double] = [0], seconds: [Double] = [0]
        for _ in 0..<400 {
            // Steps of 0–60 m in 0–12 s: stops (distance, no time), standing (time, no distance), sprints.
            let step = random.unit() < 0.1 ? 0 : random.unit() * 60
            let time = random.unit() < 0.05 ? 0 : random.unit() * 12
            meters.append(meters.last! + step)
            seconds.append(seconds.last! + time)
        }
        for target in [1.0, 50, 400, 1000, 5000, 9000, meters.last!, meters.last! + 1] {
            let fast = EffortWindows.fastest(targetMeters: target, meters: meters, seconds: seconds)?.seconds
            let brute = Self.bruteFastest(target, meters, seconds)
            #expect((fast == nil) == (brute == nil), "target \(target)")
            if let fast, let brute { #expect(abs(fast - brute) < 1e-6, "target \(target): \(fast) vs \(brute)") }
        }
    }

    @Test func fastestOnEmptyOneAndTwoSamples() {
        #expect(EffortWindows.fastest(targetMeters: 1000, meters: [], seconds: []) == nil)
        #expect(EffortWindows.fastest(targetMeters: 1000, meters: [0], seconds: [0]) == nil)
        #expect(EffortWindows.fastest(targetMeters: 1000, meters: [0, 2000], seconds: [0, 400])?.seconds == 200)
        #expect(EffortWindows.fastest(targetMeters: 1000, meters: [0, 500, 1500, 2000], seconds: [0, 100, 200, 300])?.seconds == 100)
    }

    @Test(arguments: [11 as UInt64, 12, 13])
    func bestMeanMatchesEveryWindow(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var runs: [[Double]] = []
        for length in [700, 3, 1300] { runs.append((0..<length).map { _ in (random.unit() * 300).rounded() }) }
        // A hard block in the second long run.
        for index in 400..<700 { runs[2][index] += 150 }
        var times: [Double] = [], values: [Double] = [], starts: [Int] = []
        var clock = 0.0
        for run in runs {
            starts.append(times.count)
            clock += 5000
            for (index, value) in run.enumerated() {
                times.append(clock + Double(index))
                values.append(value)
            }
        }
        for window in [1, 5, 60, 300, 699, 700, 1200, 2000] {
            let fast = EffortWindows.bestMean(windowSeconds: Double(window), times: times, values: values, runStarts: starts)?.mean
            let brute = Self.bruteMean(window, runs: runs)
            #expect((fast == nil) == (brute == nil), "window \(window)")
            if let fast, let brute { #expect(abs(fast - brute) < 1e-9, "window \(window): \(fast) vs \(brute)") }
        }
    }

    // MARK: Tracks

    static let start = Coordinate(latitude: 47.37, longitude: 8.54)

    /// Fixes at 1 Hz along a line: `speeds` gives the speed (m/s) for each stretch of metres; `stopAt` a place
    /// where the rider stands still for `stopSeconds`.
    static func ride(
        lengthMeters: Double, speed: (Double) -> Double, startSeconds: Double = 1_700_000_000, startMeters: Double = 0,
        jitterMeters: Double = 0, stopAtMeters: Double? = nil, stopSeconds: Double = 0, seed: UInt64 = 7
    ) -> (points: [TrackPoint], endSeconds: Double) {
        var random = SeededGenerator(seed: seed)
        var points: [TrackPoint] = []
        var meters = startMeters, clock = startSeconds
        var stopped = false
        func fix() {
            var position = start.destination(distanceMeters: meters, bearingDegrees: 60)
            if jitterMeters > 0 { position = offset(position, east: random.symmetric(jitterMeters), north: random.symmetric(jitterMeters)) }
            points.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: nil, time: gpxTime(clock)))
        }
        fix()
        while meters < startMeters + lengthMeters {
            if let stopAt = stopAtMeters, !stopped, meters >= stopAt {
                stopped = true
                for _ in 0..<Int(stopSeconds) {
                    clock += 1
                    fix()
                }
            }
            meters = min(startMeters + lengthMeters, meters + speed(meters))
            clock += 1
            fix()
        }
        return (points, clock)
    }

    @Test func fastestStretchOfAKnownRide() {
        // 20 km at 5 m/s with 3 km at 10 m/s from 8 km, a 10-minute stop at 15 km, jitter of 2 m.
        let fast = { (m: Double) in (8000..<11_000).contains(m) ? 10.0 : 5.0 }
        let ride = Self.ride(lengthMeters: 20_000, speed: fast, jitterMeters: 2, stopAtMeters: 15_000, stopSeconds: 600)
        let stats = Track(segments: [TrackSegment(points: ride.points)]).stats(activity: .ride, measuringEfforts: true)
        let efforts = try! #require(stats.efforts)
        // Known truth: 1 km inside the fast stretch, 100 s; 5 km = 3 km at 10 m/s + 2 km at 5 m/s = 700 s;
        // 10 km = 3 km fast + 7 km slow = 1700 s; the stop is no moving time, so 20 km is 20 km of riding.
        let expected: [(EffortKey, Double)] = [(.fastest1km, 100), (.fastest5km, 700), (.fastest10km, 1700), (.fastest20km, 3700)]
        for (key, seconds) in expected {
            let value = try! #require(efforts[key]?.value, "\(key)")
            #expect(abs(value - seconds) / seconds < 0.02, "\(key): \(value) s, expected \(seconds)")
        }
        #expect(efforts[.fastest40km] == nil)
        let best1km = efforts[.fastest1km]!
        #expect(best1km.start! >= 7900 && best1km.end! <= 11_100)
        #expect(efforts[.longestDistance]?.value == stats.distanceMeters)
        #expect(efforts[.longestMovingTime]?.value == stats.movingSeconds)
        #expect(efforts[.topSpeed]?.value == stats.maxSpeedMetersPerSecond)
        #expect(efforts[.power5s] == nil && efforts[.heartRate5s] == nil)
    }

    @Test func aPauseIsNoRidingTime() {
        // 6 km at 5 m/s, pause for an hour (a new segment), 6 km more: 10 km takes 2000 s of riding.
        let first = Self.ride(lengthMeters: 6000, speed: { _ in 5 })
        let second = Self.ride(lengthMeters: 6000, speed: { _ in 5 }, startSeconds: first.endSeconds + 3600, startMeters: 6000)
        let track = Track(segments: [TrackSegment(points: first.points), TrackSegment(points: second.points)])
        let stats = track.stats(activity: .ride, measuringEfforts: true)
        #expect(stats.pausedSeconds >= 3599)
        let ten = try! #require(stats.efforts?[.fastest10km]?.value)
        #expect(abs(ten - 2000) < 20, "\(ten)")
    }

    @Test func aSegmentGapIsNoDistance() {
        // Two segments 5 km apart on the map: the jump is not ridden, so 6 km of riding holds no 10 km effort.
        let first = Self.ride(lengthMeters: 3000, speed: { _ in 5 })
        let second = Self.ride(lengthMeters: 3000, speed: { _ in 5 }, startSeconds: first.endSeconds + 60, startMeters: 8000)
        let stats = Track(segments: [TrackSegment(points: first.points), TrackSegment(points: second.points)]).stats(activity: .ride, measuringEfforts: true)
        #expect(stats.efforts?[.fastest5km] != nil)
        #expect(stats.efforts?[.fastest10km] == nil)
    }

    @Test(arguments: [4985.0, 4995, 5000, 5003, 5010, 5020])
    func aFiveKilometreEffortIffTheTrackIsFiveKilometres(length: Double) {
        let ride = Self.ride(lengthMeters: length, speed: { _ in 4 })
        let stats = Track(segments: [TrackSegment(points: ride.points)]).stats(activity: .run, measuringEfforts: true)
        let effort = stats.efforts?[.fastest5km]
        #expect((effort != nil) == (stats.distanceMeters >= 5000), "distance \(stats.distanceMeters)")
        if let effort { #expect(effort.value <= stats.movingSeconds + 1e-9) }
    }

    @Test func runsKeepTheRunnersDistances() {
        let ride = Self.ride(lengthMeters: 2000, speed: { _ in 4 })
        let run = Track(segments: [TrackSegment(points: ride.points)]).stats(activity: .run, measuringEfforts: true).efforts!
        #expect(run[.fastest400m] != nil && run[.fastest1mi] != nil && run[.fastest1km] != nil)
        let walk = Track(segments: [TrackSegment(points: ride.points)]).stats(activity: .walk, measuringEfforts: true).efforts!
        #expect(walk[.fastest400m] == nil && walk[.fastest1km] != nil)
    }

    @Test func powerAndHeartRateCurvesMatchBruteForce() {
        var random = SeededGenerator(seed: 99)
        var runs: [[Double]] = [[], []]
        var pulses: [[Double]] = [[], []]
        var segments: [TrackSegment] = []
        var clock = 1_700_000_000.0
        for (part, length) in [1500, 4000].enumerated() {
            var points: [TrackPoint] = []
            for index in 0..<length {
                let meters = Double(part * 20_000 + index * 5)
                let position = Self.start.destination(distanceMeters: meters, bearingDegrees: 60)
                var power = (random.unit() * 250).rounded()
                if part == 1 && (1000..<2200).contains(index) { power += 120 }
                let pulse = 110 + (random.unit() * 60).rounded()
                runs[part].append(power)
                pulses[part].append(pulse)
                points.append(
                    TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: nil, time: gpxTime(clock), heartRate: pulse, powerWatts: power))
                clock += 1
            }
            segments.append(TrackSegment(points: points))
            clock += 600
        }
        let efforts = Track(segments: segments).stats(activity: .ride, measuringEfforts: true).efforts!
        let windows: [(EffortKey, EffortKey, Int)] = [
            (.power5s, .heartRate5s, 5), (.power1min, .heartRate1min, 60), (.power5min, .heartRate5min, 300),
            (.power20min, .heartRate20min, 1200), (.power60min, .heartRate60min, 3600),
        ]
        for (powerKey, pulseKey, seconds) in windows {
            let power = try! #require(efforts[powerKey]?.value, "\(powerKey)")
            #expect(abs(power - Self.bruteMean(seconds, runs: runs)!) < 1e-9, "\(powerKey)")
            let pulse = try! #require(efforts[pulseKey]?.value, "\(pulseKey)")
            #expect(abs(pulse - Self.bruteMean(seconds, runs: pulses)!) < 1e-9, "\(pulseKey)")
        }
    }

    @Test func effortsSurviveTheStoredJSON() throws {
        let ride = Self.ride(lengthMeters: 6000, speed: { _ in 5 })
        let stats = Track(segments: [TrackSegment(points: ride.points)]).stats(activity: .ride, measuringEfforts: true)
        #expect(stats.efforts?.efforts.isEmpty == false)
        let decoded = try JSONDecoder().decode(TrackStats.self, from: try JSONEncoder().encode(stats))
        #expect(decoded == stats)
        #expect(Track(segments: [TrackSegment(points: ride.points)]).stats(activity: .ride).efforts == nil)
    }
}
