import Foundation

/// GPSLogger for Android's "Log to custom URL": the user writes a URL (and, for POST, a body) with
/// placeholders the app fills in. bikeride's Devices page gives this one:
///
///     https://HOST/ingest/gpslogger?token=TOKEN&lat=%LAT&lon=%LON&time=%TIME&alt=%ALT&spd=%SPD&dir=%DIR&acc=%ACC&batt=%BATT
///
/// `time` is `%TIME` (ISO 8601, UTC) or `timestamp` `%TIMESTAMP` (epoch seconds); `spd` is m/s (`%SPD`);
/// a placeholder the app could not fill stays as it is (`%ALT`) and is dropped as unknown.
public enum GPSLoggerPayload {
    public static func parse(_ parameters: FormParameters, now: Date = Date()) -> TrackerPayload {
        var payload = TrackerPayload(deviceHint: parameters["aid"].map { String($0.prefix(64)) })
        do {
            payload.fixes.append(try fix(parameters, now: now))
        } catch {
            payload.rejected.append(TrackerRejection(index: 0, reason: error))
        }
        return payload
    }

    static func fix(_ parameters: FormParameters, now: Date) throws(TrackerPayloadError) -> TrackerFix {
        let time: Date
        if let text = parameters["time"], !text.hasPrefix("%") {
            guard let parsed = try? GPXTime(parsing: text.trimmingCharacters(in: .whitespaces)) else {
                throw .wrongType(field: "time", expected: "an ISO 8601 time")
            }
            time = parsed.date
        } else if let text = parameters["timestamp"], !text.hasPrefix("%") {
            time = try OsmAndPayload.time(text)
        } else {
            throw .missing("time")
        }
        return try TrackerFix.checked(
            time: time, latitude: try parameters.number("lat"), longitude: try parameters.number("lon"),
            elevationMeters: parameters.lenientNumber("alt"),
            speedMetersPerSecond: parameters.lenientNumber("spd"),
            courseDegrees: parameters.lenientNumber("dir"),
            accuracyMeters: parameters.lenientNumber("acc"),
            batteryPercent: parameters.lenientNumber("batt"), now: now)
    }
}
