import Foundation
import Testing
import RideKit
import TestSupport

/// How a receiver scatters its fixes, metres per axis.
enum Scatter: CustomStringConvertible, Sendable {
    /// Each fix on its own (a poor view of the sky: fixes jump from one second to the next).
    case independent(sigmaMeters: Double)
    /// A wander: each fix near the last, drifting about the true position with this spread over time (an
    /// Ornstein–Uhlenbeck random walk with the given correlation time).
    case wander(sigmaMeters: Double, correlationSeconds: Double)

    var description: String {
        switch self {
        case .independent(let sigma): return "independent σ \(sigma) m"
        case .wander(let sigma, let seconds): return "wander σ \(sigma) m over \(Int(seconds)) s"
        }
    }

    /// The scatter's state as it runs: the current offset, east and north.
    struct Source {
        let scatter: Scatter
        var random: SeededGenerator
        var east = 0.0
        var north = 0.0

        init(_ scatter: Scatter, seed: UInt64) {
            self.scatter = scatter
            random = SeededGenerator(seed: seed)
            if case .wander(let sigma, _) = scatter {
                east = random.gaussian(sigma)
                north = random.gaussian(sigma)
            }
        }

        /// The offset of the next fix, `seconds` after the previous one.
        mutating func next(after seconds: Double) -> (east: Double, north: Double) {
            switch scatter {
            case .independent(let sigma):
                return (random.gaussian(sigma), random.gaussian(sigma))
            case .wander(let sigma, let correlation):
                let keep = exp(-seconds / correlation)
                let fresh = sigma * (1 - keep * keep).squareRoot()
                east = keep * east + random.gaussian(fresh)
                north = keep * north + random.gaussian(fresh)
                return (east, north)
            }
        }
    }
}

/// A ride of known length along a path at a steady speed, with a stop somewhere along it; the fixes on the
/// move are the same whatever the stop, so that two rides differ by the stop alone.
struct RideWithStop {
    var path: (Double) -> Coordinate
    var lengthMeters: Double
    var speedMetersPerSecond: Double
    var intervalSeconds: Double = 1
    var stopAtMeters: Double
    var stopSeconds: Double
    /// Scatter on the move: 1.5 m, a phone with a clear view of the sky.
    var movingScatter = Scatter.independent(sigmaMeters: 1.5)
    var stopScatter: Scatter
    var seed: UInt64 = 1

    func points(withStop: Bool = true) -> [TrackPoint] {
        var moving = Scatter.Source(movingScatter, seed: seed)
        var standing = Scatter.Source(stopScatter, seed: seed &+ 7_919)
        let stopStart = stopAtMeters / speedMetersPerSecond
        let stop = withStop ? stopSeconds : 0
        let end = lengthMeters / speedMetersPerSecond + stop
        var result: [TrackPoint] = []
        var seconds = 0.0
        while seconds <= end + 1e-9 {
            let stopped = seconds > stopStart && seconds < stopStart + stop
            let meters = stopped ? stopAtMeters : min(lengthMeters, speedMetersPerSecond * (seconds > stopStart ? seconds - stop : seconds))
            let noise = stopped ? standing.next(after: intervalSeconds) : moving.next(after: intervalSeconds)
            let position = offset(path(meters), east: noise.east, north: noise.north)
            result.append(TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: 500, time: gpxTime(1_700_000_000 + seconds)))
            seconds += intervalSeconds
        }
        return result
    }
}

/// A phone that waits at a light or a café with a poor view of the sky scatters its fixes by metres from one
/// second to the next: the stop must add (almost) no distance and count as stopped time.
@Suite struct TrackStatsStopTests {
    static let zurich = Coordinate(latitude: 47.3769, longitude: 8.5417)

    /// What a stop adds to a ride: distance and moving time with the stop less the same without it.
    struct Added {
        var ride: RideWithStop
        var distanceMeters: Double
        var movingSeconds: Double
        var withoutStop: TrackStats
        var withStop: TrackStats
        var distanceShare: Double { distanceMeters / withoutStop.distanceMeters }
        var movingShare: Double { movingSeconds / withoutStop.movingSeconds }
    }

    static func added(_ ride: RideWithStop, activity: ActivityKind = .ride) -> Added {
        let without = stats(of: ride.points(withStop: false), activity: activity)
        let with = stats(of: ride.points(withStop: true), activity: activity)
        return Added(
            ride: ride, distanceMeters: with.distanceMeters - without.distanceMeters, movingSeconds: with.movingSeconds - without.movingSeconds,
            withoutStop: without, withStop: with)
    }

    static let scatters: [Scatter] = [2.0, 3.0, 4.0, 5.0, 6.0].flatMap { sigma in
        [Scatter.independent(sigmaMeters: sigma), .wander(sigmaMeters: sigma, correlationSeconds: 30), .wander(sigmaMeters: sigma, correlationSeconds: 120)]
    }

    /// A 10 km ride at 6 m/s (21.6 km/h) along a street grid with a corner every 400 m, stopping half-way.
    static func ride(stopMinutes: Double, scatter: Scatter, interval: Double, seed: UInt64) -> RideWithStop {
        RideWithStop(
            path: SyntheticRide.staircase(from: zurich, blockMeters: 400), lengthMeters: 10_000, speedMetersPerSecond: 6,
            intervalSeconds: interval, stopAtMeters: 5_000, stopSeconds: stopMinutes * 60, stopScatter: scatter, seed: seed)
    }

