/// The time of day a ride started where it was ridden: what the list and the track page show as its date.
///
/// No time zone database is consulted (an offline lookup of zone borders would weigh more than the rest of
/// bikeride); the rule, in order:
/// 1. the file wrote an offset (`2024-05-01T10:00:00+02:00`): that offset, the device's own zone;
/// 2. the file wrote no zone at all (`2024-05-01T10:00:00`): the time as written, which is the device's clock;
/// 3. the file wrote UTC (`…Z`, what most apps and bikeride's recordings write): the offset of the mean solar
///    time at the start, `round(longitude / 15)` hours, between −12 and +14 — right to the hour for most of the
///    world outside summer time; an hour off under summer time and in zones far from their meridian (Spain,
///    western China), and said so by `source`.
///
///     LocalStartTime(start: try GPXTime(parsing: "2024-05-01T08:00:00Z"), longitude: 8.54).time.rfc3339
///     // "2024-05-01T09:00:00+01:00" (Zurich: the mean solar zone, one hour east of UTC)
public struct LocalStartTime: Sendable, Hashable {
    /// Where the offset comes from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The file's own offset.
        case file
        /// The file's time without a zone, as written.
        case asWritten
        /// Mean solar time from the start's longitude.
        case longitude
        /// UTC: the time was UTC and no position was known.
        case utc
    }

    /// The same instant, written in the local offset.
    public var time: GPXTime
    public var source: Source

    public init(start: GPXTime, longitude: Double?) {
        switch start.offset {
        case .minutes:
            time = start
            source = .file
        case .unspecified:
            time = start
            source = .asWritten
        case .utc:
            guard let longitude, longitude.isFinite, (-180...180).contains(longitude) else {
                time = start
                source = .utc
                return
            }
            let hours = min(14, max(-12, Int((longitude / 15).rounded())))
            time = GPXTime(
                secondsSince1970: start.secondsSince1970, nanoseconds: start.nanoseconds, offset: .minutes(hours * 60),
                fractionDigits: start.fractionDigits)
            source = .longitude
        }
    }
}
