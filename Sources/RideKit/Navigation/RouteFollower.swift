import Foundation

/// Follows a rider along a planned route, fix by fix: where they are on it, the next cue, off route or not.
///
/// Progress is the rider's position along the route, and it is only looked for near where it was: within
/// `lookBackMeters` behind and a window ahead that grows with the time since the last fix. A route that
/// crosses itself, or rides the same street twice (out and back, two laps), therefore never jumps to the
/// other pass: among the points of the window near the rider, the one nearest to the last progress and
/// pointing the way the rider travels wins.
///
/// The rider is off route when the window is farther than the threshold (`offRouteMeters`, plus the fix's
/// accuracy when that is poor). Only then is the whole route searched, and the rider is back on it once
/// within `rejoinFraction` of the threshold (hysteresis: no flicker at the edge): at the first pass of the
/// route near them at or ahead of where they left it (or, if none is ahead, the nearest behind), so that
/// after a detour or a shortcut the cues continue from there.
///
/// The state is a small `Codable` value: a server stores it with the recording and rebuilds the follower
/// with `init(route:cues:configuration:state:)` after a restart; replaying the fixes gives the same state.
///
///     var follower = try RouteFollower(route: line)
///     let navigation = follower.update(with: RouteFix(coordinate: here, accuracyMeters: 5, time: now))
///     navigation.nextCue?.text   // "Turn right in 50 m"
public struct RouteFollower: Sendable {
    /// Thresholds and units; every field has a default.
    public struct Configuration: Sendable, Hashable, Codable {
        /// Distance from the route beyond which the rider is off it, metres (before accuracy is added).
        public var offRouteMeters: Double = 50
        /// A fix less accurate than this (metres) has its accuracy added to the off-route threshold.
        public var poorAccuracyMeters: Double = 15
        /// A fix less accurate than this (metres) says too little to move anything, and is skipped.
        public var uselessAccuracyMeters: Double = 200
        /// Back on route once within this fraction of the threshold.
        public var rejoinFraction: Double = 0.6
        /// How far behind the last progress the rider may be found (GPS jitter, a few metres back), metres.
        public var lookBackMeters: Double = 30
        /// How far ahead of the last progress the rider may be found at least, metres.
        public var lookAheadMeters: Double = 200
        /// Fastest plausible speed, metres per second: the window ahead grows by this for every second
        /// since the last fix (25 m/s = 90 km/h, a fast descent).
        public var maximumSpeedMetersPerSecond: Double = 25
        /// Units of the cue text.
        public var units: UnitSystem = .metric

        public init() {}
    }

    /// Where the rider is on the route: everything the follower remembers between fixes.
    public struct State: Sendable, Hashable, Codable {
        /// Distance along the route from its start to the rider's position on it, metres.
        public var progressMeters: Double = 0
        /// True once the rider has been on the route.
        public var hasJoined = false
        /// True while off route (also before the rider has first joined the route).
        public var offRoute = true
        /// Distance from the route at the last fix, metres (nil before the first fix).
        public var distanceFromRouteMeters: Double?
        /// Time of the last fix used; older fixes are skipped.
        public var lastFixTime: Date?
        /// Position of the last fix used: with the next one it gives the direction of travel.
        public var lastFixCoordinate: Coordinate?

        public init() {}
    }

    /// The cues of the route, in route order.
    public let cues: [Cue]
    /// Thresholds and units (the units may be changed at any time).
    public var configuration: Configuration
    /// Where the rider is on the route.
    public private(set) var state: State
    let line: RoutePolyline

    /// A follower for `route`, with its `cues` (by default `TurnDetector.cues(along: route)`), from `state`
    /// (by default: not yet on the route).
    ///
    /// - Throws: `NavigationError.routeTooShort` when the route has fewer than two distinct valid points.
    public init(route: [Coordinate], cues: [Cue]? = nil, configuration: Configuration = Configuration(), state: State = State()) throws {
        let line = RoutePolyline(route)
        guard line.segmentCount > 0 else { throw NavigationError.routeTooShort(validPointCount: line.vertices.count) }
        self.line = line
        self.cues = (cues ?? TurnDetector.cues(along: line, configuration: TurnDetector.Configuration()))
            .sorted { $0.distanceMeters < $1.distanceMeters }
        self.configuration = configuration
        var state = state
        if !state.progressMeters.isFinite { state.progressMeters = 0 }
        state.progressMeters = min(max(0, state.progressMeters), line.lengthMeters)
        self.state = state
    }

