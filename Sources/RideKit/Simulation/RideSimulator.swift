import Foundation

/// Replays a route as a device would record it: fixes at a steady speed, one every `intervalSeconds`, for
/// demos and tests without a GPS (DESIGN 2.1, "Simulated ride").
///
///     let fixes = RideSimulator(route: RideSimulator.cupertinoLoop, speedMetersPerSecond: 5).fixes(
///         startingAt: GPXTime(secondsSince1970: 1_700_000_000))
///     // one fix a second along the 6.3 km loop, numbered from 1, the last at the start again
///
/// Positions are interpolated along each leg's geodesic (`destination(distanceMeters:bearingDegrees:)`),
/// so the fixes lie on the route and the route's length is the distance a perfect recorder measures.
public struct RideSimulator: Sendable {
    /// The points to ride through, in order (elevations interpolated when both ends of a leg have one).
    public var route: [TrackPoint]
    /// Steady speed, metres per second.
    public var speedMetersPerSecond: Double
    /// Time between fixes, seconds.
    public var intervalSeconds: Double
    /// Accuracy reported with every fix, metres.
    public var horizontalAccuracyMeters: Double

    public init(route: [TrackPoint], speedMetersPerSecond: Double, intervalSeconds: Double = 1, horizontalAccuracyMeters: Double = 5) {
        precondition(speedMetersPerSecond > 0 && intervalSeconds > 0, "speed and interval must be positive")
        self.route = route.filter { $0.coordinate.isValid }
        self.speedMetersPerSecond = speedMetersPerSecond
        self.intervalSeconds = intervalSeconds
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
    }

    /// Replays the points of a recorded track (all segments, one after the other) at a steady speed.
    public init(track: Track, speedMetersPerSecond: Double, intervalSeconds: Double = 1) {
        self.init(route: track.points, speedMetersPerSecond: speedMetersPerSecond, intervalSeconds: intervalSeconds)
    }

    /// Length of the route along its geodesics, metres.
    public var routeLengthMeters: Double {
        zip(route, route.dropFirst()).reduce(0) { $0 + $1.0.coordinate.distanceMeters(to: $1.1.coordinate) }
    }

    /// The fixes of one ride along the route: the first at its start, then one every `intervalSeconds`, the
    /// last at its end. Sequence numbers count from `firstSequence`.
    public func fixes(startingAt start: GPXTime, firstSequence: Int64 = 1) -> [RecordingFix] {
        guard let first = route.first else { return [] }
        let step = speedMetersPerSecond * intervalSeconds
        var fixes: [RecordingFix] = []
        var sequence = firstSequence
        var elapsed = 0.0
        func emit(_ coordinate: Coordinate, elevation: Double?, course: Double) {
            let time = GPXTime(date: start.date.addingTimeInterval(elapsed))
            fixes.append(
                RecordingFix(
                    sequence: sequence, latitude: coordinate.latitude, longitude: coordinate.longitude, altitudeMeters: elevation,
                    time: time, horizontalAccuracyMeters: horizontalAccuracyMeters, speedMetersPerSecond: speedMetersPerSecond,
                    courseDegrees: course
                ))
            sequence += 1
            elapsed += intervalSeconds
        }
        // Distance still to travel before the next fix, carried from leg to leg.
        var untilNext = 0.0
        var course = 0.0
        for (from, to) in zip(route, route.dropFirst()) {
            let legMeters = from.coordinate.distanceMeters(to: to.coordinate)
            guard legMeters > 0 else { continue }
            course = from.coordinate.initialBearingDegrees(to: to.coordinate)
            var along = untilNext
            while along < legMeters {
                let coordinate = along == 0 ? from.coordinate : Self.point(from: from.coordinate, to: to.coordinate, meters: along)
                emit(coordinate, elevation: Self.elevation(from: from, to: to, fraction: along / legMeters), course: course)
                along += step
            }
            untilNext = along - legMeters
        }
        // The end of the route, reached part of an interval after the last fix.
        let last = route[route.count - 1]
        if fixes.isEmpty {
            emit(first.coordinate, elevation: first.elevation, course: course)
        } else if untilNext < step {
            elapsed -= untilNext / speedMetersPerSecond
            emit(last.coordinate, elevation: last.elevation, course: course)
        }
        return fixes
    }

    /// The point `meters` along the geodesic from `a` towards `b`.
    static func point(from a: Coordinate, to b: Coordinate, meters: Double) -> Coordinate {
        let inverse = Vincenty.inverse(from: a, to: b)
        return a.destination(distanceMeters: meters, bearingDegrees: inverse.initialBearingDegrees)
    }

    static func elevation(from a: TrackPoint, to b: TrackPoint, fraction: Double) -> Double? {
        guard let e0 = a.elevation, let e1 = b.elevation else { return a.elevation ?? b.elevation }
        return e0 + (e1 - e0) * fraction
    }
}

extension RideSimulator {
    /// A loop of about 6.3 km on the streets around Cupertino, California, like a phone simulator's "City
    /// Bicycle Ride": along Stevens Creek Boulevard, up Wolfe Road, back along Homestead Road and down
    /// De Anza Boulevard, with the rolling elevations of the valley floor. Starts and ends at De Anza and
    /// Stevens Creek.
    public static let cupertinoLoop: [TrackPoint] = [
        (37.32318, -122.03220, 72.0), (37.32330, -122.02720, 71.0), (37.32345, -122.02180, 69.0),
        (37.32360, -122.01480, 66.0), (37.32770, -122.01470, 63.0), (37.33180, -122.01460, 60.0),
        (37.33650, -122.01450, 57.0), (37.33680, -122.02000, 58.0), (37.33700, -122.02600, 61.0),
        (37.33710, -122.03230, 64.0), (37.33320, -122.03230, 67.0), (37.32850, -122.03225, 70.0),
        (37.32318, -122.03220, 72.0),
    ].map { TrackPoint(latitude: $0.0, longitude: $0.1, elevation: $0.2) }
}
