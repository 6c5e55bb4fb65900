/// The fastest speed held over `seconds` of recorded time, from the positions at each step.
///
/// - A window of 10 s rather than one fix-to-fix interval: the distance between two fixes a second apart
///   carries the scatter of both, so the fastest single interval of an hour's ride is mostly noise; over
///   10 s the same scatter is a tenth of the speed.
/// - The straight-line distance between the window's ends, not the path: a burst of bad fixes that jumps
///   hundreds of metres away and back (real files have them, several in a row, with repeated times)
///   lengthens the path but not the chord. A bend of 100 m radius taken at 10 m/s reads 4 % slow; straights,
///   where top speeds happen, read true.
/// - The maximum of the median of five successive windows, so that a speed must last a few steps to count.
/// - Windows faster than the activity's plausible speed are data errors, not speed: a receiver that
///   reacquires after a tunnel may put the next fix kilometres on within seconds.
/// With ±3 m independent scatter at 1 Hz the maximum of a steady 5 m/s ride comes out about 5 % high
/// (40 % fix to fix). Memory: a ring of `capacity` steps (64 steps of at least 5 m cover 10 s up to
/// 32 m/s; faster than that, the window is the last 64 steps, still over 320 m).
struct SpeedWindow {
    static let seconds = 10.0
    private static let capacity = 64

    private var points: [StatsPoint]
    private var clocks: [Double]
    private var count = 0
    private var next = 0
    /// The last few full-window speeds, whose median is the candidate for the maximum.
    private var recent = (0.0, 0.0, 0.0, 0.0, 0.0)
    private var recentCount = 0
    /// Best speed over a full window.
    private(set) var fullWindowMax = 0.0
    /// Best speed over whatever history there was, for tracks too short for a full window.
    private(set) var shortWindowMax = 0.0

    /// Window speeds above this are ignored.
    let plausibleSpeedMetersPerSecond: Double

    init(plausibleSpeedMetersPerSecond: Double) {
        self.plausibleSpeedMetersPerSecond = plausibleSpeedMetersPerSecond
        points = Array(repeating: StatsPoint(latitude: 0, longitude: 0, elevationMeters: nil, time: nil), count: Self.capacity)
        clocks = Array(repeating: 0, count: Self.capacity)
    }

    var maxSpeedMetersPerSecond: Double { fullWindowMax > 0 ? fullWindowMax : shortWindowMax }

    /// Forgets the history (a new segment: no window spans a pause).
    mutating func reset() {
        count = 0
        next = 0
        recentCount = 0
    }

    /// Takes the median of the last five full-window speeds as a candidate: a speed that only one or two
    /// windows show is scatter, a real one lasts.
    private mutating func addFullWindow(_ speed: Double) {
        guard speed <= plausibleSpeedMetersPerSecond else { return }
        recent = (recent.1, recent.2, recent.3, recent.4, speed)
        recentCount = min(recentCount + 1, 5)
        guard recentCount == 5 else { return }
        var values = recent
        // Sort five values in place with a fixed network; the median is the middle one.
        func order(_ a: inout Double, _ b: inout Double) {
            if a > b { swap(&a, &b) }
        }
        order(&values.0, &values.1)
        order(&values.3, &values.4)
        order(&values.2, &values.4)
        order(&values.2, &values.3)
        order(&values.0, &values.3)
        order(&values.0, &values.2)
        order(&values.1, &values.4)
        order(&values.1, &values.3)
        order(&values.1, &values.2)
        fullWindowMax = max(fullWindowMax, values.2)
    }

    /// Records the position reached at a recorded-clock reading.
    mutating func add(_ point: StatsPoint, clock: Double) {
        if count > 0 {
            var found = false
            var oldest = 0
            for back in 1...count {
                let slot = (next - back + Self.capacity) % Self.capacity
                oldest = slot
                let age = clock - clocks[slot]
                if age >= Self.seconds {
                    addFullWindow(point.distanceMeters(to: points[slot]) / age)
                    found = true
                    break
                }
            }
            if !found {
                let age = clock - clocks[oldest]
                if age > 0 {
                    let speed = point.distanceMeters(to: points[oldest]) / age
                    if count == Self.capacity {
                        addFullWindow(speed)
                    } else if speed <= plausibleSpeedMetersPerSecond {
                        shortWindowMax = max(shortWindowMax, speed)
                    }
                }
            }
        }
        points[next] = point
        clocks[next] = clock
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }
}