    /// Length of the route, metres.
    public var routeLengthMeters: Double { line.lengthMeters }

    /// The route's line as the follower walks it: its valid points, repeats (hops under a centimetre) merged.
    public var routeVertices: [Coordinate] { line.vertices }

    /// Distance along the route to each of `routeVertices`, metres: with them, a client can follow the route
    /// as this follower does (the web app's provisional guidance offline) without measuring the line again.
    public var routeCumulativeMeters: [Double] { line.cumulativeMeters }

    /// What to tell the rider now, from the state alone (after a restore, or between fixes).
    public var navigation: Navigation {
        let progress = state.progressMeters
        var upcoming: Navigation.UpcomingCue?
        // The first cue beyond the progress, by bisection: the cues are sorted by distance.
        var low = 0, high = cues.count
        while low < high {
            let middle = (low + high) / 2
            if cues[middle].distanceMeters > progress { high = middle } else { low = middle + 1 }
        }
        if !state.offRoute, low < cues.count {
            let cue = cues[low]
            let distance = cue.distanceMeters - progress
            upcoming = Navigation.UpcomingCue(cue: cue, distanceMeters: distance,
                                              text: CueText.text(for: cue, distanceMeters: distance, units: configuration.units))
        }
        return Navigation(nextCue: upcoming, offRoute: state.offRoute, distanceFromRouteMeters: state.distanceFromRouteMeters,
                          remainingMeters: max(0, line.lengthMeters - progress), progressMeters: progress,
                          state: state)
    }

    /// Takes one fix and answers what to tell the rider.
    ///
    /// A fix with an invalid position, an accuracy worse than `uselessAccuracyMeters`, or a time before the
    /// last fix used changes nothing. Complexity: O(log n + window) on route; O(n) in the route's points
    /// while off it.
    @discardableResult
    public mutating func update(with fix: RouteFix) -> Navigation {
        guard fix.coordinate.isValid else { return navigation }
        let accuracy = fix.accuracyMeters.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? 0
        guard accuracy <= configuration.uselessAccuracyMeters else { return navigation }
        if let last = state.lastFixTime, fix.time < last { return navigation }
        let elapsed = state.lastFixTime.map { fix.time.timeIntervalSince($0) } ?? 0
        // The direction of travel, when the rider has moved enough for it to be more than GPS noise.
        let travelBearing = state.lastFixCoordinate.flatMap { last in
            last.distanceMeters(to: fix.coordinate) >= 3 ? last.initialBearingDegrees(to: fix.coordinate) : nil
        }
        state.lastFixTime = fix.time
        state.lastFixCoordinate = fix.coordinate

        let threshold = configuration.offRouteMeters + (accuracy > configuration.poorAccuracyMeters ? accuracy : 0)
        let scale = LocalScale(latitudeDegrees: fix.coordinate.latitude)
        if state.hasJoined && !state.offRoute {
            let ahead = min(max(configuration.lookAheadMeters, elapsed * configuration.maximumSpeedMetersPerSecond), 50_000)
            let nearest = nearestInWindow(fix.coordinate, ahead: ahead, elapsedSeconds: elapsed,
                                          travelBearing: travelBearing, scale: scale)
            if let nearest, nearest.distanceMeters <= threshold {
                state.progressMeters = nearest.alongMeters
                state.distanceFromRouteMeters = nearest.distanceMeters
                return navigation
            }
        }
        // Off the part being followed (or not on the route yet): search all of it.
        let radius = state.hasJoined ? configuration.rejoinFraction * threshold : threshold
        let search = searchWholeRoute(fix.coordinate, radius: radius, scale: scale)
        if let pass = search.pass {
            state.progressMeters = pass.alongMeters
            state.distanceFromRouteMeters = pass.distanceMeters
            state.offRoute = false
            state.hasJoined = true
        } else {
            state.offRoute = true
            state.distanceFromRouteMeters = search.nearestMeters
        }
        return navigation
    }

