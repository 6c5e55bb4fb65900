import Foundation

/// Writes a FIT course for Garmin and Wahoo head units: `file_id` (type course), `course`, one `lap`, a timer
/// start `event`, a `record` per point (position, distance along, altitude, time), one `course_point` per cue
/// (its type from the turn, its name the instruction), and a timer stop; little-endian, CRCs right. The unit
/// then announces bikeride's turns.
///
///     let bytes = FITCourseWriter.data(name: "Lake loop", points: line, cues: TurnDetector.cues(along: line.map(\.coordinate)))
///
/// Times: a point's own when every point has one, else laid out at `virtualSpeedMetersPerSecond` from
/// `startTime` (the unit's virtual partner rides at that pace).
public enum FITCourseWriter {
    /// 20 km/h: a pace for the virtual partner of a route without times.
    public static let virtualSpeedMetersPerSecond = 20 / 3.6
    /// Bytes of a course's and a course point's name (the profile's strings are NUL-padded; units show ~15).
    static let nameBytes = 32

    public static func data(
        name: String?, points: [TrackPoint], cues: [Cue], kind: TrackKind? = .ride, startTime: Date = Date(timeIntervalSince1970: 1_577_836_800)
    ) -> [UInt8] {
        var encoder = FITEncoder()
        var distances: [Double] = []
        distances.reserveCapacity(points.count)
        var total = 0.0
        for (index, point) in points.enumerated() {
            if index > 0 { total += points[index - 1].coordinate.distanceMeters(to: point.coordinate) }
            distances.append(total)
        }
        let timed = !points.isEmpty && points.allSatisfy { $0.time != nil }
        let start = FITEncoder.timestamp(timed ? points[0].time!.date : startTime)
        func time(_ index: Int) -> UInt32 {
            if timed { return max(start, FITEncoder.timestamp(points[index].time!.date)) }
            return start &+ UInt32((distances[index] / virtualSpeedMetersPerSecond).rounded())
        }
        func time(atDistance distance: Double) -> UInt32 {
            guard timed, let index = distances.firstIndex(where: { $0 >= distance }) else {
                return start &+ UInt32((max(0, distance) / virtualSpeedMetersPerSecond).rounded())
            }
            return time(index)
        }
        let end = points.isEmpty ? start : time(points.count - 1)

        // file_id: type (enum), manufacturer (uint16: 255, development), product (uint16), time_created (uint32).
        encoder.define(local: 0, global: FITProfile.Message.fileID, fields: [(0, 1, .enumeration), (1, 2, .uint16), (2, 2, .uint16), (4, 4, .uint32)])
        encoder.data(local: 0) { out in
            out.append(UInt8(FITProfile.FileType.course))
            out.appendLittleEndian(UInt16(255))
            out.appendLittleEndian(UInt16(0))
            out.appendLittleEndian(start)
        }
        // course: name (string), sport (enum).
        encoder.define(local: 1, global: FITProfile.Message.course, fields: [(5, UInt8(nameBytes), .string), (4, 1, .enumeration)])
        encoder.data(local: 1) { out in
            out.appendString(name ?? "Route", bytes: nameBytes)
            out.append(FITProfile.sport(of: kind))
        }
        // lap: timestamp, start_time, start and end positions, elapsed and timer time, distance.
        encoder.define(
            local: 2, global: FITProfile.Message.lap,
            fields: [(253, 4, .uint32), (2, 4, .uint32), (3, 4, .sint32), (4, 4, .sint32), (5, 4, .sint32), (6, 4, .sint32), (7, 4, .uint32), (8, 4, .uint32), (9, 4, .uint32)])
        encoder.data(local: 2) { out in
            out.appendLittleEndian(end)
            out.appendLittleEndian(start)
            out.appendPosition(points.first?.coordinate)
            out.appendPosition(points.last?.coordinate)
            let seconds = UInt32(clamping: Int64(end) - Int64(start)) &* 1000
            out.appendLittleEndian(seconds)
            out.appendLittleEndian(seconds)
            out.appendLittleEndian(FITEncoder.scaled(total, 100))
        }
        // event: timestamp, event (timer), event_type (start / stop_all).
        encoder.define(local: 3, global: FITProfile.Message.event, fields: [(253, 4, .uint32), (0, 1, .enumeration), (1, 1, .enumeration)])
        encoder.data(local: 3) { out in
            out.appendLittleEndian(start)
            out.append(contentsOf: [0, 0])
        }
        // record: timestamp, position, distance, altitude (uint16, scale 5, offset 500).
        encoder.define(
            local: 4, global: FITProfile.Message.record,
            fields: [(253, 4, .uint32), (0, 4, .sint32), (1, 4, .sint32), (5, 4, .uint32), (2, 2, .uint16)])
        for (index, point) in points.enumerated() {
            encoder.data(local: 4) { out in
                out.appendLittleEndian(time(index))
                out.appendPosition(point.coordinate)
                out.appendLittleEndian(FITEncoder.scaled(distances[index], 100))
                out.appendLittleEndian(FITEncoder.altitude(point.elevation))
            }
        }
        // course_point: message_index, timestamp, position, distance, type, name.
        encoder.define(
            local: 5, global: FITProfile.Message.coursePoint,
            fields: [(254, 2, .uint16), (1, 4, .uint32), (2, 4, .sint32), (3, 4, .sint32), (4, 4, .uint32), (5, 1, .enumeration), (6, UInt8(nameBytes), .string)])
        for (index, cue) in cues.enumerated() {
            encoder.data(local: 5) { out in
                out.appendLittleEndian(UInt16(truncatingIfNeeded: index))
                out.appendLittleEndian(time(atDistance: cue.distanceMeters))
                out.appendPosition(cue.coordinate)
                out.appendLittleEndian(FITEncoder.scaled(cue.distanceMeters, 100))
                out.append(FITProfile.coursePointType(named: cue.coursePointType) ?? 0)
                out.appendString(CueText.instruction(direction: cue.direction, severity: cue.severity), bytes: nameBytes)
            }
        }
        encoder.data(local: 3) { out in
            out.appendLittleEndian(end)
            out.append(contentsOf: [0, 4])
        }
        return encoder.file()
    }
}

