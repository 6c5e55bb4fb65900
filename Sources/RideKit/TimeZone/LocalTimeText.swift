import Foundation

/// An instant as a person at a position reads it on their own clock: the IANA time zone there (`TimeZoneGrid`,
/// offline, summer time included), for the share pages that others open from anywhere.
///
///     LocalTimeText.text(Date(timeIntervalSince1970: 1_334_235_180), latitude: 48.14, longitude: 11.58)
///     // "2012-04-12 14:53 (UTC+02:00, Europe/Berlin)"
///
/// UTC, said as such, where no zone is known (the open sea keeps nautical time, which the grid gives as `Etc/…`).
public enum LocalTimeText {
    /// The wall-clock date and time with its offset and zone name; `seconds` adds the seconds.
    public static func text(_ date: Date, latitude: Double, longitude: Double, seconds: Bool = false,
                            grid: TimeZoneGrid? = TimeZoneGrid.shared) -> String {
        let zone = grid?.timeZone(latitude: latitude, longitude: longitude)
        let offset = zone?.secondsFromGMT(for: date) ?? 0
        let local = GPXTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset), nanoseconds: 0, offset: .unspecified)
        // "2012-04-12T14:53:07": the written time without a zone is the wall clock.
        let written = local.rfc3339
        let clock = String(written.prefix(seconds ? 19 : 16)).replacingOccurrences(of: "T", with: " ")
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        let offsetText = "UTC" + sign + String(format: "%02d:%02d", minutes / 60, minutes % 60)
        guard let zone else { return clock + " (UTC)" }
        return clock + " (" + offsetText + ", " + zone.identifier + ")"
    }
}
