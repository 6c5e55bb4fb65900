import Foundation
import TestSupport
import Testing

@testable import RideKit

@Suite struct GPXTimeTests {
    /// Unix times computed independently: `date -u -d '2024-02-29T12:34:56Z' +%s` and known epochs.
    @Test(arguments: [
        ("1970-01-01T00:00:00Z", Int64(0)), ("2000-03-01T00:00:00Z", 951_868_800), ("2024-02-29T12:34:56Z", 1_709_210_096),
        ("1901-12-13T20:45:52Z", -2_147_483_648), ("2038-01-19T03:14:08Z", 2_147_483_648), ("1600-01-01T00:00:00Z", -11_676_096_000),
        ("9999-12-31T23:59:59Z", 253_402_300_799),
    ])
    func knownInstants(_ text: String, _ seconds: Int64) throws {
        let time = try GPXTime(parsing: text)
        #expect(time.secondsSince1970 == seconds)
        #expect(time.rfc3339 == text)
    }

    @Test(arguments: 0...9)
    func zeroToNineFractionalDigitsAreKept(_ digits: Int) throws {
        let fraction = String("123456789".prefix(digits))
        let text = "2015-12-11T15:43:13" + (digits > 0 ? "." + fraction : "") + "Z"
        let time = try GPXTime(parsing: text)
        #expect(time.fractionDigits == Int8(digits))
        #expect(Int(time.nanoseconds) == (digits == 0 ? 0 : Int(fraction + String(repeating: "0", count: 9 - digits))!))
        #expect(time.rfc3339 == text)
    }

    @Test func offsetsAreKeptAndApplied() throws {
        let colon = try GPXTime(parsing: "2015-12-11T15:43:13.994+01:00")
        #expect(colon.offset == .minutes(60))
        #expect(colon.inUTC.rfc3339 == "2015-12-11T14:43:13.994Z")
        #expect(colon.rfc3339 == "2015-12-11T15:43:13.994+01:00")
        // Overland writes offsets without a colon; written back in RFC 3339 form.
        let noColon = try GPXTime(parsing: "2015-10-01T08:00:00-0700")
        #expect(noColon.offset == .minutes(-420))
        #expect(noColon.inUTC.rfc3339 == "2015-10-01T15:00:00Z")
        #expect(noColon.rfc3339 == "2015-10-01T08:00:00-07:00")
        let quarter = try GPXTime(parsing: "2021-01-07T21:51:59.179+01:15")
        #expect(quarter.inUTC.rfc3339 == "2021-01-07T20:36:59.179Z")
        let plusZero = try GPXTime(parsing: "2020-01-01T00:00:00+00:00")
        #expect(plusZero.offset == .minutes(0) && plusZero.rfc3339 == "2020-01-01T00:00:00+00:00")
    }

    @Test func noZoneIsTakenAsUTCAndWrittenWithoutOne() throws {
        let time = try GPXTime(parsing: "2013-01-01T12:00:00")
        #expect(time.offset == .unspecified)
        #expect(time.secondsSince1970 == 1_356_998_400 + 12 * 3600)
        #expect(time.rfc3339 == "2013-01-01T12:00:00")
    }

    @Test(arguments: [
        "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z",
        "2024-04-31T00:00:00Z", "2024-01-01T24:00:00Z", "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "2024-01-01T00:00:00+25:00",
        "2024-01-01T00:00:00+01:60", "2024-01-01 00:00:00Z", "2024-1-01T00:00:00Z", "2024-01-01T00:00:00.Z", "2024-01-01T00:00:00ZZ",
        "2024-01-01T00:00:00+1", "", "yesterday", "2024-01-01T00:00:00 Z",
    ])
    func invalidTimesAreRefused(_ text: String) {
        #expect(throws: GPXTimeError.self) { try GPXTime(parsing: text) }
    }

    @Test func leapDayOf2000IsValid() throws {
        #expect(try GPXTime(parsing: "2000-02-29T00:00:00Z").rfc3339 == "2000-02-29T00:00:00Z")
    }

    @Test func matchesFoundationOnManyInstants() throws {
        let formatter = ISO8601DateFormatter()
        var generator = SeededGenerator(seed: 42)
        for _ in 0..<2000 {
            let seconds = Int64(generator.next() % 8_000_000_000) - 2_000_000_000
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = formatter.string(from: date)
            let time = try GPXTime(parsing: text)
            #expect(time.secondsSince1970 == seconds, "\(text)")
            #expect(time.rfc3339 == text)
        }
    }
}

