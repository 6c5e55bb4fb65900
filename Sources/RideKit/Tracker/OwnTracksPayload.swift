import Foundation

/// OwnTracks in HTTP mode: the app POSTs the JSON it would publish over MQTT — one message object, or an
/// array of them — and takes any 2xx as delivered.
///
/// - `_type: "location"` becomes a fix: `lat`, `lon` (degrees), `tst` (epoch seconds), `alt` (m), `vel`
///   (km/h), `cog` (degrees), `acc` (m), `batt` (%). A string where a number belongs refuses the message.
/// - Other types (`transition`, `waypoint(s)`, `lwt`, `card`, `cmd`, `status`, `steps`, `beacon` …) are
///   understood and not stored; `encrypted` is refused here (the server decrypts first when it has a key).
/// - A zero-length body is nothing (the app sends one when a friend is deleted).
/// - Overland in OwnTracks mode counts `tst` from 2001-01-01 (`timeIntervalSinceReferenceDate`): a `tst` that
///   is before 2000 as a 1970 count but within a day of now as a 2001 count is read as the latter.
public enum OwnTracksPayload {
    /// Seconds between 1970-01-01 and 2001-01-01.
    static let referenceDateOffset: Double = 978_307_200

    public static func parse(_ data: Data, now: Date = Date()) throws(TrackerPayloadError) -> TrackerPayload {
        var payload = TrackerPayload()
        guard !data.isEmpty, data.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return payload }
        let messages: [JSONValue]
        switch try TrackerJSON.decode(data) {
        case .array(let items): messages = items
        case let single: messages = [single]
        }
        for (index, message) in messages.enumerated() {
            guard let object = TrackerJSON.object(message) else {
                payload.rejected.append(TrackerRejection(index: index, reason: .wrongType(field: "message", expected: "an object")))
                continue
            }
            if payload.deviceHint == nil { payload.deviceHint = TrackerJSON.string(object, "topic") ?? TrackerJSON.string(object, "tid") }
            guard let type = TrackerJSON.string(object, "_type") else {
                payload.rejected.append(TrackerRejection(index: index, reason: .missing("_type")))
                continue
            }
            switch type {
            case "location":
                do {
                    payload.fixes.append(try location(object, now: now))
                } catch {
                    payload.rejected.append(TrackerRejection(index: index, reason: error))
                }
            case "encrypted":
                payload.rejected.append(TrackerRejection(index: index, reason: .encrypted))
            default:
                payload.ignoredTypes.append(String(type.prefix(32)))
            }
        }
        return payload
    }

    static func location(_ object: [String: JSONValue], now: Date) throws(TrackerPayloadError) -> TrackerFix {
        let latitude = try TrackerJSON.number(object, "lat", path: "")
        let longitude = try TrackerJSON.number(object, "lon", path: "")
        guard var seconds = try TrackerJSON.number(object, "tst", path: "") else { throw .missing("tst") }
        guard seconds.isFinite else { throw .outOfRange(field: "tst", value: "\(seconds)") }
        if seconds < TrackerFix.earliestTime.timeIntervalSince1970,
           abs(seconds + referenceDateOffset - now.timeIntervalSince1970) < TrackerFix.allowedFutureSeconds {
            seconds += referenceDateOffset
        }
        // 1e300 seconds is not a date; beyond year 9999 the window check refuses it anyway.
        guard abs(seconds) < 253_402_300_800 else { throw .outOfRange(field: "tst", value: "\(seconds)") }
        return try TrackerFix.checked(
            time: Date(timeIntervalSince1970: seconds), latitude: latitude, longitude: longitude,
            elevationMeters: TrackerJSON.lenientNumber(object, "alt"),
            speedMetersPerSecond: TrackerJSON.lenientNumber(object, "vel").map { $0 / 3.6 },  // km/h: OwnTracks' unit
            courseDegrees: TrackerJSON.lenientNumber(object, "cog"),
            accuracyMeters: TrackerJSON.lenientNumber(object, "acc"),
            batteryPercent: TrackerJSON.lenientNumber(object, "batt"), now: now)
    }
}