    @Test(arguments: [1.0, 2.0, 5.0])
    func stopsOfTwoToFifteenMinutesAddUnderThreePercentOfDistanceAndTenOfMovingTime(_ interval: Double) {
        var worstDistance: Added?
        var worstMoving: Added?
        var runs = 0
        for scatter in Self.scatters {
            for minutes in [2.0, 5.0, 10.0, 15.0] {
                for seed in 1...3 as ClosedRange<UInt64> {
                    let added = Self.added(Self.ride(stopMinutes: minutes, scatter: scatter, interval: interval, seed: seed * 1_000 + UInt64(minutes)))
                    runs += 1
                    // The bound: ten minutes (here up to fifteen) of scatter add at most 3 % of distance
                    // and 10 % of moving time.
                    #expect(added.distanceShare <= 0.03, "\(scatter), \(minutes) min, every \(interval) s, seed \(seed): +\(added.distanceMeters) m")
                    #expect(added.movingShare <= 0.10, "\(scatter), \(minutes) min, every \(interval) s, seed \(seed): +\(added.movingSeconds) s")
                    // And the stop is stopped time: all of it but what it takes to tell (a minute, or 24 fixes: a
                    // stop of 2 minutes with fixes 5 s apart is too short to tell from the ride around it).
                    let stopped = added.withStop.stoppedSeconds - added.withoutStop.stoppedSeconds
                    #expect(stopped >= minutes * 60 - max(60, 24 * interval), "\(scatter), \(minutes) min, every \(interval) s: \(stopped) s stopped")
                    if worstDistance.map({ added.distanceMeters > $0.distanceMeters }) ?? true { worstDistance = added }
                    if worstMoving.map({ added.movingSeconds > $0.movingSeconds }) ?? true { worstMoving = added }
                }
            }
        }
        if let worstDistance, let worstMoving {
            print(
                "stop jitter, fixes every \(interval) s, \(runs) rides of 10 km with stops of 2–15 min: most distance added",
                String(format: "%+.1f m (%+.2f %%)", worstDistance.distanceMeters, 100 * worstDistance.distanceShare),
                "(\(worstDistance.ride.stopScatter), \(Int(worstDistance.ride.stopSeconds / 60)) min);",
                String(format: "most moving time added %+.0f s (%+.1f %%)", worstMoving.movingSeconds, 100 * worstMoving.movingShare),
                "(\(worstMoving.ride.stopScatter), \(Int(worstMoving.ride.stopSeconds / 60)) min)")
        }
    }

    @Test(arguments: [1.0, 2.0, 5.0])
    func theRideAroundAStopMeasuresItsLength(_ interval: Double) {
        // The same rides against their known length: 10 km, with 1.5 m of scatter on the move.
        for scatter in [Scatter.independent(sigmaMeters: 6), .wander(sigmaMeters: 6, correlationSeconds: 120)] {
            for seed in 1...3 as ClosedRange<UInt64> {
                let result = stats(of: Self.ride(stopMinutes: 10, scatter: scatter, interval: interval, seed: seed).points())
                #expect(relativeError(result.distanceMeters, 10_000) < 0.03, "\(scatter), seed \(seed): \(result.distanceMeters) m")
                #expect(relativeError(result.movingSeconds, 10_000 / 6) < 0.05, "\(scatter), seed \(seed): \(result.movingSeconds) s")
            }
        }
    }

    /// A walker at 1 m/s: slow, but moving. Scatter as a moving receiver shows it: independent up to 1.5 m, or
    /// a wander of up to 6 m that drifts over minutes (a fix that jumps 6 m every second while walking is not
    /// told from a zigzag: see docs/stats.md).
    static let walkingScatters: [Scatter] = [1.0, 1.5].map { Scatter.independent(sigmaMeters: $0) }
        + [2.0, 4.0, 6.0].map { Scatter.wander(sigmaMeters: $0, correlationSeconds: 600) }

    @Test(arguments: [ActivityKind.walk, .run, .ride], [1.0, 2.0, 5.0])
    func aWalkerAtOneMetrePerSecondStillCounts(_ activity: ActivityKind, _ interval: Double) {
        var worst = 0.0
        for scatter in Self.walkingScatters {
            for seed in 1...3 as ClosedRange<UInt64> {
                let walk = RideWithStop(
                    path: SyntheticRide.staircase(from: Self.zurich, blockMeters: 200), lengthMeters: 2_000, speedMetersPerSecond: 1,
                    intervalSeconds: interval, stopAtMeters: 2_000, stopSeconds: 0, movingScatter: scatter, stopScatter: scatter, seed: seed)
                let result = stats(of: walk.points(), activity: activity)
                worst = max(worst, relativeError(result.distanceMeters, 2_000))
                #expect(relativeError(result.distanceMeters, 2_000) < 0.05, "\(scatter), seed \(seed): \(result.distanceMeters) m")
                if activity != .ride {
                    // Over the run's and the walk's stopped speed, so all of it is moving.
                    #expect(result.movingSeconds >= 0.95 * 2_000, "\(scatter), seed \(seed): moving \(result.movingSeconds) s")
                }
            }
        }
        print("walker at 1 m/s, \(activity), fixes every \(interval) s:", String(format: "distance within %.1f %%", 100 * worst))
    }
}