    /// The point of the window [progress − look-back, progress + `ahead`] nearest to `position`, with ties
    /// (a street ridden twice, a crossing) going to the point nearest along the route to the last progress
    /// (each metre along the route away from it counts as 5 cm of distance, up to 30 cm when the last fix
    /// was a second ago or less) and heading the way the rider travels (a segment pointing against it counts
    /// 25 m farther: on a street ridden out and back, the way back is told from the way out by direction alone).
    func nearestInWindow(
        _ position: Coordinate, ahead: Double, elapsedSeconds: Double, travelBearing: Double?, scale: LocalScale
    ) -> RoutePolyline.SegmentProjection? {
        let progress = state.progressMeters
        let first = line.segmentIndex(atDistance: progress - configuration.lookBackMeters)
        let last = line.segmentIndex(atDistance: progress + ahead)
        var best: RoutePolyline.SegmentProjection?
        var bestCost = Double.infinity
        // A second after the last fix the rider cannot be far along; a minute after, they can.
        let alongWeight = 0.05 + 0.25 / max(1, elapsedSeconds)
        for index in first...last {
            var projection = line.project(position, ontoSegment: index, scale: scale)
            // Keep to the window inside the segments at its ends.
            projection.alongMeters = min(max(projection.alongMeters, progress - configuration.lookBackMeters), progress + ahead)
            var cost = projection.distanceMeters + alongWeight * abs(projection.alongMeters - progress)
            if let travelBearing {
                let segmentBearing = line.vertices[index].initialBearingDegrees(to: line.vertices[index + 1])
                if abs(signedTurnDegrees(from: travelBearing, to: segmentBearing)) > 90 { cost += 25 }
            }
            if cost < bestCost {
                bestCost = cost
                best = projection
            }
        }
        return best
    }

    /// The whole route searched: the nearest distance to it, and the pass to join within `radius` if any.
    ///
    /// A pass is a run of consecutive segments within the radius (one time the route goes by); its point is
    /// the nearest of the run. The pass chosen is the first at or ahead of the last progress (less the
    /// look-back), else the last one behind it.
    func searchWholeRoute(_ position: Coordinate, radius: Double, scale: LocalScale)
        -> (pass: RoutePolyline.SegmentProjection?, nearestMeters: Double)
    {
        let from = state.hasJoined ? state.progressMeters - configuration.lookBackMeters : -Double.infinity
        var nearest = Double.infinity
        var current: RoutePolyline.SegmentProjection?
        var lastBehind: RoutePolyline.SegmentProjection?
        let unit = UnitVector(position)
        for index in 0..<line.segmentCount {
            // Far from the position: it cannot be the nearest, nor part of a pass; it ends any pass under way.
            if line.lowerBoundMeters(from: unit, toSegment: index) > max(radius, nearest) {
                if let pass = current {
                    if pass.alongMeters >= from { return (pass, pass.distanceMeters) }
                    lastBehind = pass
                    current = nil
                }
                continue
            }
            let projection = line.project(position, ontoSegment: index, scale: scale, unit: unit)
            nearest = min(nearest, projection.distanceMeters)
            if projection.distanceMeters <= radius {
                if current == nil || projection.distanceMeters < current!.distanceMeters { current = projection }
                continue
            }
            // The run ended at the previous segment.
            guard let pass = current else { continue }
            // The first pass ahead: the rest of the route cannot change the answer (the rider is on it).
            if pass.alongMeters >= from { return (pass, pass.distanceMeters) }
            lastBehind = pass
            current = nil
        }
        if let pass = current, pass.alongMeters >= from { return (pass, nearest) }
        return (current ?? lastBehind, nearest)
    }
}
