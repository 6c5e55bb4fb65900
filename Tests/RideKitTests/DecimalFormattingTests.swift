import Foundation
import TestSupport
import Testing

@testable import RideKit


@Suite struct DecimalFormattingTests {
    @Test(arguments: [
        (9.1697e-05, "0.000091697"),
        (0.000005, "0.000005"),
        (1e21, "1000000000000000000000"),
        (1e16, "10000000000000000"),
        (123456789012345680.0, "123456789012345680"),
        (42.0, "42"),
        (-42.0, "-42"),
        (0.0, "0"),
        (-0.0, "0"),
        (0.1, "0.1"),
        (-0.0001, "-0.0001"),
        (46.57608333, "46.57608333"),
        (-122.4194, "-122.4194"),
        (1.5e-10, "0.00000000015"),
        (2.5e15, "2500000000000000"),
        (179.99999999999997, "179.99999999999997"),
    ])
    func writesPlainDecimals(value: Double, expected: String) {
        #expect(DecimalFormatting.string(value) == expected)
    }

    @Test func fixtureValueIsWrittenWithoutExponent() {
        // track-with-small-floats.gpx: gpxpy checks that re-serialised XML has no `e-`.
        let text = DecimalFormatting.string(0.000091697)
        #expect(text == "0.000091697")
        #expect(Double(text!) == 0.000091697)
    }

    @Test func nonFiniteValuesAreRefused() {
        var bytes: [UInt8] = []
        #expect(!DecimalFormatting.append(.nan, to: &bytes))
        #expect(!DecimalFormatting.append(.infinity, to: &bytes))
        #expect(!DecimalFormatting.append(-.infinity, to: &bytes))
        #expect(bytes.isEmpty)
        #expect(DecimalFormatting.string(.nan) == nil)
    }

    @Test func extremesRoundTrip() throws {
        for value in [
            Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.leastNormalMagnitude,
            Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude, 9_007_199_254_740_993, 0.1 + 0.2,
            1e-7, 1e-5, 1e-4, 1e15, 1e22, 1e23,
        ] {
            let text = try #require(DecimalFormatting.string(value))
            #expect(!text.contains("e") && !text.contains("E"), "\(value) → \(text)")
            #expect(Double(text) == value, "\(value) → \(text)")
        }
    }

    @Test func randomBitPatternsRoundTripWithoutExponent() throws {
        var generator = SeededGenerator(seed: 0x6269_6B65)
        var checked = 0
        while checked < 20_000 {
            let value = Double(bitPattern: generator.next())
            guard value.isFinite else { continue }
            checked += 1
            let text = try #require(DecimalFormatting.string(value))
            #expect(text.allSatisfy { $0.isNumber || $0 == "." || $0 == "-" }, "\(value) → \(text)")
            #expect(Double(text) == value, "\(value) → \(text)")
            if value == 0 { #expect(text == "0") }
        }
    }

    @Test func randomCoordinatesRoundTripAndAreShortest() throws {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20_000 {
            let value = Double.random(in: -180...180, using: &generator)
            let text = try #require(DecimalFormatting.string(value))
            #expect(Double(text) == value)
            // Same significant digits as Swift's shortest form, so no longer than needed.
            let digits = { (s: String) in s.filter(\.isNumber).drop { $0 == "0" }.reversed().drop { $0 == "0" } }
            let swiftForm = value.description.split(separator: "e").first.map(String.init) ?? ""
            #expect(String(digits(text)) == String(digits(swiftForm)))
        }
    }

    @Test func integersAreWrittenDirectly() {
        var bytes: [UInt8] = []
        DecimalFormatting.appendInteger(.min, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        DecimalFormatting.appendInteger(.max, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        DecimalFormatting.appendInteger(0, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "-9223372036854775808 9223372036854775807 0")
    }
}
