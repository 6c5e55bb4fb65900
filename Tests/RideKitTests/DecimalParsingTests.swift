import Foundation
import TestSupport
import Testing

@testable import RideKit

/// `DecimalParser` against the standard library's `Double(_:)` (correctly rounded), on both sides of its short path
/// (up to 19 characters after the sign, where no digit count is kept) and its long one.
@Suite struct DecimalParsingTests {
    @Test(arguments: [
        "0", "-0", "+0", "5", ".5", "5.", "-5.", "37.3229572", "-122.0321818", "52.4", "96", "+1.0", "0.000001",
        "1234567890123456789", "123456789012345678.9", "-1234567890123456789", "0.1234567890123456789",
        "12345678901234567890", "1.2345678901234567890", "0.00000000000000000001", "12345678901234567890123456789",
        "37.322957200000000000000000001", "9007199254740993", "1e5", "1.5E-3", "-2.5e+10", " 52.4", "52.4\n",
    ])
    func agreesWithTheStandardLibrary(text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(DecimalParser.parse(text) == Double(trimmed))
    }

    @Test func randomDecimalsOfEveryLength() {
        var generator = SeededGenerator(seed: 8)
        for _ in 0..<20_000 {
            let integerDigits = Int.random(in: 0...12, using: &generator)
            let fractionDigits = Int.random(in: integerDigits == 0 ? 1...14 : 0...14, using: &generator)
            var text = Bool.random(using: &generator) ? "-" : ""
            for _ in 0..<integerDigits { text.append(String(Int.random(in: 0...9, using: &generator))) }
            if fractionDigits > 0 || Bool.random(using: &generator) { text.append(".") }
            for _ in 0..<fractionDigits { text.append(String(Int.random(in: 0...9, using: &generator))) }
            #expect(DecimalParser.parse(text) == Double(text), "\(text)")
        }
    }

    @Test(arguments: ["", " ", "-", "+", ".", "-.", "1.2.3", "1e", "1e+", "nan", "inf", "0x10", "1 2", "1,5", "--1", "1e400"])
    func refusesWhatIsNotAFiniteDecimal(text: String) {
        #expect(DecimalParser.parse(text) == nil)
    }
}