/// Builds the records of a FIT file (little-endian definitions and data messages) and frames them.
struct FITEncoder {
    enum BaseType: UInt8 {
        case enumeration = 0x00, sint32 = 0x85, uint32 = 0x86, uint16 = 0x84, string = 0x07
    }

    private(set) var records: [UInt8] = []

    mutating func define(local: UInt8, global: UInt16, fields: [(number: UInt8, size: UInt8, type: BaseType)]) {
        records += [0x40 | local, 0, 0]
        records.appendLittleEndian(global)
        records.append(UInt8(fields.count))
        for field in fields { records += [field.number, field.size, field.type.rawValue] }
    }

    mutating func data(local: UInt8, _ body: (inout [UInt8]) -> Void) {
        records.append(local)
        body(&records)
    }

    /// The file: a 14-byte header with its CRC, the records, the file CRC.
    func file() -> [UInt8] {
        var bytes: [UInt8] = [14, 0x20]
        bytes.appendLittleEndian(UInt16(2132))  // profile version 21.32
        bytes.appendLittleEndian(UInt32(records.count))
        bytes += Array(".FIT".utf8)
        var headerCRC = FITCRC()
        headerCRC.update(bytes)
        bytes.appendLittleEndian(headerCRC.value)
        bytes += records
        var crc = FITCRC()
        crc.update(bytes)
        bytes.appendLittleEndian(crc.value)
        return bytes
    }

    /// Seconds since the FIT epoch (clamped to the type's range).
    static func timestamp(_ date: Date) -> UInt32 {
        UInt32(clamping: Int64(date.timeIntervalSince1970.rounded()) - FITMessage.epochSecondsSince1970)
    }

    /// `value × scale` as the type's integer, or its invalid value when it does not fit.
    static func scaled(_ value: Double, _ scale: Double) -> UInt32 {
        let scaled = (value * scale).rounded()
        return scaled.isFinite && scaled >= 0 && scaled < 4_294_967_295 ? UInt32(scaled) : 0xFFFF_FFFF
    }

    /// An altitude as `record.altitude` stores it, (m + 500) × 5, or invalid outside −500…12,607 m.
    static func altitude(_ meters: Double?) -> UInt16 {
        guard let meters, meters.isFinite else { return 0xFFFF }
        let value = ((meters + 500) * 5).rounded()
        return value >= 0 && value < 65_535 ? UInt16(value) : 0xFFFF
    }
}

extension [UInt8] {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// A position in semicircles, or the invalid value for none.
    mutating func appendPosition(_ coordinate: Coordinate?) {
        guard let coordinate, coordinate.isValid else {
            appendLittleEndian(Int32(0x7FFF_FFFF))
            appendLittleEndian(Int32(0x7FFF_FFFF))
            return
        }
        appendLittleEndian(Int32(clamping: Int64((coordinate.latitude / FITProfile.degreesPerSemicircle).rounded())))
        appendLittleEndian(Int32(clamping: Int64((coordinate.longitude / FITProfile.degreesPerSemicircle).rounded())))
    }

    /// A string in a field of `bytes` bytes: UTF-8, cut on a character boundary to leave room for the NUL.
    mutating func appendString(_ text: String, bytes: Int) {
        var utf8: [UInt8] = []
        for scalar in text.unicodeScalars {
            let encoded = Array(String(scalar).utf8)
            guard utf8.count + encoded.count <= bytes - 1 else { break }
            utf8 += encoded
        }
        append(contentsOf: utf8)
        append(contentsOf: [UInt8](repeating: 0, count: bytes - utf8.count))
    }
}
