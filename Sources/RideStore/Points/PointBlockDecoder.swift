import Foundation
import RideKit

/// Reads the blocks `PointBlockEncoder` writes (see there for the layout).
enum PointBlockDecoder {
    /// Appends the points of one block to `points`.
    static func decode(_ data: Data, into points: inout [TrackPoint]) throws(PointBlockError) {
        let result: Result<Void, PointBlockError> = data.withUnsafeBytes { buffer in
            do throws(PointBlockError) {
                var reader = ByteReader(buffer)
                try decode(&reader, into: &points)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    /// The number of points a block holds, read from its header.
    static func count(of data: Data) throws(PointBlockError) -> Int {
        let result: Result<Int, PointBlockError> = data.withUnsafeBytes { buffer in
            do throws(PointBlockError) {
                var reader = ByteReader(buffer)
                let version = try reader.byte()
                guard version == PointBlockEncoder.version else { throw .unsupportedVersion(version) }
                return .success(try reader.count(limit: PackedPoints.maximumBlockCount))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func decode(_ reader: inout ByteReader, into points: inout [TrackPoint]) throws(PointBlockError) {
        let version = try reader.byte()
        guard version == PointBlockEncoder.version else { throw .unsupportedVersion(version) }
        let count = try reader.count(limit: PackedPoints.maximumBlockCount)
        var latitudes = [Double](repeating: 0, count: count)
        var longitudes = [Double](repeating: 0, count: count)
        try readNumbers(&reader, into: &latitudes)
        try readNumbers(&reader, into: &longitudes)
        let elevations = try readOptional(&reader, count: count)
        let times = try readTimes(&reader, count: count)
        let speeds = try readOptional(&reader, count: count)
        let courses = try readOptional(&reader, count: count)
        let heartRates = try readOptional(&reader, count: count)
        let cadences = try readOptional(&reader, count: count)
        let temperatures = try readOptional(&reader, count: count)
        let powers = try readOptional(&reader, count: count)

        let start = points.count
        points.reserveCapacity(start + count)
        for index in 0..<count {
            points.append(
                TrackPoint(
                    latitude: latitudes[index], longitude: longitudes[index], elevation: elevations?.value(at: index),
                    time: times?[index], speedMetersPerSecond: speeds?.value(at: index), courseDegrees: courses?.value(at: index),
                    heartRate: heartRates?.value(at: index), cadence: cadences?.value(at: index),
                    temperatureCelsius: temperatures?.value(at: index), powerWatts: powers?.value(at: index)))
        }
        try readDetails(&reader, into: &points, start: start, count: count)
        guard reader.isAtEnd else { throw .corrupt("bytes left over after the points") }
    }

    // MARK: Presence and numbers

    /// Which of `count` points have the value: nil for none, an empty array for all, else one flag each.
    private static func readPresence(_ reader: inout ByteReader, count: Int) throws(PointBlockError) -> [Bool]? {
        switch try reader.byte() {
        case 0: return nil
        case 1: return []
        case 2:
            var flags = [Bool](repeating: false, count: count)
            var index = 0
            while index < count {
                let bits = try reader.byte()
                for bit in 0..<8 where index + bit < count { flags[index + bit] = bits & (1 << UInt8(bit)) != 0 }
                index += 8
            }
            return flags
        case let mode: throw .corrupt("presence mode \(mode)")
        }
    }

    private static func readNumbers(_ reader: inout ByteReader, into values: inout [Double]) throws(PointBlockError) {
        let digits = try reader.byte()
        if digits == 255 {
            for index in values.indices { values[index] = try reader.rawDouble() }
            return
        }
        guard digits <= 9 else { throw .corrupt("number digits \(digits)") }
        let power = PointBlockEncoder.powersOfTen[Int(digits)]
        var integer: Int64 = 0
        for index in values.indices {
            integer = integer &+ (try reader.zigzag())
            values[index] = Double(integer) / power
        }
    }

    static func readNumber(_ reader: inout ByteReader) throws(PointBlockError) -> Double {
        let digits = try reader.byte()
        if digits == 255 { return try reader.rawDouble() }
        guard digits <= 9 else { throw .corrupt("number digits \(digits)") }
        return Double(try reader.zigzag()) / PointBlockEncoder.powersOfTen[Int(digits)]
    }

    /// The values of one optional field in a block: one per point when all have it, else with a flag per point.
    struct OptionalColumn {
        /// One value per point (all present), or one per present point in order.
        var values: [Double]
        /// Nil when every point has a value; else, for each point, the index of its value or -1.
        var slots: [Int32]?

        @inline(__always) func value(at index: Int) -> Double? {
            guard let slots else { return values[index] }
            let slot = slots[index]
            return slot < 0 ? nil : values[Int(slot)]
        }
    }

    private static func readOptional(_ reader: inout ByteReader, count: Int) throws(PointBlockError) -> OptionalColumn? {
        guard let presence = try readPresence(&reader, count: count) else { return nil }
        if presence.isEmpty {
            var values = [Double](repeating: 0, count: count)
            try readNumbers(&reader, into: &values)
            return OptionalColumn(values: values, slots: nil)
        }
        var slots = [Int32](repeating: -1, count: count)
        var present = 0
        for index in 0..<count where presence[index] {
            slots[index] = Int32(present)
            present += 1
        }
        var values = [Double](repeating: 0, count: present)
        try readNumbers(&reader, into: &values)
        return OptionalColumn(values: values, slots: slots)
    }

    // MARK: Times

    static func offset(code: Int64) throws(PointBlockError) -> GPXTime.UTCOffset {
        switch code & 3 {
        case 0 where code == 0: return .unspecified
        case 1 where code == 1: return .utc
        case 2:
            let minutes = code >> 2
            guard let value = Int(exactly: minutes) else { throw .corrupt("UTC offset \(minutes)") }
            return .minutes(value)
        default: throw .corrupt("UTC offset code \(code)")
        }
    }

    private static func readTimes(_ reader: inout ByteReader, count: Int) throws(PointBlockError) -> [GPXTime?]? {
        guard let presence = try readPresence(&reader, count: count) else { return nil }
        let present = presence.isEmpty ? count : presence.lazy.filter { $0 }.count
        var seconds = [Int64](repeating: 0, count: present)
        var nanoseconds = [Int32](repeating: 0, count: present)
        switch try reader.byte() {
        case 0:
            let digits = try reader.byte()
            guard digits <= 9 else { throw .corrupt("time digits \(digits)") }
            let scale = Int64(PointBlockEncoder.powersOfTen[Int(digits)])
            let multiplier = Int64(PointBlockEncoder.powersOfTen[9 - Int(digits)])
            var value: Int64 = 0
            for index in 0..<present {
                value = value &+ (try reader.zigzag())
                var whole = value / scale
                var fraction = value % scale
                if fraction < 0 {
                    whole -= 1
                    fraction += scale
                }
                seconds[index] = whole
                nanoseconds[index] = Int32(truncatingIfNeeded: fraction * multiplier)
            }
        case 1:
            var previous: Int64 = 0
            for index in 0..<present {
                previous = previous &+ (try reader.zigzag())
                seconds[index] = previous
                nanoseconds[index] = Int32(truncatingIfNeeded: try reader.zigzag())
            }
        case let mode: throw .corrupt("time mode \(mode)")
        }
        var digits = [Int8](repeating: 0, count: present)
        switch try reader.byte() {
        case 0:
            let value = Int8(truncatingIfNeeded: try reader.zigzag())
            for index in 0..<present { digits[index] = value }
        case 1:
            for index in 0..<present { digits[index] = Int8(truncatingIfNeeded: try reader.zigzag()) }
        case let mode: throw .corrupt("fraction digits mode \(mode)")
        }
        var offsets = [GPXTime.UTCOffset](repeating: .utc, count: present)
        switch try reader.byte() {
        case 0:
            let value = try offset(code: try reader.zigzag())
            for index in 0..<present { offsets[index] = value }
        case 1:
            for index in 0..<present { offsets[index] = try offset(code: try reader.zigzag()) }
        case let mode: throw .corrupt("offset mode \(mode)")
        }
        var result = [GPXTime?](repeating: nil, count: count)
        var next = 0
        for index in 0..<count where presence.isEmpty || presence[index] {
            result[index] = GPXTime(
                secondsSince1970: seconds[next], nanoseconds: nanoseconds[next], offset: offsets[next],
                fractionDigits: digits[next])
            next += 1
        }
        return result
    }

    // MARK: Details

    private static func readDetails(
        _ reader: inout ByteReader, into points: inout [TrackPoint], start: Int, count: Int
    ) throws(PointBlockError) {
        let entries = try reader.count(limit: count)
        var index = 0
        for entry in 0..<entries {
            let delta = try reader.count(limit: count)
            index += delta
            guard index < count, entry == 0 || delta > 0 else { throw .corrupt("details of point \(index)") }
            let mask = try reader.varint()
            typealias Field = PointBlockEncoder.DetailField
            func has(_ field: Field) -> Bool { mask & field.bit != 0 }
            guard mask >> UInt64(Field.allCases.count) == 0 else { throw .corrupt("details mask \(mask)") }
            var point = points[start + index]
            if has(.magneticVariation) { point.magneticVariation = try readNumber(&reader) }
            if has(.geoidHeight) { point.geoidHeight = try readNumber(&reader) }
            if has(.name) { point.name = try reader.string() }
            if has(.comment) { point.comment = try reader.string() }
            if has(.description) { point.description = try reader.string() }
            if has(.source) { point.source = try reader.string() }
            if has(.links) { point.links = try readLinks(&reader) }
            if has(.symbol) { point.symbol = try reader.string() }
            if has(.type) { point.type = try reader.string() }
            if has(.fix) { point.fix = try reader.string() }
            if has(.satellites) { point.satellites = try int(&reader) }
            if has(.horizontalDilution) { point.horizontalDilution = try readNumber(&reader) }
            if has(.verticalDilution) { point.verticalDilution = try readNumber(&reader) }
            if has(.positionDilution) { point.positionDilution = try readNumber(&reader) }
            if has(.ageOfDGPSData) { point.ageOfDGPSDataSeconds = try readNumber(&reader) }
            if has(.dgpsStationID) { point.dgpsStationID = try int(&reader) }
            if has(.waterTemperature) { point.waterTemperatureCelsius = try readNumber(&reader) }
            if has(.depth) { point.depthMeters = try readNumber(&reader) }
            if has(.extensions) { point.extensions = try readElements(&reader, depth: 0) }
            points[start + index] = point
        }
    }

    private static func int(_ reader: inout ByteReader) throws(PointBlockError) -> Int {
        let value = try reader.zigzag()
        guard let result = Int(exactly: value) else { throw .corrupt("integer \(value)") }
        return result
    }

    static func readLinks(_ reader: inout ByteReader) throws(PointBlockError) -> [GPXLink] {
        let count = try reader.count(limit: 1 << 20)
        var links: [GPXLink] = []
        for _ in 0..<count {
            let href = try reader.string()
            links.append(GPXLink(href: href, text: try reader.optionalString(), type: try reader.optionalString()))
        }
        return links
    }

    /// Extension trees are at most 1,024 levels deep (the reader's limit), so recursion is bounded.
    static func readElements(_ reader: inout ByteReader, depth: Int) throws(PointBlockError) -> [XMLElementNode] {
        let count = try reader.count(limit: 1 << 24)
        var elements: [XMLElementNode] = []
        for _ in 0..<count { elements.append(try readElement(&reader, depth: depth)) }
        return elements
    }

    static func readElement(_ reader: inout ByteReader, depth: Int) throws(PointBlockError) -> XMLElementNode {
        guard depth < 2048 else { throw .corrupt("extension nesting") }
        let namespace = try reader.string()
        let localName = try reader.string()
        let prefix = try reader.optionalString()
        let attributeCount = try reader.count(limit: 1 << 24)
        var attributes: [XMLAttribute] = []
        for _ in 0..<attributeCount {
            let namespace = try reader.string()
            let localName = try reader.string()
            let prefix = try reader.optionalString()
            attributes.append(XMLAttribute(namespace: namespace, localName: localName, prefix: prefix, value: try reader.string()))
        }
        let childCount = try reader.count(limit: 1 << 24)
        var children: [XMLNode] = []
        for _ in 0..<childCount {
            switch try reader.byte() {
            case 0: children.append(.text(try reader.string()))
            case 1: children.append(.element(try readElement(&reader, depth: depth + 1)))
            case let tag: throw .corrupt("extension child \(tag)")
            }
        }
        return XMLElementNode(namespace: namespace, localName: localName, prefix: prefix, attributes: attributes, children: children)
    }
}
