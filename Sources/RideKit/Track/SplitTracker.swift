/// Cuts the distance into splits of a fixed length as it accrues, interpolating the time and elevation at
/// each boundary within the step that crosses it.
///
/// Each split's climb is the growth of the track's climb count over it, kept for both kinds of altitude
/// (`AltitudeKind`) until the end says which one the track has: its splits' climbs then add up to its climb.
struct SplitTracker {
    /// The climb counted so far by each kind's count.
    struct Climb {
        var gps = 0.0
        var barometric = 0.0

        func of(_ kind: AltitudeKind) -> Double { kind == .barometric ? barometric : gps }
    }

    let lengthMeters: Double
    private(set) var splits: [Split] = []
    private var climbs: [(gps: Double, barometric: Double)] = []
    private var startClock = 0.0
    private var startElevation: Double?
    private var startClimb = Climb()

    init(lengthMeters: Double) {
        self.lengthMeters = lengthMeters
    }

    /// A step of `stepMeters` from cumulative distance `fromMeters`, during which the recorded clock went
    /// from `clock0` to `clock1` and the elevation from `elevation0` to `elevation1`; `climb` is the climb
    /// counted by the step's end.
    mutating func advance(
        fromMeters: Double, stepMeters: Double, clock0: Double, clock1: Double, elevation0: Double?, elevation1: Double?,
        climb: Climb = Climb()
    ) {
        if startElevation == nil { startElevation = elevation0 ?? elevation1 }
        guard stepMeters > 0 else { return }
        var boundary = Double(splits.count + 1) * lengthMeters
        while fromMeters + stepMeters >= boundary {
            let fraction = (boundary - fromMeters) / stepMeters
            let clock = clock0 + fraction * (clock1 - clock0)
            var elevation = elevation1 ?? elevation0
            if let e0 = elevation0, let e1 = elevation1 { elevation = e0 + fraction * (e1 - e0) }
            append(length: lengthMeters, clock: clock, elevation: elevation, climb: climb, partial: false)
            boundary += lengthMeters
        }
    }

    /// The splits with the partial last one (when at least a metre is left), durations dropped when the
    /// track has no times, climbs by `altitude`'s count (none when the track has no elevations).
    func finished(
        totalMeters: Double, clock: Double, elevation: Double?, climb: Climb = Climb(), hasTime: Bool,
        altitude: AltitudeKind = .gps, hasElevation: Bool = false
    ) -> [Split] {
        var copy = self
        let rest = totalMeters - Double(splits.count) * lengthMeters
        if rest >= 1 { copy.append(length: rest, clock: clock, elevation: elevation, climb: climb, partial: true) }
        return zip(copy.splits, copy.climbs).map { split, climbs in
            var split = split
            if !hasTime { split.durationSeconds = nil }
            split.climbMeters = hasElevation ? max(0, altitude == .barometric ? climbs.barometric : climbs.gps) : nil
            return split
        }
    }

    private mutating func append(length: Double, clock: Double, elevation: Double?, climb: Climb, partial: Bool) {
        var change: Double?
        if let start = startElevation, let end = elevation { change = end - start }
        splits.append(
            Split(index: splits.count, distanceMeters: length, durationSeconds: clock - startClock, elevationChangeMeters: change, isPartial: partial)
        )
        climbs.append((climb.gps - startClimb.gps, climb.barometric - startClimb.barometric))
        startClimb = climb
        startClock = clock
        if let elevation { startElevation = elevation }
    }
}
