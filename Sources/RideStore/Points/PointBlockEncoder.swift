import Foundation
import RideKit

/// Packs up to `PackedPoints.blockCapacity` points into one compact, lossless block of bytes.
///
/// Layout (format 1), column by column, so that like values sit together and deltas stay small:
///
///     version            1 byte (1)
///     count              varint
///     latitude           number column (always present)
///     longitude          number column (always present)
///     elevation          presence + number column
///     time               presence + time column
///     speed, course, heart rate, cadence, temperature, power
///                        presence + number column each
///     details            side section: the rare fields of the points that have any
///
/// - presence: 0 none of the points has the value, 1 all have it, 2 a bitmap of `count` bits follows.
/// - number column (the values that are present): a byte `d` in 0…9 when every value is exactly
///   `integer / 10^d` (a decimal with at most `d` digits, as GPX files write them), then the integers as
///   zigzag varint deltas; or 255 and the raw IEEE doubles. "Exactly" means the decoded double has the same
///   bits, so `-0.0` and other oddities fall back to raw doubles and nothing is ever rounded.
/// - time column: a byte 0 and the fraction digits `k`, then `seconds·10^k + fraction` as zigzag deltas;
///   or a byte 1 and (zigzag delta of seconds, varint nanoseconds) for times too far out for that; then the
///   fraction digits as written and the UTC offsets, each either one value for the whole block (0, value) or
///   one per time (1, values).
/// - details: a count, then per point with details the index delta, a bit mask of its fields and their
///   values; strings (names, namespaces, `fix` values …) are written once a block and referred to by number.
enum PointBlockEncoder {
    static let version: UInt8 = 1

    static func encode(_ points: ArraySlice<TrackPoint>) -> Data {
        var writer = ByteWriter(capacity: points.count * 12 + 64)
        writer.byte(version)
        writer.varint(points.count)
        let count = points.count
        var numbers: [Double] = []
        numbers.reserveCapacity(count)

        for point in points { numbers.append(point.latitude) }
        writeNumbers(numbers, to: &writer)
        numbers.removeAll(keepingCapacity: true)
        for point in points { numbers.append(point.longitude) }
        writeNumbers(numbers, to: &writer)

        writeOptional(points, \.elevation, numbers: &numbers, to: &writer)
        writeTimes(points, to: &writer)
        writeOptional(points, \.speedMetersPerSecond, numbers: &numbers, to: &writer)
        writeOptional(points, \.courseDegrees, numbers: &numbers, to: &writer)
        writeOptional(points, \.heartRate, numbers: &numbers, to: &writer)
        writeOptional(points, \.cadence, numbers: &numbers, to: &writer)
        writeOptional(points, \.temperatureCelsius, numbers: &numbers, to: &writer)
        writeOptional(points, \.powerWatts, numbers: &numbers, to: &writer)
        writeDetails(points, to: &writer)
        return Data(writer.bytes)
    }

    // MARK: Presence

    /// Writes which points have a value; returns whether any has.
    private static func writePresence(_ points: ArraySlice<TrackPoint>, _ has: (TrackPoint) -> Bool, to writer: inout ByteWriter) -> Bool {
        var present = 0
        for point in points where has(point) { present += 1 }
        if present == 0 {
            writer.byte(0)
            return false
        }
        if present == points.count {
            writer.byte(1)
            return true
        }
        writer.byte(2)
        var bits: UInt8 = 0
        var used = 0
        for point in points {
            if has(point) { bits |= 1 << UInt8(used) }
            used += 1
            if used == 8 {
                writer.byte(bits)
                bits = 0
                used = 0
            }
        }
        if used > 0 { writer.byte(bits) }
        return true
    }

    @inline(__always) private static func writeOptional(
        _ points: ArraySlice<TrackPoint>, _ field: KeyPath<TrackPoint, Double?>, numbers: inout [Double], to writer: inout ByteWriter
    ) {
        numbers.removeAll(keepingCapacity: true)
        for point in points { if let value = point[keyPath: field] { numbers.append(value) } }
        if numbers.isEmpty {
            writer.byte(0)
            return
        }
        if numbers.count == points.count {
            writer.byte(1)
        } else {
            _ = writePresence(points, { $0[keyPath: field] != nil }, to: &writer)
        }
        writeNumbers(numbers, to: &writer)
    }

    // MARK: Numbers

