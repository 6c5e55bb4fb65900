import Foundation

/// The OsmAnd protocol, as Traccar Client and OsmAnd's live tracking send it: one fix per request, in the
/// query string (GET or POST) or a form body, or — current Traccar Client apps — a JSON body.
///
/// Parameters: `id` (or `deviceid`) names the device (here: its token), `lat`, `lon` (or `location=LAT,LON`),
/// `timestamp` (epoch seconds below 2^31, else milliseconds; ISO 8601 when it has a `T`; else
/// `yyyy-MM-dd HH:mm:ss` in UTC; none: now), `speed` in **knots**, `bearing` (or `heading`), `altitude`,
/// `accuracy` (or `hacc`), `batt` (%).
///
/// The JSON form: `{"location": {timestamp, coords: {latitude, longitude, speed (m/s, −1 unknown), heading
/// (−1 unknown), altitude, accuracy}, battery: {level (0–1, −1 unknown)}}, "device_id": …}`; `location` may
/// also be an array of such objects.
public enum OsmAndPayload {
    /// Knots to metres per second (1 kn = 1,852 m / 3,600 s).
    static let metersPerSecondPerKnot = 1852.0 / 3600.0

    /// The device id the parameters carry (`id` or `deviceid`), as sent.
    public static func deviceID(_ parameters: FormParameters) -> String? {
        parameters["id"] ?? parameters["deviceid"]
    }

    /// One fix from query or form parameters.
    public static func parse(_ parameters: FormParameters, now: Date = Date()) -> TrackerPayload {
        var payload = TrackerPayload(deviceHint: deviceID(parameters).map { String($0.prefix(64)) })
        do {
            payload.fixes.append(try fix(parameters, now: now))
        } catch {
            payload.rejected.append(TrackerRejection(index: 0, reason: error))
        }
        return payload
    }

    static func fix(_ parameters: FormParameters, now: Date) throws(TrackerPayloadError) -> TrackerFix {
        var latitude = try parameters.number("lat")
        var longitude = try parameters.number("lon")
        if latitude == nil, longitude == nil, let location = parameters["location"] {
            let parts = location.split(separator: ",")
            guard parts.count == 2, let lat = try FormParameters(values: ["v": String(parts[0])]).number("v"),
                  let lon = try FormParameters(values: ["v": String(parts[1])]).number("v")
            else { throw .wrongType(field: "location", expected: "LAT,LON") }
            latitude = lat
            longitude = lon
        }
        let time = try parameters["timestamp"].map { text throws(TrackerPayloadError) in try Self.time(text) } ?? now
        return try TrackerFix.checked(
            time: time, latitude: latitude, longitude: longitude,
            elevationMeters: parameters.lenientNumber("altitude"),
            speedMetersPerSecond: parameters.lenientNumber("speed").map { $0 * metersPerSecondPerKnot },
            courseDegrees: parameters.lenientNumber("bearing") ?? parameters.lenientNumber("heading"),
            accuracyMeters: parameters.lenientNumber("accuracy") ?? parameters.lenientNumber("hacc"),
            batteryPercent: parameters.lenientNumber("batt"), now: now)
    }

    /// Traccar's rules for `timestamp`: digits are seconds below 2^31, else milliseconds; a `T` means ISO
    /// 8601; otherwise `yyyy-MM-dd HH:mm:ss` (UTC).
    static func time(_ text: String) throws(TrackerPayloadError) -> Date {
        let text = text.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.utf8.count <= 40 else { throw .wrongType(field: "timestamp", expected: "a time") }
        if text.utf8.allSatisfy({ (0x30...0x39).contains($0) || $0 == 0x2E }) {
            guard let value = Double(text), value.isFinite, value < 1e15 else { throw .outOfRange(field: "timestamp", value: text) }
            return Date(timeIntervalSince1970: value < 2_147_483_648 ? value : value / 1000)
        }
        var iso = text
        if !text.contains("T") && !text.contains("t") {
            iso = text.replacingOccurrences(of: " ", with: "T") + "Z"
        }
        guard let time = try? GPXTime(parsing: iso) else { throw .wrongType(field: "timestamp", expected: "a time") }
        return time.date
    }

    /// Traccar Client's JSON form.
    public static func parse(json data: Data, now: Date = Date()) throws(TrackerPayloadError) -> TrackerPayload {
        guard let root = TrackerJSON.object(try TrackerJSON.decode(data)) else { throw .malformed("the body is not a JSON object") }
        var payload = TrackerPayload(deviceHint: TrackerJSON.string(root, "device_id"))
        let locations: [JSONValue]
        switch root["location"] {
        case .array(let items)?: locations = items
        case .object?: locations = [root["location"]!]
        default: throw .missing("location")
        }
        for (index, item) in locations.enumerated() {
            do {
                payload.fixes.append(try jsonFix(item, now: now))
            } catch {
                payload.rejected.append(TrackerRejection(index: index, reason: error))
            }
        }
        return payload
    }

    static func jsonFix(_ value: JSONValue, now: Date) throws(TrackerPayloadError) -> TrackerFix {
        guard let location = TrackerJSON.object(value) else { throw .wrongType(field: "location", expected: "an object") }
        guard let coords = TrackerJSON.object(location["coords"]) else { throw .missing("location.coords") }
        let time: Date
        switch location["timestamp"] {
        case .string(let text)?: time = try Self.time(text)
        case .number(let value)?: time = try Self.time(String(format: "%.0f", value.isFinite ? value : -1))
        case nil, .null?: time = now
        default: throw .wrongType(field: "location.timestamp", expected: "a time")
        }
        let battery = TrackerJSON.object(location["battery"]).flatMap { TrackerJSON.lenientNumber($0, "level") }
        return try TrackerFix.checked(
            time: time,
            latitude: try TrackerJSON.number(coords, "latitude", path: "location.coords."),
            longitude: try TrackerJSON.number(coords, "longitude", path: "location.coords."),
            elevationMeters: TrackerJSON.lenientNumber(coords, "altitude"),
            speedMetersPerSecond: TrackerJSON.lenientNumber(coords, "speed"),  // m/s in this form; −1 is dropped as unknown
            courseDegrees: TrackerJSON.lenientNumber(coords, "heading"),
            accuracyMeters: TrackerJSON.lenientNumber(coords, "accuracy"),
            batteryPercent: battery.map { $0 * 100 }, now: now)
    }
}
