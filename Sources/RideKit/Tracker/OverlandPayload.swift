import Foundation

/// Overland (iOS): `{"locations": [GeoJSON Feature …]}` batches of up to 1,000 points, re-sent until the
/// server answers exactly `{"result":"ok"}`.
///
/// A location is a `Point` feature with `coordinates` [lon, lat] and `properties.timestamp` (ISO 8601, the
/// offset without a colon: `-0700`), `altitude`, `speed` (m/s, −1 unknown), `course`, `horizontal_accuracy`,
/// `battery_level` (0–1). Features with `properties.action: "visit"` or `type: "trip"` are not positions.
public enum OverlandPayload {
    public static func parse(_ data: Data, now: Date = Date()) throws(TrackerPayloadError) -> TrackerPayload {
        guard let root = TrackerJSON.object(try TrackerJSON.decode(data)) else { throw .malformed("the body is not a JSON object") }
        guard case .array(let features)? = root["locations"] else { throw .malformed("no \"locations\" array") }
        var payload = TrackerPayload()
        for (index, feature) in features.enumerated() {
            guard let object = TrackerJSON.object(feature) else {
                payload.rejected.append(TrackerRejection(index: index, reason: .wrongType(field: "locations[\(index)]", expected: "an object")))
                continue
            }
            let properties = TrackerJSON.object(object["properties"]) ?? [:]
            if payload.deviceHint == nil { payload.deviceHint = TrackerJSON.string(properties, "device_id") }
            if let action = TrackerJSON.string(properties, "action") {
                payload.ignoredTypes.append(String(action.prefix(32)))
                continue
            }
            if let type = TrackerJSON.string(properties, "type"), type != "Feature" {
                payload.ignoredTypes.append(String(type.prefix(32)))
                continue
            }
            do {
                payload.fixes.append(try location(object, properties: properties, now: now))
            } catch {
                payload.rejected.append(TrackerRejection(index: index, reason: error))
            }
        }
        return payload
    }

    static func location(_ feature: [String: JSONValue], properties: [String: JSONValue], now: Date) throws(TrackerPayloadError) -> TrackerFix {
        guard let geometry = TrackerJSON.object(feature["geometry"]) else { throw .missing("geometry") }
        guard case .array(let coordinates)? = geometry["coordinates"], coordinates.count >= 2 else { throw .missing("geometry.coordinates") }
        guard case .number(let longitude) = coordinates[0], case .number(let latitude) = coordinates[1] else {
            throw .wrongType(field: "geometry.coordinates", expected: "[longitude, latitude] numbers")
        }
        guard let text = TrackerJSON.string(properties, "timestamp") else { throw .missing("properties.timestamp") }
        guard let time = try? GPXTime(parsing: text) else { throw .wrongType(field: "properties.timestamp", expected: "an ISO 8601 time") }
        return try TrackerFix.checked(
            time: time.date, latitude: latitude, longitude: longitude,
            elevationMeters: TrackerJSON.lenientNumber(properties, "altitude"),
            speedMetersPerSecond: TrackerJSON.lenientNumber(properties, "speed"),
            courseDegrees: TrackerJSON.lenientNumber(properties, "course"),
            accuracyMeters: TrackerJSON.lenientNumber(properties, "horizontal_accuracy"),
            batteryPercent: TrackerJSON.lenientNumber(properties, "battery_level").map { $0 * 100 }, now: now)
    }
}
