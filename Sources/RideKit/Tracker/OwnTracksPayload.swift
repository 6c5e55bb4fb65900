import Foundation

/// OwnTracks in HTTP mode: the app POSTs the JSON it would publish over MQTT — one message object, or an
/// array of them — and takes any 2xx as delivered.
///
/// - `_type: "location"` becomes a fix: `lat`, `lon` (degrees), `tst` (epoch seconds), `alt` (m), `vel`
///   (km/h), `cog` (degrees), `acc` (m), `batt` (%). A string where a number belongs refuses the message.
/// - Other types (`transition`, `waypoint(s)`, `lwt`, `card`, `cmd`, `status`, `steps`, `beacon` …) are
///   understood and not stored.
/// - `_type: "encrypted"` (the app's "encryption key" setting): `data` is base64 of a 24-byte nonce and a
///   libsodium secretbox (`SecretBox`) of the message(s) above, under the key made from the same secret. With
///   `secret`, it is opened and read as if it had been sent plain (nested encryption is refused); without
///   it, or with another key, the message is refused with the reason.
/// - A zero-length body is nothing (the app sends one when a friend is deleted).
/// - Overland in OwnTracks mode counts `tst` from 2001-01-01 (`timeIntervalSinceReferenceDate`): a `tst` that
///   is before 2000 as a 1970 count but within a day of now as a 2001 count is read as the latter.
public enum OwnTracksPayload {
    /// Seconds between 1970-01-01 and 2001-01-01.
    static let referenceDateOffset: Double = 978_307_200

    public static func parse(_ data: Data, secret: String? = nil, now: Date = Date()) throws(TrackerPayloadError) -> TrackerPayload {
        try parse(data, key: secret.map(SecretBox.key(fromSecret:)), now: now)
    }

    static func parse(_ data: Data, key: [UInt8]?, now: Date) throws(TrackerPayloadError) -> TrackerPayload {
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
                guard let key else {
                    payload.rejected.append(TrackerRejection(index: index, reason: .encrypted))
                    continue
                }
                guard let opened = open(object, key: key) else {
                    payload.rejected.append(TrackerRejection(index: index, reason: .undecryptable))
                    continue
                }
                // What was inside, read without the key: an encrypted message inside is refused, not opened again.
                let inner: TrackerPayload
                do {
                    inner = try parse(opened, key: nil, now: now)
                } catch {
                    payload.rejected.append(TrackerRejection(index: index, reason: error))
                    continue
                }
                payload.fixes += inner.fixes
                payload.ignoredTypes += inner.ignoredTypes
                payload.rejected += inner.rejected.map { TrackerRejection(index: index, reason: $0.reason) }
                if payload.deviceHint == nil { payload.deviceHint = inner.deviceHint }
            default:
                payload.ignoredTypes.append(String(type.prefix(32)))
            }
        }
        return payload
    }

    /// The plain text of an `encrypted` message: nil when `data` is not base64 of a nonce and a box that
    /// opens with `key`.
    static func open(_ object: [String: JSONValue], key: [UInt8]) -> Data? {
        guard case .string(let text)? = object["data"], text.utf8.count <= TrackerJSON.maximumBytes,
              let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
              bytes.count >= SecretBox.nonceByteCount + SecretBox.tagByteCount
        else { return nil }
        let all = [UInt8](bytes)
        return SecretBox.open(Array(all[SecretBox.nonceByteCount...]), nonce: Array(all[..<SecretBox.nonceByteCount]), key: key).map { Data($0) }
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
