/// One kind of best effort a track can hold: the fastest time over a distance, a total (longest distance, most
/// climb, longest moving time, top speed), or the best mean power or heart rate over a time window.
///
/// The raw value is the key stored with the track and named in the API (`"5km"`, `"power-20min"`).
public enum EffortKey: String, CaseIterable, Sendable, Codable, Hashable {
    case fastest400m = "400m"
    case fastest1km = "1km"
    case fastest1mi = "1mi"
    case fastest5km = "5km"
    case fastest10km = "10km"
    case fastest20km = "20km"
    case fastest40km = "40km"
    case fastest50km = "50km"
    case fastest100km = "100km"
    case fastestHalfMarathon = "half-marathon"
    case fastestMarathon = "marathon"
    case longestDistance = "longest-distance"
    case mostClimb = "most-climb"
    case longestMovingTime = "longest-moving-time"
    case topSpeed = "top-speed"
    case power5s = "power-5s"
    case power1min = "power-1min"
    case power5min = "power-5min"
    case power20min = "power-20min"
    case power60min = "power-60min"
    case heartRate5s = "heart-rate-5s"
    case heartRate1min = "heart-rate-1min"
    case heartRate5min = "heart-rate-5min"
    case heartRate20min = "heart-rate-20min"
    case heartRate60min = "heart-rate-60min"

    /// What a value of this key measures, and so its unit.
    public enum Measure: String, Sendable, Codable {
        /// Seconds of moving time over `distanceMeters` (lower is better).
        case time
        /// Metres.
        case distance
        /// Metres climbed.
        case climb
        /// Seconds of moving time.
        case duration
        /// Metres per second.
        case speed
        /// Watts, mean over `windowSeconds`.
        case power
        /// Beats per minute, mean over `windowSeconds`.
        case heartRate
    }

    public var measure: Measure {
        switch self {
        case .longestDistance: return .distance
        case .mostClimb: return .climb
        case .longestMovingTime: return .duration
        case .topSpeed: return .speed
        case .power5s, .power1min, .power5min, .power20min, .power60min: return .power
        case .heartRate5s, .heartRate1min, .heartRate5min, .heartRate20min, .heartRate60min: return .heartRate
        default: return .time
        }
    }

    /// The distance a fastest-time effort covers, metres; nil for the others.
    public var distanceMeters: Double? {
        switch self {
        case .fastest400m: return 400
        case .fastest1km: return 1000
        case .fastest1mi: return 1609.344
        case .fastest5km: return 5000
        case .fastest10km: return 10_000
        case .fastest20km: return 20_000
        case .fastest40km: return 40_000
        case .fastest50km: return 50_000
        case .fastest100km: return 100_000
        // The half marathon and the marathon as World Athletics measures them.
        case .fastestHalfMarathon: return 21_097.5
        case .fastestMarathon: return 42_195
        default: return nil
        }
    }

    /// The window of a power or heart-rate effort, seconds; nil for the others.
    public var windowSeconds: Double? {
        switch self {
        case .power5s, .heartRate5s: return 5
        case .power1min, .heartRate1min: return 60
        case .power5min, .heartRate5min: return 300
        case .power20min, .heartRate20min: return 1200
        case .power60min, .heartRate60min: return 3600
        default: return nil
        }
    }

    /// A fastest time is better when lower; every other value when higher.
    public var lowerIsBetter: Bool { measure == .time }

    /// Whether `value` beats `other` for this key.
    public func isBetter(_ value: Double, than other: Double) -> Bool { lowerIsBetter ? value < other : value > other }

    /// The distances whose fastest times an activity keeps: the runner's distances for a run, the cyclist's
    /// for a ride and a walk.
    public static func fastestDistances(for activity: ActivityKind) -> [EffortKey] {
        switch activity {
        case .run: return [.fastest400m, .fastest1km, .fastest1mi, .fastest5km, .fastest10km, .fastestHalfMarathon, .fastestMarathon]
        case .ride, .walk: return [.fastest1km, .fastest5km, .fastest10km, .fastest20km, .fastest40km, .fastest50km, .fastest100km]
        }
    }

    static let powerKeys: [EffortKey] = [.power5s, .power1min, .power5min, .power20min, .power60min]
    static let heartRateKeys: [EffortKey] = [.heartRate5s, .heartRate1min, .heartRate5min, .heartRate20min, .heartRate60min]
}
