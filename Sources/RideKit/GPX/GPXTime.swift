import Foundation

/// A GPX timestamp that keeps what the file said: the instant, the UTC offset it was written with, and the
/// number of fractional digits, so that `2021-01-07T21:51:59.179+01:15` is written back byte for byte.
///
/// Parsed by one strict parser of our own (DESIGN 4.2): Foundation's formatters drop fractional seconds or
/// their absence, roll 2024-02-30 over to March, and cost tens of microseconds a call.
public struct GPXTime: Sendable, Hashable {
    /// How the zone was written.
    public enum UTCOffset: Sendable, Hashable {
        /// No zone at all (`2013-01-01T12:00:00`); the time is taken as UTC.
        case unspecified
        /// `Z`.
        case utc
        /// `±hh:mm` (or `±hhmm` on input), in minutes east of UTC. `+00:00` is kept apart from `Z`.
        case minutes(Int)
    }

    /// Whole seconds since 1970-01-01T00:00:00Z (negative before).
    public var secondsSince1970: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    public var nanoseconds: Int32
    public var offset: UTCOffset
    /// Fractional digits as written, 0...9.
    public var fractionDigits: Int8

    public init(secondsSince1970: Int64, nanoseconds: Int32 = 0, offset: UTCOffset = .utc, fractionDigits: Int8 = 0) {
        self.secondsSince1970 = secondsSince1970
        self.nanoseconds = nanoseconds
        self.offset = offset
        self.fractionDigits = fractionDigits
    }

    /// A UTC time from a `Date`, written with millisecond precision when it has a fraction.
    public init(date: Date, offset: UTCOffset = .utc) {
        let interval = date.timeIntervalSince1970
        var seconds = interval.rounded(.down)
        var nanos = ((interval - seconds) * 1e9).rounded()
        if nanos >= 1e9 {
            seconds += 1
            nanos -= 1e9
        }
        self.init(
            secondsSince1970: Int64(seconds), nanoseconds: Int32(nanos), offset: offset,
            fractionDigits: nanos == 0 ? 0 : (Int(nanos) % 1_000_000 == 0 ? 3 : 9)
        )
    }

    /// Seconds since 1970 as a `Double` (microsecond precision for present-day dates).
    @inlinable public var timeIntervalSince1970: Double { Double(secondsSince1970) + Double(nanoseconds) * 1e-9 }

    /// The instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSince1970: timeIntervalSince1970) }

    /// Minutes east of UTC the time was written with (0 for `Z` and for no zone).
    public var offsetMinutes: Int {
        if case .minutes(let minutes) = offset { return minutes }
        return 0
    }

    /// The same instant written as UTC with `Z`, keeping the fractional digits.
    public var inUTC: GPXTime {
        GPXTime(secondsSince1970: secondsSince1970, nanoseconds: nanoseconds, offset: .utc, fractionDigits: fractionDigits)
    }

    /// True when both name the same instant, whatever their offsets and digits.
    public func isSameInstant(as other: GPXTime) -> Bool {
        secondsSince1970 == other.secondsSince1970 && nanoseconds == other.nanoseconds
    }
}

/// Why a timestamp was refused.
public enum GPXTimeError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalidFormat(String)
    case invalidDate(String)
    case invalidOffset(String)

    public var description: String {
        switch self {
        case .invalidFormat(let text):
            return "'\(text)' is not a time of the form YYYY-MM-DDThh:mm:ss[.fraction][Z|±hh:mm]"
        case .invalidDate(let text): return "'\(text)' is not a real date or time of day"
        case .invalidOffset(let text): return "'\(text)' has an invalid UTC offset"
        }
    }
}

extension GPXTime {
    /// Parses an RFC 3339 / ISO 8601 time as GPX files write it.
    ///
    /// Accepts 0–9 fractional digits (more are truncated to nanoseconds), `Z`, `±hh:mm`, `±hhmm` or no zone,
    /// and `t`/`z` in lower case. Rejects impossible dates such as 2024-02-30 rather than rolling them over.
    ///
    ///     GPXTime(parsing: "2015-12-11T15:43:13.994+01:00")  // 14:43:13.994 UTC, offset +60 min, 3 digits
    public init(parsing text: String) throws(GPXTimeError) {
        var copy = text
        let result = copy.withUTF8 { buffer in GPXTime.parse(UnsafeRawBufferPointer(buffer)) }
        switch result {
        case .success(let time): self = time
        case .failure(let error): throw error
        }
    }

