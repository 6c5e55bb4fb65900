/// Counts climbs and descents from turning point to turning point, ignoring any reversal smaller than
/// `thresholdMeters`.
///
/// A leg counts only once the elevation has turned back from its extreme by the threshold, and then it
/// counts in full, from the previous turning point to the extreme: a 40 m hill gives 40 m, not 35 m, while
/// wiggles under 5 m give nothing. Fed with smoothed GPS elevations (`PositionSmoother`), or with barometric
/// ones as recorded, with a 1 m threshold (`AltitudeKind`).
struct ElevationHysteresis {
    /// 5 m: over what smoothing leaves of GPS altitude noise (±2 m scatter shrinks below 1 m; slow drift of
    /// a few metres remains), under any rise a rider would call a climb.
    static let gpsThresholdMeters = 5.0
    /// 1 m: ten times the scatter of a barometric altimeter, under the rollers a bike computer counts.
    static let barometricThresholdMeters = 1.0

    let thresholdMeters: Double

    private(set) var ascentMeters = 0.0
    private(set) var descentMeters = 0.0
    private var started = false
    /// +1 climbing, −1 descending, 0 not yet known.
    private var direction = 0
    private var turn = 0.0
    private var extreme = 0.0
    private var low = 0.0
    private var high = 0.0

    init(thresholdMeters: Double = Self.gpsThresholdMeters) {
        self.thresholdMeters = thresholdMeters
    }

    /// Climb so far, the leg still rising included: never decreases, so the climb of a stretch is the
    /// difference of this at its ends.
    var climbSoFarMeters: Double { ascentMeters + (direction == 1 ? extreme - turn : 0) }

    mutating func add(_ elevation: Double) {
        let threshold = thresholdMeters
        guard started else {
            started = true
            low = elevation
            high = elevation
            return
        }
        switch direction {
        case 1:
            if elevation > extreme {
                extreme = elevation
            } else if extreme - elevation >= threshold {
                ascentMeters += extreme - turn
                turn = extreme
                extreme = elevation
                direction = -1
            }
        case -1:
            if elevation < extreme {
                extreme = elevation
            } else if elevation - extreme >= threshold {
                descentMeters += turn - extreme
                turn = extreme
                extreme = elevation
                direction = 1
            }
        default:
            low = min(low, elevation)
            high = max(high, elevation)
            if elevation - low >= threshold {
                direction = 1
                turn = low
                extreme = elevation
            } else if high - elevation >= threshold {
                direction = -1
                turn = high
                extreme = elevation
            }
        }
    }

    /// Counts the leg in progress (it is at least the threshold long) and starts afresh: climbs are not
    /// carried across a pause.
    mutating func endSegment() {
        if direction == 1 { ascentMeters += extreme - turn }
        if direction == -1 { descentMeters += turn - extreme }
        started = false
        direction = 0
    }
}
