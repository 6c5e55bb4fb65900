extension Track {
    /// Stats of this track's segments (see `TrackStatsAccumulator` for what each figure means).
    public func stats(activity: ActivityKind = .ride, measuringEfforts: Bool = false) -> TrackStats {
        var accumulator = TrackStatsAccumulator(activity: activity, measuringEfforts: measuringEfforts)
        accumulator.add(self)
        return accumulator.finish()
    }
}

extension Route {
    /// Length of the route, metres: the sum of `distanceMeters(to:)` between consecutive points, without the
    /// jitter filtering of tracks (a route's points are planned, not measured). Invalid points are skipped.
    public var distanceMeters: Double {
        var total = 0.0
        var previous: Coordinate?
        for point in points where point.coordinate.isValid {
            if let previous { total += previous.distanceMeters(to: point.coordinate) }
            previous = point.coordinate
        }
        return total
    }
}

extension GPXDocument {
    /// Stats of all tracks together, each segment its own; a file without tracks is measured on its routes
    /// instead, each route one segment.
    public func stats(activity: ActivityKind = .ride) -> TrackStats {
        var accumulator = TrackStatsAccumulator(activity: activity)
        if tracks.isEmpty {
            for route in routes {
                accumulator.beginSegment()
                for point in route.points { accumulator.add(point) }
            }
        } else {
            for track in tracks { accumulator.add(track) }
        }
        return accumulator.finish()
    }
}

extension TrackStatsAccumulator {
    /// Adds every segment of `track`, empty ones included.
    public mutating func add(_ track: Track) {
        beginTrack()
        for segment in track.segments {
            beginSegment()
            for point in segment.points { add(point) }
        }
    }
}
