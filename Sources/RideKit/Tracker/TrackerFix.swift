import Foundation

/// One position a phone app posted (OwnTracks, Overland, Traccar Client / OsmAnd, GPSLogger), checked: a
/// `TrackerFix` that exists is finite and in range, with a time in the plausible window.
public struct TrackerFix: Sendable, Hashable {
    /// When the position was taken, to the millisecond.
    public var time: Date
    public var latitude: Double
    public var longitude: Double
    public var elevationMeters: Double?
    public var speedMetersPerSecond: Double?
    public var courseDegrees: Double?
    public var accuracyMeters: Double?
    /// 0–100.
    public var batteryPercent: Double?

    public init(
        time: Date, latitude: Double, longitude: Double, elevationMeters: Double? = nil, speedMetersPerSecond: Double? = nil,
        courseDegrees: Double? = nil, accuracyMeters: Double? = nil, batteryPercent: Double? = nil
    ) {
        self.time = Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded() / 1000)
        self.latitude = latitude
        self.longitude = longitude
        self.elevationMeters = elevationMeters
        self.speedMetersPerSecond = speedMetersPerSecond
        self.courseDegrees = courseDegrees
        self.accuracyMeters = accuracyMeters
        self.batteryPercent = batteryPercent
    }

    /// The time as milliseconds since 1970 (how the store keys a device's fixes).
    public var milliseconds: Int64 { Int64((time.timeIntervalSince1970 * 1000).rounded()) }

    /// The earliest time taken: 2000-01-01. Earlier is a clock that was never set (1970) or a unit mistake.
    public static let earliestTime = Date(timeIntervalSince1970: 946_684_800)
    /// How far ahead of the server's clock a fix may be: a phone's clock a little fast, not a year.
    public static let allowedFutureSeconds: TimeInterval = 24 * 3600

    /// Checks every value: coordinates finite and in range, optional values finite and plausible (a value
    /// that is not is dropped, not the fix), the time in the window. Throws the reason a fix is refused.
    public static func checked(
        time: Date?, latitude: Double?, longitude: Double?, elevationMeters: Double? = nil, speedMetersPerSecond: Double? = nil,
        courseDegrees: Double? = nil, accuracyMeters: Double? = nil, batteryPercent: Double? = nil, now: Date
    ) throws(TrackerPayloadError) -> TrackerFix {
        guard let latitude else { throw .missing("latitude") }
        guard let longitude else { throw .missing("longitude") }
        guard latitude.isFinite, (-90...90).contains(latitude) else { throw .outOfRange(field: "latitude", value: "\(latitude)") }
        guard longitude.isFinite, (-180...180).contains(longitude) else { throw .outOfRange(field: "longitude", value: "\(longitude)") }
        guard let time else { throw .missing("time") }
        guard time.timeIntervalSince1970.isFinite, time >= earliestTime else { throw .outOfRange(field: "time", value: "\(time.timeIntervalSince1970)") }
        guard time.timeIntervalSince(now) <= allowedFutureSeconds else { throw .outOfRange(field: "time", value: "\(time.timeIntervalSince1970) (in the future)") }
        func within(_ value: Double?, _ range: ClosedRange<Double>) -> Double? {
            guard let value, value.isFinite, range.contains(value) else { return nil }
            return value
        }
        return TrackerFix(
            time: time, latitude: latitude, longitude: longitude,
            // Dead Sea shore to airliner altitude: anything else is a sensor's error value.
            elevationMeters: within(elevationMeters, -500...20_000),
            // Negative means unknown in several apps; 300 m/s (1,080 km/h) is beyond any phone's carrier.
            speedMetersPerSecond: within(speedMetersPerSecond, 0...300),
            courseDegrees: within(courseDegrees, 0...360),
            accuracyMeters: within(accuracyMeters, 0...100_000),
            batteryPercent: within(batteryPercent, 0...100))
    }
}

/// What one post of a phone app held: the fixes to store, the ones refused with their reasons (logged and
/// counted, never stored), and how many messages were not positions (OwnTracks' `lwt`, `card` …).
public struct TrackerPayload: Sendable, Hashable {
    public var fixes: [TrackerFix] = []
    public var rejected: [TrackerRejection] = []
    /// Messages understood but not positions (`transition`, `waypoint`, `lwt`, Overland `visit` …), by type.
    public var ignoredTypes: [String] = []
    /// A device name the payload carries (OwnTracks `topic`/`tid`, Overland `device_id`), for the log.
    public var deviceHint: String?

    public init(fixes: [TrackerFix] = [], rejected: [TrackerRejection] = [], ignoredTypes: [String] = [], deviceHint: String? = nil) {
        self.fixes = fixes
        self.rejected = rejected
        self.ignoredTypes = ignoredTypes
        self.deviceHint = deviceHint
    }
}

/// A message of a post that was refused, with where it was and why.
public struct TrackerRejection: Sendable, Hashable, CustomStringConvertible {
    /// The message's index in the post (0 for a single message).
    public var index: Int
    public var reason: TrackerPayloadError

    public init(index: Int, reason: TrackerPayloadError) {
        self.index = index
        self.reason = reason
    }

    public var description: String { "message \(index): \(reason)" }
}

/// Why a post or one of its messages is refused.
public enum TrackerPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not the app's format at all (not JSON, wrong top-level shape, too deep, too big).
    case malformed(String)
    case missing(String)
    case wrongType(field: String, expected: String)
    case outOfRange(field: String, value: String)
    /// An OwnTracks payload encrypted with a key this server does not have.
    case encrypted

    public var description: String {
        switch self {
        case .malformed(let reason): return "not a valid payload: \(reason)"
        case .missing(let field): return "\(field) is missing"
        case .wrongType(let field, let expected): return "\(field) should be \(expected)"
        case .outOfRange(let field, let value): return "\(field) \(value.prefix(64)) is out of range"
        case .encrypted: return "the payload is encrypted and no key is configured"
        }
    }

    /// A short key for counting refusals by kind (metrics, logs).
    public var code: String {
        switch self {
        case .malformed: return "malformed"
        case .missing: return "missing"
        case .wrongType: return "wrong_type"
        case .outOfRange: return "out_of_range"
        case .encrypted: return "encrypted"
        }
    }
}
