import Foundation

/// The time of day a ride started where it was ridden: what the list and the track page show as its date.
///
/// The rule, in order:
/// 1. the file wrote an offset (`2024-05-01T10:00:00+02:00`), or the phone sent one: that offset, the device's
///    own zone;
/// 2. the file wrote no zone at all (`2024-05-01T10:00:00`): the time as written, which is the device's clock;
/// 3. the file wrote UTC (`…Z`, what most apps and bikeride's recordings write): the offset at that instant of
///    the IANA time zone at the start (`TimeZoneGrid`, offline; summer time from the system's tzdata);
/// 4. UTC when no position (or no zone) is known.
///
///     LocalStartTime(start: try GPXTime(parsing: "2012-04-12T12:53:00Z"), latitude: 48.14, longitude: 11.58).time.rfc3339
///     // "2012-04-12T14:53:00+02:00" (Munich, summer time)
public struct LocalStartTime: Sendable, Hashable {
    /// Where the offset comes from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The file's own offset.
        case file
        /// The file's time without a zone, as written.
        case asWritten
        /// The time zone at the start position (`zone` names it).
        case zone
        /// UTC: the time was UTC and no position was known.
        case utc
    }

    /// The same instant, written in the local offset.
    public var time: GPXTime
    public var source: Source
    /// The IANA zone at the start when `source` is `.zone` ("Europe/Berlin").
    public var zone: String?

    public init(start: GPXTime, latitude: Double?, longitude: Double?, grid: TimeZoneGrid? = TimeZoneGrid.shared) {
        zone = nil
        switch start.offset {
        case .minutes:
            time = start
            source = .file
        case .unspecified:
            time = start
            source = .asWritten
        case .utc:
            guard let latitude, let longitude, let grid, let identifier = grid.identifier(latitude: latitude, longitude: longitude),
                  let timeZone = TimeZone(identifier: identifier)
            else {
                time = start
                source = .utc
                return
            }
            let seconds = timeZone.secondsFromGMT(for: start.date)
            // GPX offsets are whole minutes; every zone's offset since 1972 is.
            time = GPXTime(
                secondsSince1970: start.secondsSince1970, nanoseconds: start.nanoseconds, offset: .minutes(seconds / 60),
                fractionDigits: start.fractionDigits)
            source = .zone
            zone = identifier
        }
    }
}