    /// Parses the bytes of a time (ASCII). The bytes must not carry surrounding white space.
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<GPXTime, GPXTimeError> {
        let count = bytes.count
        func text() -> String { String(decoding: bytes, as: UTF8.self) }
        @inline(__always) func digit(_ index: Int) -> Int {
            let value = Int(bytes[index]) &- 48
            return (0...9).contains(value) ? value : -1
        }
        @inline(__always) func number(_ start: Int, _ length: Int) -> Int {
            var value = 0
            for index in start..<(start + length) {
                let d = digit(index)
                if d < 0 { return -1 }
                value = value * 10 + d
            }
            return value
        }
        // YYYY-MM-DDThh:mm:ss is 19 bytes.
        guard count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return .failure(.invalidFormat(text())) }
        let year = number(0, 4), month = number(5, 2), day = number(8, 2)
        let hour = number(11, 2), minute = number(14, 2), second = number(17, 2)
        guard year >= 0, month >= 0, day >= 0, hour >= 0, minute >= 0, second >= 0 else {
            return .failure(.invalidFormat(text()))
        }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return .failure(.invalidDate(text())) }

        var index = 19
        var nanoseconds = 0
        var digits = 0
        if index < count, bytes[index] == UInt8(ascii: ".") || bytes[index] == UInt8(ascii: ",") {
            index += 1
            let start = index
            while index < count, digit(index) >= 0 {
                if digits < 9 {
                    nanoseconds = nanoseconds * 10 + digit(index)
                    digits += 1
                }
                index += 1
            }
            guard index > start else { return .failure(.invalidFormat(text())) }
            for _ in digits..<9 { nanoseconds *= 10 }
        }

        var offset = UTCOffset.unspecified
        if index < count {
            switch bytes[index] {
            case UInt8(ascii: "Z"), UInt8(ascii: "z"):
                offset = .utc
                index += 1
            case UInt8(ascii: "+"), UInt8(ascii: "-"):
                let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                let rest = count - index - 1
                let hours: Int, minutes: Int
                if rest == 5, bytes[index + 3] == UInt8(ascii: ":") {
                    hours = number(index + 1, 2)
                    minutes = number(index + 4, 2)
                } else if rest == 4 {
                    hours = number(index + 1, 2)
                    minutes = number(index + 3, 2)
                } else if rest == 2 {
                    hours = number(index + 1, 2)
                    minutes = 0
                } else {
                    return .failure(.invalidOffset(text()))
                }
                guard hours >= 0, minutes >= 0, hours <= 23, minutes <= 59 else {
                    return .failure(.invalidOffset(text()))
                }
                offset = .minutes(sign * (hours * 60 + minutes))
                index = count
            default:
                return .failure(.invalidFormat(text()))
            }
        }
        guard index == count else { return .failure(.invalidFormat(text())) }

        let days = daysSince1970(year: year, month: month, day: day)
        var seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        if case .minutes(let minutes) = offset { seconds -= Int64(minutes * 60) }
        return .success(
            GPXTime(secondsSince1970: seconds, nanoseconds: Int32(nanoseconds), offset: offset, fractionDigits: Int8(digits))
        )
    }

    /// The time as RFC 3339 text, in the offset and with the digits it was read with.
    ///
    ///     try GPXTime(parsing: "2021-01-07T21:51:59.179+01:15").rfc3339  // "2021-01-07T21:51:59.179+01:15"
    public var rfc3339: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(35)
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the RFC 3339 text to a byte buffer (used by the writers, which build UTF-8 directly).
    public func appendRFC3339(to bytes: inout [UInt8]) {
        let local = secondsSince1970 + Int64(offsetMinutes * 60)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = Int(local - days * 86_400)
        let (year, month, day) = GPXTime.civilDate(daysSince1970: Int(days))
        func append(_ value: Int, width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var rest = value
            for position in stride(from: width - 1, through: 0, by: -1) {
                digits[position] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            bytes += digits
        }
        if year < 0 { bytes.append(UInt8(ascii: "-")) }
        append(abs(year), width: 4)
        bytes.append(UInt8(ascii: "-"))
        append(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        append(day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, width: 2)
        if fractionDigits > 0 {
            bytes.append(UInt8(ascii: "."))
            var fraction = Int(nanoseconds)
            for _ in Int(fractionDigits)..<9 { fraction /= 10 }
            append(fraction, width: Int(fractionDigits))
        }
        switch offset {
        case .unspecified: break
        case .utc: bytes.append(UInt8(ascii: "Z"))
        case .minutes(let minutes):
            bytes.append(minutes < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            append(abs(minutes) / 60, width: 2)
            bytes.append(UInt8(ascii: ":"))
            append(abs(minutes) % 60, width: 2)
        }
    }

    static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date, counting 400-year eras of 146,097 days from
    /// 0000-03-01 so that the leap day falls at the end of each counted year.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysSince1970(year:month:day:)`.
    static func civilDate(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
