/// Cuts the distance into splits of a fixed length as it accrues, interpolating the time and elevation at
/// each boundary within the step that crosses it.
struct SplitTracker {
    let lengthMeters: Double
    private(set) var splits: [Split] = []
    private var startClock = 0.0
    private var startElevation: Double?

    init(lengthMeters: Double) {
        self.lengthMeters = lengthMeters
    }

    /// A step of `stepMeters` from cumulative distance `fromMeters`, during which the recorded clock went
    /// from `clock0` to `clock1` and the elevation from `elevation0` to `elevation1`.
    mutating func advance(
        fromMeters: Double, stepMeters: Double, clock0: Double, clock1: Double, elevation0: Double?, elevation1: Double?
    ) {
        if startElevation == nil { startElevation = elevation0 ?? elevation1 }
        guard stepMeters > 0 else { return }
        var boundary = Double(splits.count + 1) * lengthMeters
        while fromMeters + stepMeters >= boundary {
            let fraction = (boundary - fromMeters) / stepMeters
            let clock = clock0 + fraction * (clock1 - clock0)
            var elevation = elevation1 ?? elevation0
            if let e0 = elevation0, let e1 = elevation1 { elevation = e0 + fraction * (e1 - e0) }
            append(length: lengthMeters, clock: clock, elevation: elevation, partial: false)
            boundary += lengthMeters
        }
    }

    /// The splits with the partial last one (when at least a metre is left), durations dropped when the
    /// track has no times.
    func finished(totalMeters: Double, clock: Double, elevation: Double?, hasTime: Bool) -> [Split] {
        var copy = self
        let rest = totalMeters - Double(splits.count) * lengthMeters
        if rest >= 1 { copy.append(length: rest, clock: clock, elevation: elevation, partial: true) }
        guard !hasTime else { return copy.splits }
        return copy.splits.map { split in
            var split = split
            split.durationSeconds = nil
            return split
        }
    }

    private mutating func append(length: Double, clock: Double, elevation: Double?, partial: Bool) {
        var change: Double?
        if let start = startElevation, let end = elevation { change = end - start }
        splits.append(
            Split(index: splits.count, distanceMeters: length, durationSeconds: clock - startClock, elevationChangeMeters: change, isPartial: partial)
        )
        startClock = clock
        if let elevation { startElevation = elevation }
    }
}
