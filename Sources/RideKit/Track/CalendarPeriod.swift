import Foundation

/// This week, this month, this year: where each began, for the totals above the Tracks list.
///
/// Counted in a fixed offset from UTC (the rider's own, as the browser gives it), on the proleptic Gregorian
/// calendar, weeks from Monday (ISO 8601). Plain day arithmetic, no `Calendar`: the same answer on every
/// platform, and a test can check it by hand.
///
///     CalendarPeriod.week.start(containing: wednesday3pm, utcOffsetMinutes: 60)  // Monday 00:00 at UTC+1
public enum CalendarPeriod: String, CaseIterable, Sendable, Codable {
    case week, month, year

    /// The first moment of the period that holds `now`, in a zone `utcOffsetMinutes` east of UTC.
    public func start(containing now: Date, utcOffsetMinutes: Int) -> Date {
        let offsetSeconds = Int64(utcOffsetMinutes) * 60
        let localSeconds = Int64(now.timeIntervalSince1970.rounded(.down)) + offsetSeconds
        let day = Self.floorDivide(localSeconds, 86_400)
        let firstDay: Int64
        switch self {
        case .week:
            // 1970-01-01 was a Thursday: Monday is 0 in (day + 3) mod 7.
            firstDay = day - Self.floorModulo(day + 3, 7)
        case .month:
            let (year, month, _) = Self.civil(fromDays: day)
            firstDay = Self.days(year: year, month: month, day: 1)
        case .year:
            let (year, _, _) = Self.civil(fromDays: day)
            firstDay = Self.days(year: year, month: 1, day: 1)
        }
        return Date(timeIntervalSince1970: Double(firstDay * 86_400 - offsetSeconds))
    }

    static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 { a >= 0 ? a / b : -((-a + b - 1) / b) }
    static func floorModulo(_ a: Int64, _ b: Int64) -> Int64 { a - floorDivide(a, b) * b }

    /// Days since 1970-01-01 of a Gregorian date (the "days from civil" algorithm: eras of 400 years).
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = floorDivide(y, 400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The Gregorian date of a day counted from 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