    /// Powers of ten that are exact doubles.
    static let powersOfTen: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]
    /// Scaled values must stay where every integer is an exact double.
    static let exactIntegerLimit = 9_007_199_254_740_992.0

    /// The integer `value · 10^digits` when it decodes back to exactly `value`.
    @inline(__always) static func scaled(_ value: Double, digits: Int) -> Int64? {
        let power = powersOfTen[digits]
        let product = (value * power).rounded()
        guard abs(product) < exactIntegerLimit else { return nil }
        let integer = Int64(product)
        return (Double(integer) / power).bitPattern == value.bitPattern ? integer : nil
    }

    /// The fewest decimal digits that hold every value exactly, or nil.
    static func decimalDigits(_ values: [Double]) -> Int? {
        var digits = 0
        for value in values {
            while scaled(value, digits: digits) == nil {
                digits += 1
                if digits > 9 { return nil }
            }
        }
        return digits
    }

    static func writeNumbers(_ values: [Double], to writer: inout ByteWriter) {
        guard let digits = decimalDigits(values) else {
            writer.byte(255)
            for value in values { writer.rawDouble(value) }
            return
        }
        writer.byte(UInt8(digits))
        var previous: Int64 = 0
        for value in values {
            let integer = scaled(value, digits: digits)!
            writer.zigzag(integer &- previous)
            previous = integer
        }
    }

    /// One number, with its own digits (used in the details section).
    static func writeNumber(_ value: Double, to writer: inout ByteWriter) {
        for digits in 0...9 {
            if let integer = scaled(value, digits: digits) {
                writer.byte(UInt8(digits))
                writer.zigzag(integer)
                return
            }
        }
        writer.byte(255)
        writer.rawDouble(value)
    }

    // MARK: Times

    /// The offset as one integer: the low two bits say which case (0 none, 1 `Z`, 2 minutes), the rest the minutes.
    static func offsetCode(_ offset: GPXTime.UTCOffset) -> Int64 {
        switch offset {
        case .unspecified: return 0
        case .utc: return 1
        case .minutes(let minutes): return (Int64(minutes) << 2) | 2
        }
    }

    private static func writeTimes(_ points: ArraySlice<TrackPoint>, to writer: inout ByteWriter) {
        var times: [GPXTime] = []
        times.reserveCapacity(points.count)
        for point in points { if let time = point.time { times.append(time) } }
        if times.isEmpty {
            writer.byte(0)
            return
        }
        if times.count == points.count {
            writer.byte(1)
        } else {
            _ = writePresence(points, { $0.time != nil }, to: &writer)
        }

        // The fewest fraction digits that hold every nanosecond value, at least the digits written.
        var digits = 0
        for time in times {
            digits = max(digits, min(9, max(0, Int(time.fractionDigits))))
            while digits < 9, Int64(time.nanoseconds) % Int64(powersOfTen[9 - digits]) != 0 { digits += 1 }
        }
        let scale = Int64(powersOfTen[digits])
        let limit = (Int64(1) << 61) / scale
        let validNanoseconds = times.allSatisfy { (0..<1_000_000_000).contains($0.nanoseconds) }
        if validNanoseconds, times.allSatisfy({ abs($0.secondsSince1970) < limit }) {
            writer.byte(0)
            writer.byte(UInt8(digits))
            let divisor = Int64(powersOfTen[9 - digits])
            var previous: Int64 = 0
            for time in times {
                let value = time.secondsSince1970 * scale + Int64(time.nanoseconds) / divisor
                writer.zigzag(value &- previous)
                previous = value
            }
        } else {
            writer.byte(1)
            var previous: Int64 = 0
            for time in times {
                writer.zigzag(time.secondsSince1970 &- previous)
                previous = time.secondsSince1970
                writer.zigzag(Int64(time.nanoseconds))
            }
        }

        let firstDigits = times[0].fractionDigits
        if times.allSatisfy({ $0.fractionDigits == firstDigits }) {
            writer.byte(0)
            writer.zigzag(Int64(firstDigits))
        } else {
            writer.byte(1)
            for time in times { writer.zigzag(Int64(time.fractionDigits)) }
        }
        let firstOffset = times[0].offset
        if times.allSatisfy({ $0.offset == firstOffset }) {
            writer.byte(0)
            writer.zigzag(offsetCode(firstOffset))
        } else {
            writer.byte(1)
            for time in times { writer.zigzag(offsetCode(time.offset)) }
        }
    }

    // MARK: Details

    /// Bits of the details mask, in the order the values follow.
    enum DetailField: Int, CaseIterable {
        case magneticVariation, geoidHeight, name, comment, description, source, links, symbol, type, fix
        case satellites, horizontalDilution, verticalDilution, positionDilution, ageOfDGPSData, dgpsStationID
        case waterTemperature, depth, extensions

        var bit: UInt64 { 1 << UInt64(rawValue) }
    }

    private static func writeDetails(_ points: ArraySlice<TrackPoint>, to writer: inout ByteWriter) {
        var withDetails = 0
        for point in points where point.hasDetails { withDetails += 1 }
        writer.varint(withDetails)
        guard withDetails > 0 else { return }
        var previousIndex = 0
        for (index, point) in zip(0..., points) where point.hasDetails {
            writer.varint(index - previousIndex)
            previousIndex = index
            var mask: UInt64 = 0
            func mark(_ present: Bool, _ field: DetailField) { if present { mask |= field.bit } }
            mark(point.magneticVariation != nil, .magneticVariation)
            mark(point.geoidHeight != nil, .geoidHeight)
            mark(point.name != nil, .name)
            mark(point.comment != nil, .comment)
            mark(point.description != nil, .description)
            mark(point.source != nil, .source)
            mark(!point.links.isEmpty, .links)
            mark(point.symbol != nil, .symbol)
            mark(point.type != nil, .type)
            mark(point.fix != nil, .fix)
            mark(point.satellites != nil, .satellites)
            mark(point.horizontalDilution != nil, .horizontalDilution)
            mark(point.verticalDilution != nil, .verticalDilution)
            mark(point.positionDilution != nil, .positionDilution)
            mark(point.ageOfDGPSDataSeconds != nil, .ageOfDGPSData)
            mark(point.dgpsStationID != nil, .dgpsStationID)
            mark(point.waterTemperatureCelsius != nil, .waterTemperature)
            mark(point.depthMeters != nil, .depth)
            mark(!point.extensions.isEmpty, .extensions)
            writer.varint(mask)
            if let value = point.magneticVariation { writeNumber(value, to: &writer) }
            if let value = point.geoidHeight { writeNumber(value, to: &writer) }
            if let value = point.name { writer.string(value) }
            if let value = point.comment { writer.string(value) }
            if let value = point.description { writer.string(value) }
            if let value = point.source { writer.string(value) }
            if !point.links.isEmpty { writeLinks(point.links, to: &writer) }
            if let value = point.symbol { writer.string(value) }
            if let value = point.type { writer.string(value) }
            if let value = point.fix { writer.string(value) }
            if let value = point.satellites { writer.zigzag(Int64(value)) }
            if let value = point.horizontalDilution { writeNumber(value, to: &writer) }
            if let value = point.verticalDilution { writeNumber(value, to: &writer) }
            if let value = point.positionDilution { writeNumber(value, to: &writer) }
            if let value = point.ageOfDGPSDataSeconds { writeNumber(value, to: &writer) }
            if let value = point.dgpsStationID { writer.zigzag(Int64(value)) }
            if let value = point.waterTemperatureCelsius { writeNumber(value, to: &writer) }
            if let value = point.depthMeters { writeNumber(value, to: &writer) }
            if !point.extensions.isEmpty { writeElements(point.extensions, to: &writer) }
        }
    }

    static func writeLinks(_ links: [GPXLink], to writer: inout ByteWriter) {
        writer.varint(links.count)
        for link in links {
            writer.string(link.href)
            writer.optionalString(link.text)
            writer.optionalString(link.type)
        }
    }

    static func writeElements(_ elements: [XMLElementNode], to writer: inout ByteWriter) {
        writer.varint(elements.count)
        for element in elements { writeElement(element, to: &writer) }
    }

    static func writeElement(_ element: XMLElementNode, to writer: inout ByteWriter) {
        writer.string(element.namespace)
        writer.string(element.localName)
        writer.optionalString(element.prefix)
        writer.varint(element.attributes.count)
        for attribute in element.attributes {
            writer.string(attribute.namespace)
            writer.string(attribute.localName)
            writer.optionalString(attribute.prefix)
            writer.string(attribute.value)
        }
        writer.varint(element.children.count)
        for child in element.children {
            switch child {
            case .text(let text):
                writer.byte(0)
                writer.string(text)
            case .element(let child):
                writer.byte(1)
                writeElement(child, to: &writer)
            }
        }
    }
}
