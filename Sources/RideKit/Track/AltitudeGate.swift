/// Drops altitudes that no rider can reach from the last believable one: a logger whose altitude dives to
/// −672 m for a few fixes, or a first fix hundreds of metres off, must not become climb, profile or splits.
///
///     var gate = AltitudeGate()
///     gate.judge(elevation: 500, time: 0, point: a)     // .accept
///     gate.judge(elevation: -672, time: 1, point: b)    // .reject: 1,172 m in a second
///
/// A jump is judged against the last accepted altitude: over time when both fixes have one (no rider climbs
/// or descends faster than `maxVerticalSpeedMetersPerSecond`), by distance when times are missing (no road
/// is steeper than `maxGrade`), plus `slackMeters` of scatter either way. A rejected fix keeps its position
/// and loses its altitude. When `runToAdopt` rejected fixes in a row agree with each other, the altitude has
/// moved for good (a sensor recalibrated, or the first fixes were the wrong ones): that level is adopted as a
/// new start, and the jump itself is no climb (`.newLevel`).
struct AltitudeGate {
    /// 10 m/s: twice a descent at 70 km/h on a 25 % road, the speed of a fast cable car; over any real ride's.
    static let maxVerticalSpeedMetersPerSecond = 10.0
    /// Without times: one metre up or down per metre along (45°), over any road or path.
    static let maxGrade = 1.0
    /// Scatter of GPS altitude between two fixes taken moments apart.
    static let slackMeters = 30.0
    /// Rejected fixes in a row, agreeing with each other, that make a new level: more than the few fixes of a
    /// glitch, fewer than a minute of riding.
    static let runToAdopt = 8

    enum Verdict: Equatable {
        case accept
        case reject
        /// Accepted as the start of a new level: the climb so far ends here, the jump is not counted.
        case newLevel
    }

    private struct Fix {
        var elevation: Double
        var time: Double?
        var point: StatsPoint
    }

    private var last: Fix?
    private var runLast: Fix?
    private var runLength = 0
    /// Fixes whose altitude was dropped.
    private(set) var rejectedCount = 0

    mutating func judge(elevation: Double, time: Double?, point: StatsPoint) -> Verdict {
        let fix = Fix(elevation: elevation, time: time, point: point)
        guard let last else {
            self.last = fix
            return .accept
        }
        if Self.plausible(from: last, to: fix) {
            self.last = fix
            runLast = nil
            runLength = 0
            return .accept
        }
        if let runLast, Self.plausible(from: runLast, to: fix) {
            runLength += 1
        } else {
            runLength = 1
        }
        runLast = fix
        if runLength >= Self.runToAdopt {
            self.last = fix
            runLast = nil
            runLength = 0
            return .newLevel
        }
        rejectedCount += 1
        return .reject
    }

    private static func plausible(from a: Fix, to b: Fix) -> Bool {
        let allowed: Double
        if let t0 = a.time, let t1 = b.time {
            allowed = maxVerticalSpeedMetersPerSecond * max(0, t1 - t0)
        } else {
            allowed = maxGrade * a.point.distanceMeters(to: b.point)
        }
        return abs(b.elevation - a.elevation) <= allowed + slackMeters
    }
}
