import Foundation
import RideKit
import TestSupport
import Testing

/// Following a route fix by fix: the next cue and its distance, off route and back, routes that cross
/// themselves or run the same street twice, and a state that survives a restart.
@Suite struct RouteFollowerTests {
    static let start = Coordinate(latitude: 37.33, longitude: -122.03)
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// A point `x` metres east and `y` north of `origin` (on a plane: the routes here span a few hundred metres).
    static func point(east x: Double, north y: Double, of origin: Coordinate = start) -> Coordinate {
        let distance = (x * x + y * y).squareRoot()
        return distance == 0 ? origin : origin.destination(distanceMeters: distance, bearingDegrees: atan2(x, y) * 180 / .pi)
    }

    static func fix(_ coordinate: Coordinate, second: Double, accuracy: Double? = 5) -> RouteFix {
        RouteFix(coordinate: coordinate, accuracyMeters: accuracy, time: t0.addingTimeInterval(second))
    }

    @Test func aRideAtFiveMetresPerFixHearsEveryCornerRightBeforeItComes() throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 10, lengths: [300, 150, 400, 60, 250], turns: [90, -45, 135, -100])
        var follower = try RouteFollower(route: route.line)
        #expect(follower.cues.count == route.corners.count)
        var announcedJustBefore = Set<Int>()
        for (second, step) in route.walk(stepMeters: 5).enumerated() {
            let navigation = follower.update(with: Self.fix(step.coordinate, second: Double(second)))
            #expect(!navigation.offRoute)
            #expect(abs(navigation.progressMeters - step.alongMeters) < 1, "at \(step.alongMeters) m")
            #expect(abs(navigation.remainingMeters - (route.lengthMeters - step.alongMeters)) < 1)
            // Skip the fixes within a metre of a corner, where "next" is a matter of rounding.
            guard !route.corners.contains(where: { abs($0.distanceMeters - step.alongMeters) < 1 }) else { continue }
            guard let index = route.corners.firstIndex(where: { $0.distanceMeters > step.alongMeters }) else {
                #expect(navigation.nextCue == nil, "past the last corner")
                continue
            }
            let corner = route.corners[index]
            let next = try #require(navigation.nextCue, "at \(step.alongMeters) m")
            #expect(next.cue.direction == (corner.angleDegrees > 0 ? .right : .left))
            #expect(next.cue.severity == TurnSeverity(angleDegrees: corner.angleDegrees))
            #expect(abs(next.distanceMeters - (corner.distanceMeters - step.alongMeters)) < 1.5)
            if corner.distanceMeters - step.alongMeters <= 10 { announcedJustBefore.insert(index) }
        }
        #expect(announcedJustBefore == Set(route.corners.indices))
    }

    @Test func theTextIsInTheRidersUnits() throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 0, lengths: [500, 300], turns: [90])
        var follower = try RouteFollower(route: route.line)
        follower.update(with: Self.fix(Self.point(east: 0, north: 370), second: 0))  // 130 m before the corner
        #expect(follower.navigation.nextCue?.text == "Turn right in 150 m")
        follower.configuration.units = .imperial
        #expect(follower.navigation.nextCue?.text == "Turn right in 450 feet")  // 426.5 ft
        follower.update(with: Self.fix(Self.point(east: 0, north: 486), second: 20))  // 14 m: 46 ft
        #expect(follower.navigation.nextCue?.text == "Turn right in 50 feet")
        follower.configuration.units = .metric
        #expect(follower.navigation.nextCue?.text == "Turn right in 10 m")
    }

    @Test func offRouteBeyondFiftyMetresAndBackOnlyWellInside() throws {
        // East for 2 km, then right. The rider drifts north up to 100 m between 500 and 1400 m, and back.
        let route = DrawnRoute.legs(from: Self.start, heading: 90, lengths: [2000, 500], turns: [90])
        var follower = try RouteFollower(route: route.line)
        var wasOff = false, leftAt: Double?, rejoinedAt: Double?
        for (second, along) in stride(from: 2.0, through: 1900, by: 5).enumerated() {
            let offset = along < 500 ? 0 : along < 700 ? (along - 500) / 2 : along < 1200 ? 100 : along < 1400 ? (1400 - along) / 2 : 0
            let navigation = follower.update(with: Self.fix(Self.point(east: along, north: offset), second: Double(second)))
            if offset > 50.5 { #expect(navigation.offRoute, "\(offset) m off at \(along)") }
            if offset < 49.5 && along < 700 { #expect(!navigation.offRoute, "\(offset) m off at \(along)") }
            if along >= 1200 && offset > 30.5 { #expect(navigation.offRoute, "still off at \(offset) m (hysteresis)") }
            if offset < 29.5 { #expect(!navigation.offRoute, "back at \(offset) m") }
            if navigation.offRoute {
                #expect(navigation.nextCue == nil)
                #expect(abs((navigation.distanceFromRouteMeters ?? 0) - offset) < 1)
                if !wasOff { leftAt = along }
            } else {
                if wasOff { rejoinedAt = along }
                #expect(abs(navigation.progressMeters - along) < 1)
                #expect(navigation.nextCue?.cue.direction == .right)
                #expect(abs((navigation.nextCue?.distanceMeters ?? 0) - (2000 - along)) < 1.5)
            }
            wasOff = navigation.offRoute
        }
        // Off past 50 m (51 m at 602 m along), back under 30 m (29 m at 1342 m along, 31.5 m at 1337).
        #expect(leftAt == 602)
        #expect(rejoinedAt == 1342)
    }

    @Test func theThresholdWidensForAPoorFixAndIsConfigurable() throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 90, lengths: [1000], turns: [])
        func offRoute(offset: Double, accuracy: Double, configuration: RouteFollower.Configuration = .init()) throws -> Bool {
            var follower = try RouteFollower(route: route.line, configuration: configuration)
            follower.update(with: Self.fix(Self.point(east: 100, north: 0), second: 0))
            return follower.update(with: Self.fix(Self.point(east: 105, north: offset), second: 1, accuracy: accuracy)).offRoute
        }
        #expect(try offRoute(offset: 60, accuracy: 5))
        #expect(try !offRoute(offset: 60, accuracy: 30))  // 50 + 30
        #expect(try offRoute(offset: 90, accuracy: 30))
        var strict = RouteFollower.Configuration()
        strict.offRouteMeters = 20
        #expect(try offRoute(offset: 25, accuracy: 5, configuration: strict))
        #expect(try !offRoute(offset: 15, accuracy: 5, configuration: strict))
    }

    @Test func aShortcutRejoinsFurtherAlongAndTheCuesContinueFromThere() throws {
        // North 300, right, east 300, right, south 300, left, east 300, left, north 300. The rider leaves the
        // first leg at 100 m and rides east along y = 100, meeting the third leg at 800 m along the route.
        let route = DrawnRoute.legs(from: Self.start, heading: 0, lengths: [300, 300, 300, 300, 300], turns: [90, 90, -90, -90])
        var follower = try RouteFollower(route: route.line)
        var second = 0.0
        for y in stride(from: 0.0, through: 100, by: 5) {
            follower.update(with: Self.fix(Self.point(east: 0, north: y), second: second))
            second += 1
        }
        var rejoined: Navigation?
        for x in stride(from: 5.0, through: 300, by: 5) {
            let navigation = follower.update(with: Self.fix(Self.point(east: x, north: 100), second: second))
            second += 1
            if x > 60 && x < 260 { #expect(navigation.offRoute, "at x = \(x)") }
            if !navigation.offRoute && x > 200 { rejoined = navigation; break }
        }
        let navigation = try #require(rejoined)
        #expect(abs(navigation.progressMeters - 800) < 1)
        #expect(navigation.nextCue?.cue.direction == .left)
        #expect(abs((navigation.nextCue?.distanceMeters ?? 0) - 100) < 1.5)
    }

    /// The figure eight crosses itself 480 m apart along the route; the small loop 100 m apart, well inside
    /// the window ahead.
    static let crossingRoutes: [String: DrawnRoute] = [
        "figure eight": DrawnRoute.figureEight(around: start),
        "small loop": DrawnRoute.legs(from: start, heading: 0, lengths: [200, 20, 40, 40, 300], turns: [90, 90, 90, -90]),
    ]

    @Test(arguments: ["figure eight", "small loop"])
    func aRouteThatCrossesItselfNeverJumps(name: String) throws {
        let route = try #require(Self.crossingRoutes[name])
        var follower = try RouteFollower(route: route.line)
        var random = SeededGenerator(seed: 8)
        for (second, step) in route.walk(stepMeters: 5).enumerated() {
            // A few metres of GPS error, the crossing included.
            let noisy = step.coordinate.destination(distanceMeters: random.unit() * 4, bearingDegrees: random.unit() * 360)
            let navigation = follower.update(with: Self.fix(noisy, second: Double(second)))
            #expect(!navigation.offRoute)
            #expect(abs(navigation.progressMeters - step.alongMeters) < 6, "at \(step.alongMeters) m: \(navigation.progressMeters)")
        }
    }

    @Test func aStreetRiddenOutAndBackIsFollowedBothWays() throws {
        // 500 m out, a U-turn, 500 m back on the very same line.
        let route = DrawnRoute.legs(from: Self.start, heading: 45, lengths: [500, 500], turns: [180])
        var follower = try RouteFollower(route: route.line)
        #expect(follower.cues.map(\.severity) == [.uturn])
        for (second, step) in route.walk(stepMeters: 5).enumerated() {
            let navigation = follower.update(with: Self.fix(step.coordinate, second: Double(second)))
            #expect(abs(navigation.progressMeters - step.alongMeters) < 1.5, "at \(step.alongMeters) m: \(navigation.progressMeters)")
            if step.alongMeters < 499 { #expect(navigation.nextCue?.text.hasPrefix("Make a U-turn") == true) }
            if step.alongMeters > 501 { #expect(navigation.nextCue == nil) }
        }
    }

    /// The built-in simulated ride (the Cupertino loop, which ends where it starts) followed the way the
    /// server will: on the route all the way, progress only forward, every cue passed in order.
    @Test func theSimulatedCupertinoRideFollowsItsRouteToTheEnd() throws {
        let route = RideSimulator.cupertinoLoop.map(\.coordinate)
        var follower = try RouteFollower(route: route)
        #expect(!follower.cues.isEmpty)
        let fixes = RideSimulator(route: RideSimulator.cupertinoLoop, speedMetersPerSecond: 5)
            .fixes(startingAt: GPXTime(secondsSince1970: 1_700_000_000))
        var previous = 0.0
        var announced: [Double] = []
        for fix in fixes {
            let time = Date(timeIntervalSince1970: try #require(fix.time).timeIntervalSince1970)
            let navigation = follower.update(with: RouteFix(coordinate: fix.coordinate, accuracyMeters: fix.horizontalAccuracyMeters, time: time))
            #expect(!navigation.offRoute)
            #expect(navigation.progressMeters >= previous - 1)
            previous = navigation.progressMeters
            if let cue = navigation.nextCue?.cue, announced.last != cue.distanceMeters { announced.append(cue.distanceMeters) }
        }
        #expect(follower.navigation.remainingMeters < 5)
        #expect(announced == follower.cues.map(\.distanceMeters))
    }

    @Test func aLongGapBetweenFixesWidensTheWindowAhead() throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 0, lengths: [3000], turns: [])
        var follower = try RouteFollower(route: route.line)
        follower.update(with: Self.fix(Self.point(east: 0, north: 100), second: 0))
        // A minute later, 900 m on (15 m/s): beyond the 200 m window of a fix a second later.
        let navigation = follower.update(with: Self.fix(Self.point(east: 0, north: 1000), second: 60))
        #expect(!navigation.offRoute)
        #expect(abs(navigation.progressMeters - 1000) < 1)
    }

    @Test func theStateSurvivesARestartMidRide() throws {
        let route = DrawnRoute.figureEight(around: Self.start)
        let steps = route.walk(stepMeters: 5)
        var uninterrupted = try RouteFollower(route: route.line)
        var restored: RouteFollower?
        for (second, step) in steps.enumerated() {
            let fix = Self.fix(step.coordinate, second: Double(second))
            let expected = uninterrupted.update(with: fix)
            if second == steps.count / 2 {
                let saved = try JSONEncoder().encode(uninterrupted.state)
                let state = try JSONDecoder().decode(RouteFollower.State.self, from: saved)
                restored = try RouteFollower(route: route.line, state: state)
                #expect(restored?.navigation == expected)
            } else if restored != nil {
                #expect(restored?.update(with: fix) == expected)
            }
        }
        #expect(restored != nil)
        // Replaying the same fixes into a new follower gives the same state.
        var replayed = try RouteFollower(route: route.line)
        for (second, step) in steps.enumerated() { replayed.update(with: Self.fix(step.coordinate, second: Double(second))) }
        #expect(replayed.state == uninterrupted.state)
    }

    /// A recorded track used as the route (GPS noise, cut corners, bends, jogs, U-turns), ridden again with
    /// other noise: the rider is never off it and the progress moves on steadily, never jumping.
    @Test func aRecordedTrackCanBeFollowedByAnotherNoisyRide() throws {
        var random = SeededGenerator(seed: 77)
        for _ in 0..<20 {
            let synthetic = SyntheticRoute.random(cornerCount: 8, using: &random)
            var follower = try RouteFollower(route: synthetic.lines[.recording]!)
            let planned = try #require(synthetic.lines[.routingEngine])
            let ride = DrawnRoute(line: planned, corners: [], lengthMeters: 0).walk(stepMeters: 5)
            var previous = 0.0
            for (second, step) in ride.enumerated() {
                let noisy = step.coordinate.destination(distanceMeters: random.unit() * 3, bearingDegrees: random.unit() * 360)
                let navigation = follower.update(with: Self.fix(noisy, second: Double(second)))
                #expect(!navigation.offRoute)
                let moved = navigation.progressMeters - previous
                #expect(moved > -10 && moved < 30, "moved \(moved) m at \(step.alongMeters) m")
                previous = navigation.progressMeters
            }
            #expect(follower.navigation.remainingMeters < 40)
        }
    }

    @Test func fixesThatSayNothingChangeNothing() throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 0, lengths: [1000, 200], turns: [-90])
        var follower = try RouteFollower(route: route.line)
        let before = follower.update(with: Self.fix(Self.point(east: 0, north: 300), second: 10))
        let far = Self.point(east: 500, north: 300)
        #expect(follower.update(with: Self.fix(far, second: 5)) == before, "older than the last fix")
        #expect(follower.update(with: Self.fix(far, second: 11, accuracy: 500)) == before, "too inaccurate to use")
        #expect(follower.update(with: Self.fix(Coordinate(latitude: .nan, longitude: 0), second: 12)) == before)
        #expect(follower.update(with: Self.fix(Coordinate(latitude: 95, longitude: 0), second: 13)) == before)
        #expect(follower.update(with: Self.fix(Self.point(east: 0, north: 310), second: 14, accuracy: .nan)).progressMeters > 309)
    }

    @Test func aRiderWhoStartsAwayFromTheRouteIsOffItUntilTheyReachIt() throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 90, lengths: [1000, 500], turns: [-90])
        var follower = try RouteFollower(route: route.line)
        #expect(follower.navigation.offRoute)
        #expect(follower.navigation.distanceFromRouteMeters == nil)
        // A state saved before the first fix encodes (JSON has no infinity) and restores.
        let saved = try JSONEncoder().encode(follower.state)
        #expect(try JSONDecoder().decode(RouteFollower.State.self, from: saved) == follower.state)
        let away = follower.update(with: Self.fix(Self.point(east: 400, north: -300), second: 0))
        #expect(away.offRoute && away.nextCue == nil)
        #expect(abs((away.distanceFromRouteMeters ?? 0) - 300) < 1)
        let joined = follower.update(with: Self.fix(Self.point(east: 400, north: -20), second: 60))
        #expect(!joined.offRoute)
        #expect(abs(joined.progressMeters - 400) < 1)
        #expect(joined.nextCue?.text == "Turn left in 600 m")
    }

    @Test func aRouteWithoutLengthCannotBeFollowed() {
        #expect(throws: NavigationError.routeTooShort(validPointCount: 1)) {
            try RouteFollower(route: [Self.start, Self.start, Coordinate(latitude: .nan, longitude: 1)])
        }
        #expect(throws: NavigationError.routeTooShort(validPointCount: 0)) { try RouteFollower(route: []) }
    }
}
