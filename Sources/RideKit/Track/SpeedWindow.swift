/// The fastest speed held over `seconds` of recorded time, from the positions at each step.
///
/// - A window of 10 s rather than one fix-to-fix interval: the distance between two fixes a second apart
///   carries the scatter of both, so the fastest single interval of an hour's ride is mostly noise; over
///   10 s the same scatter is a tenth of the speed.
/// - The length of four chords through the window, from its start through the steps a quarter, half and
///   three quarters of the way along to its end: a bend reads nearly as long as it is (a 250 m velodrome at
///   40 km/h, 111 m of its 40 m radius in 10 s, reads 1.8 % slow; one chord would read 30 % slow), while a
///   bad fix, which is one of these five points in only one window of every two or three successive ones,
///   cannot last through the median below (the full path of every step would carry a bad fix's detour
///   through ten successive windows).
/// - A speed must last: the maximum of the median of five successive windows, or of three in a segment
///   with only three or four windows (fixes minutes apart), or the best single window in a segment with one
///   or two, used only when no segment has three (`RobustMaximum`).
/// - Windows faster than the activity's plausible speed are data errors, not speed: a receiver that
///   reacquires after a tunnel may put the next fix kilometres on within seconds. The price: a car drive
///   recorded as a ride (cap 40 m/s, 144 km/h) loses every motorway window, and its maximum is the fastest
///   stretch under the cap — `first_and_last_elevation.gpx`, 196 km/h between fixes 7 minutes apart, reads
///   6.3 m/s, from its one slow leg — while distance and average speed keep the whole drive, so the average
///   can exceed the maximum. Such a file needs an activity with a higher cap.
/// With ±3 m independent scatter at 1 Hz the maximum of a steady 5 m/s ride comes out about 5 % high
/// (40 % fix to fix). Memory: a ring of `capacity` steps (64 steps of at least 5 m cover 10 s up to
/// 32 m/s; faster than that, the window is the last 64 steps, still over 320 m).
struct SpeedWindow {
    static let seconds = 10.0
    /// A window's four chords are at most π/2 times its straight line (a half circle): a velodrome at 40 km/h
    /// puts 1.42 in 10 s.
    static let maximumPolylinePerChord = Double.pi / 2
    private static let capacity = 64

    private var points: [StatsPoint]
    private var clocks: [Double]
    private var count = 0
    private var next = 0
    /// Steps back from the newest to the start of the last window (0 before any).
    private var windowBack = 0
    /// Speeds over full windows.
    private var fullWindows = RobustMaximum()
    /// Best speed over whatever history there was, for tracks too short for a full window.
    private(set) var shortWindowMax = 0.0

    /// Window speeds above this are ignored.
    let plausibleSpeedMetersPerSecond: Double

    init(plausibleSpeedMetersPerSecond: Double) {
        self.plausibleSpeedMetersPerSecond = plausibleSpeedMetersPerSecond
        points = Array(repeating: StatsPoint(latitude: 0, longitude: 0, elevationMeters: nil, time: nil), count: Self.capacity)
        clocks = Array(repeating: 0, count: Self.capacity)
    }

    var maxSpeedMetersPerSecond: Double {
        let full = fullWindows.value
        return full > 0 ? full : shortWindowMax
    }

    /// Forgets the history (a new segment: no window spans a pause).
    mutating func reset() {
        count = 0
        next = 0
        windowBack = 0
        fullWindows.endSegment()
    }

    private mutating func addFullWindow(_ speed: Double) {
        guard speed <= plausibleSpeedMetersPerSecond else { return }
        fullWindows.add(speed)
    }

    /// The polyline from the point `back` steps back through those ¼, ½ and ¾ of the way to `point`.
    @inline(__always)
    private func fourChords(to point: StatsPoint, back: Int) -> Double {
        func stored(_ stepsBack: Int) -> StatsPoint { points[(next - stepsBack + Self.capacity) % Self.capacity] }
        let start = stored(back)
        let chord = point.distanceMeters(to: start)
        guard back >= 4 else { return chord }
        let quarter = stored((3 * back + 2) / 4), half = stored((back + 1) / 2), threeQuarters = stored((back + 2) / 4)
        let polyline = start.distanceMeters(to: quarter) + quarter.distanceMeters(to: half) + half.distanceMeters(to: threeQuarters)
            + threeQuarters.distanceMeters(to: point)
        // At most a half circle over its diameter: what a burst of bad fixes can add is bounded.
        return min(polyline, Self.maximumPolylinePerChord * chord)
    }

    /// Records the position reached at a recorded-clock reading (readings never decrease within a segment).
    mutating func add(_ point: StatsPoint, clock: Double) {
        if count > 0 {
            // The window starts at the newest step at least `seconds` old. Ages grow with the steps back and the
            // clock only runs forward, so the search starts where the last one ended: constant work a step.
            func age(_ back: Int) -> Double { clock - clocks[(next - back + Self.capacity) % Self.capacity] }
            var back = min(windowBack + 1, count)
            if age(back) >= Self.seconds {
                while back > 1 && age(back - 1) >= Self.seconds { back -= 1 }
            } else {
                while back < count && age(back) < Self.seconds { back += 1 }
            }
            windowBack = back
            let windowAge = age(back)
            if windowAge >= Self.seconds {
                addFullWindow(fourChords(to: point, back: back) / windowAge)
            } else if windowAge > 0 {
                let speed = fourChords(to: point, back: count) / windowAge
                if count == Self.capacity {
                    addFullWindow(speed)
                } else if speed <= plausibleSpeedMetersPerSecond {
                    shortWindowMax = max(shortWindowMax, speed)
                }
            }
        }
        points[next] = point
        clocks[next] = clock
        next = (next + 1) % Self.capacity
        count = min(count + 1, Self.capacity)
    }
}
