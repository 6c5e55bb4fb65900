extension TrackStats {
    /// The figures of a file from those of its tracks, each measured on its own: distance, climb, descent,
    /// times and counts are sums (so a file's figures are exactly the sum of its tracks' — the same additions
    /// in the same order); the maximum speed, elevation range and bounds are the widest; start is the first
    /// track's, end the last's; splits are each track's in turn. The time between tracks is not counted (two
    /// tracks of one file are often days apart).
    ///
    ///     let file = tracks.map { $0.stats() }.reduce(TrackStats()) { $0.adding($1) }
    public func adding(_ next: TrackStats) -> TrackStats {
        var total = self
        total.pointCount += next.pointCount
        total.segmentCount += next.segmentCount
        total.ignoredOutlierCount += next.ignoredOutlierCount
        total.ignoredAltitudeCount += next.ignoredAltitudeCount
        total.altitudeKind = altitudeKind ?? next.altitudeKind
        total.altitudeNoiseMeters = altitudeNoiseMeters ?? next.altitudeNoiseMeters
        total.distanceMeters += next.distanceMeters
        total.ascentMeters += next.ascentMeters
        total.descentMeters += next.descentMeters
        total.elapsedSeconds += next.elapsedSeconds
        total.movingSeconds += next.movingSeconds
        total.movingDistanceMeters += next.movingDistanceMeters
        total.stoppedSeconds += next.stoppedSeconds
        total.pausedSeconds += next.pausedSeconds
        total.maxSpeedMetersPerSecond = max(maxSpeedMetersPerSecond, next.maxSpeedMetersPerSecond)
        total.minElevationMeters = Self.extreme(minElevationMeters, next.minElevationMeters, min)
        total.maxElevationMeters = Self.extreme(maxElevationMeters, next.maxElevationMeters, max)
        total.startTime = startTime ?? next.startTime
        total.endTime = next.endTime ?? endTime
        total.start = start ?? next.start
        total.end = next.end ?? end
        if let other = next.bounds {
            total.bounds = bounds.map {
                GPXBounds(
                    minLatitude: min($0.minLatitude, other.minLatitude), minLongitude: min($0.minLongitude, other.minLongitude),
                    maxLatitude: max($0.maxLatitude, other.maxLatitude), maxLongitude: max($0.maxLongitude, other.maxLongitude))
            } ?? other
        }
        total.kilometerSplits = Self.concatenated(kilometerSplits, next.kilometerSplits)
        total.mileSplits = Self.concatenated(mileSplits, next.mileSplits)
        // A file's best efforts are the best of its tracks' (an effort never spans two tracks).
        if let other = next.efforts { total.efforts = efforts.map { $0.merged(with: other) } ?? other }
        return total
    }

    private static func extreme(_ a: Double?, _ b: Double?, _ pick: (Double, Double) -> Double) -> Double? {
        guard let a else { return b }
        guard let b else { return a }
        return pick(a, b)
    }

    private static func concatenated(_ first: [Split], _ second: [Split]) -> [Split] {
        first + second.map { split in
            var split = split
            split.index += first.count
            return split
        }
    }
}
