/// Writes a `Double` as the shortest plain decimal that reads back to the same value.
///
/// GPX numbers are `xsd:decimal`, which has no exponent, while Swift's `description` switches to scientific
/// notation below 1e-4 and from 2^53 up (`9.1697e-05`, `1e+21`). This keeps the digits of `description` —
/// already the shortest that round-trip — and moves the decimal point itself:
///
///     DecimalFormatting.string(9.1697e-05)  // "0.000091697"
///     DecimalFormatting.string(1e21)        // "1000000000000000000000"
///     DecimalFormatting.string(42.0)        // "42"   (integers carry no fraction)
///     DecimalFormatting.string(-0.0)        // "0"
///
/// The output is also a valid JSON number, so the GeoJSON writer uses it for coordinates.
public enum DecimalFormatting {
    /// Appends `value` as a plain decimal to `bytes`.
    ///
    /// - Returns: `false`, appending nothing, when `value` is NaN or infinite: neither has a decimal form,
    ///   and callers (the writers) leave such a field out rather than write something a reader refuses.
    @discardableResult
    public static func append(_ value: Double, to bytes: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        if value == 0 {
            // Covers -0 as well: the sign of zero means nothing in a coordinate or an elevation.
            bytes.append(UInt8(ascii: "0"))
            return true
        }
        // Integers below 2^53 are exact in both forms; writing them directly skips the string and is the
        // common case for heart rate, cadence, power and many elevations.
        if value == value.rounded(.towardZero), abs(value) < 9_007_199_254_740_992 {
            appendInteger(Int64(value), to: &bytes)
            return true
        }
        appendShortest(value, to: &bytes)
        return true
    }

    /// `value` as a plain decimal string, or `nil` when it is NaN or infinite.
    public static func string(_ value: Double) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        guard append(value, to: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends a signed integer in decimal.
    public static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude as UInt64 so that Int64.min does not overflow.
        var magnitude = value.magnitude
        if magnitude < 10 {
            bytes.append(UInt8(ascii: "0") &+ UInt8(magnitude))
            return
        }
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // 32 bytes, enough for 20 digits
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[31 - count] = UInt8(ascii: "0") &+ UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            bytes.append(contentsOf: buffer[(32 - count)...])
        }
    }

    /// Rewrites Swift's shortest round-trip text (`[-]digits[.digits][e±exponent]`) without an exponent.
    private static func appendShortest(_ value: Double, to bytes: inout [UInt8]) {
        var text = value.description
        text.withUTF8 { utf8 in
            var index = 0
            var negative = false
            if utf8[index] == UInt8(ascii: "-") {
                negative = true
                index += 1
            }
            // Significant digits without the point, and where the point falls among them.
            var digits: [UInt8] = []
            digits.reserveCapacity(20)
            var pointPosition: Int? = nil
            while index < utf8.count {
                let byte = utf8[index]
                if byte == UInt8(ascii: ".") {
                    pointPosition = digits.count
                } else if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
                    break
                } else {
                    digits.append(byte)
                }
                index += 1
            }
            var point = pointPosition ?? digits.count
            if index < utf8.count {
                // The exponent: `e`, an optional sign, digits.
                index += 1
                var exponentSign = 1
                if utf8[index] == UInt8(ascii: "-") {
                    exponentSign = -1
                    index += 1
                } else if utf8[index] == UInt8(ascii: "+") {
                    index += 1
                }
                var exponent = 0
                while index < utf8.count {
                    exponent = exponent * 10 + Int(utf8[index] &- UInt8(ascii: "0"))
                    index += 1
                }
                point += exponentSign * exponent
            }
            // Leading zeros move the point left; trailing zeros after the point carry nothing.
            var first = 0
            while first < digits.count - 1, digits[first] == UInt8(ascii: "0") {
                first += 1
                point -= 1
            }
            var end = digits.count
            while end > first + 1, digits[end - 1] == UInt8(ascii: "0") { end -= 1 }
            let significant = digits[first..<end]

            if negative { bytes.append(UInt8(ascii: "-")) }
            if point <= 0 {
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "."))
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -point))
                bytes.append(contentsOf: significant)
            } else if point >= significant.count {
                bytes.append(contentsOf: significant)
                bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: point - significant.count))
            } else {
                let split = significant.startIndex + point
                bytes.append(contentsOf: significant[..<split])
                bytes.append(UInt8(ascii: "."))
                bytes.append(contentsOf: significant[split...])
            }
        }
    }
}
