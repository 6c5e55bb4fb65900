import Foundation

/// Reads decimal numbers straight from the file's bytes, correctly rounded.
///
/// Strict on purpose (DESIGN 4.3): `Double("nan")`, `Double("inf")`, `Double("1e400")` and hex floats all
/// succeed in Swift, and none of them is a coordinate. Accepted: `[+-]digits[.digits][(e|E)[+-]digits]`,
/// also `.5` and `5.`, with surrounding XML white space. The exponent is not valid `xsd:decimal`, but
/// real files use it (jpx ISSUE-151), so it is read. Results that are not finite are refused.
enum DecimalParser {
    /// Exact powers of ten: every one up to 1e22 is representable in a Double.
    nonisolated(unsafe) private static let powersOfTen: UnsafeMutablePointer<Double> = {
        let table = UnsafeMutablePointer<Double>.allocate(capacity: 23)
        var value = 1.0
        for exponent in 0...22 {
            table[exponent] = value
            value *= 10
        }
        return table
    }()

    /// The number in `bytes`, or nil if they are not a finite decimal number.
    ///
    ///     DecimalParser.parse("47.1234567")  // 47.1234567
    ///     DecimalParser.parse("nan")         // nil
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var start = 0
        var stop = bytes.count
        guard stop > 0 else { return nil }
        if isSpace(bytes[0]) || isSpace(bytes[stop - 1]) {
            while start < stop && isSpace(bytes[start]) { start += 1 }
            while stop > start && isSpace(bytes[stop - 1]) { stop -= 1 }
            guard start < stop else { return nil }
        }

        var index = start
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        // Digits go into the mantissa while it has room (19 digits always fit in 64 bits); leading zeros take
        // room too, which only sends rare inputs such as 0.0000000000000000001 to the slow path below.
        var mantissa: UInt64 = 0
        var digitCount = 0
        var storedDigits = 0
        var droppedDigits = false
        var exponent = 0
        if stop - index <= 19 {
            // The common case (`37.3229572`): every digit fits, so the loops need not count what they store.
            let integerStart = index
            while index < stop, case let digit = bytes[index] &- 48, digit < 10 {
                mantissa = mantissa &* 10 &+ UInt64(digit)
                index += 1
            }
            digitCount = index - integerStart
            if index < stop && bytes[index] == UInt8(ascii: ".") {
                index += 1
                let fractionStart = index
                while index < stop, case let digit = bytes[index] &- 48, digit < 10 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    index += 1
                }
                exponent = fractionStart - index
                digitCount += index - fractionStart
            }
        } else {
            while index < stop, case let digit = bytes[index] &- 48, digit < 10 {
                if storedDigits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(digit)
                    storedDigits += 1
                } else {
                    exponent += 1
                    droppedDigits = droppedDigits || digit != 0
                }
                digitCount += 1
                index += 1
            }
            if index < stop && bytes[index] == UInt8(ascii: ".") {
                index += 1
                while index < stop, case let digit = bytes[index] &- 48, digit < 10 {
                    if storedDigits < 19 {
                        mantissa = mantissa &* 10 &+ UInt64(digit)
                        storedDigits += 1
                        exponent -= 1
                    } else {
                        droppedDigits = droppedDigits || digit != 0
                    }
                    digitCount += 1
                    index += 1
                }
            }
        }
        guard digitCount > 0 else { return nil }
        if index < stop && (bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E")) {
            index += 1
            var exponentNegative = false
            if index < stop && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            var written = 0
            var exponentDigits = 0
            while index < stop, case let digit = bytes[index] &- 48, digit < 10 {
                if written < 100_000 { written = written * 10 + Int(digit) }
                exponentDigits += 1
                index += 1
            }
            guard exponentDigits > 0 else { return nil }
            exponent += exponentNegative ? -written : written
        }
        guard index == stop else { return nil }
        // Zero only if no digit was dropped: 0.00000000000000000001 keeps only zeros and goes to the slow path.
        if mantissa == 0 && !droppedDigits { return negative ? -0.0 : 0.0 }

        // Clinger's fast path: both factors are exact, so one IEEE operation rounds correctly.
        if !droppedDigits && mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
            return negative ? -value : value
        }
        // Rare: long mantissas (30-decimal Garmin Connect coordinates) and big exponents. The syntax is
        // already checked, so the standard library sees a plain decimal.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<stop]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }

    /// Parses a Swift string (tests and command-line values).
    static func parse(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parse($0) }
    }

    /// An integer of at most 18 digits, with optional sign and surrounding white space.
    static func parseInteger(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var start = 0
        var stop = bytes.count
        while start < stop && isSpace(bytes[start]) { start += 1 }
        while stop > start && isSpace(bytes[stop - 1]) { stop -= 1 }
        var index = start
        var negative = false
        if index < stop && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < stop, stop - index <= 18 else { return nil }
        var value = 0
        while index < stop {
            let digit = bytes[index] &- 48
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
            index += 1
        }
        return negative ? -value : value
    }

    @inline(__always) static func isSpace(_ byte: UInt8) -> Bool {
        byte == 32 || byte == 9 || byte == 10 || byte == 13
    }
}
