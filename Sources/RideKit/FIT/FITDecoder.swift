/// The FIT protocol's framing (DESIGN 4.7; Garmin's FIT SDK is the reference): file headers, definition and data
/// messages, compressed-timestamp headers, developer fields, CRCs and files chained one after the other. It knows
/// nothing of what messages mean: each data message is handed to a closure as a `FITMessage`, whose fields are
/// read on demand (`FITReader` turns them into a track).
///
///     let report = try FITDecoder.decode(bytes, lenient: false) { message in
///         if message.globalNumber == 20, let heartRate = message.unsigned(3) { … }
///     }
///
/// Every byte is looked at a bounded number of times (time linear in the file, whatever it holds); the only
/// memory kept is the 16 current definitions. Strict mode refuses any damage with its byte offset; lenient mode
/// hands over what precedes the damage and says what it left out in `warnings`.
public enum FITDecoder {
    /// What a decode went through.
    public struct Report: Sendable, Hashable {
        /// FIT files read (more than one when several are chained in one file).
        public var files = 0
        public var dataMessages = 0
        public var definitionMessages = 0
        /// Lenient mode: what was wrong and what was left out.
        public var warnings: [String] = []
    }

    /// The smallest header (FIT 1.0, without its own CRC).
    static let minimumHeaderSize = 12

    /// Decodes every FIT file in `bytes`, in order, calling `body` with each data message (valid only during the
    /// call). Throws `FITError` (strict mode: any damage; lenient: a start that is no FIT file at all), or what
    /// `body` throws.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, lenient: Bool = false, _ body: (borrowing FITMessage) throws -> Void
    ) throws -> Report {
        var report = Report()
        var position = 0
        while position < bytes.count {
            let remaining = bytes.count - position
            if report.files > 0, remaining < minimumHeaderSize {
                if lenient {
                    report.warnings.append("\(remaining) bytes after the last FIT file were left out")
                    return report
                }
                throw FITError(.truncated(expectedBytes: minimumHeaderSize - remaining), offset: bytes.count)
            }
            let header: FileHeader
            do {
                header = try FileHeader(bytes, at: position)
            } catch {
                // A chained file whose header is damaged: lenient keeps the files before it.
                guard lenient, report.files > 0 else { throw error }
                report.warnings.append("\(error.description); the \(remaining) bytes from there were left out")
                return report
            }
            if let problem = header.crcProblem {
                if !lenient { throw problem }
                report.warnings.append(problem.description)
            }
            var dataEnd = position + header.size + header.dataSize
            var crcPresent = true
            if header.dataSize == 0 || dataEnd + 2 > bytes.count {
                // A file still being written (data size 0), or cut short.
                let error = FITError(
                    .truncated(expectedBytes: header.dataSize == 0 ? 2 : dataEnd + 2 - bytes.count), offset: bytes.count)
                guard lenient else { throw error }
                report.warnings.append(
                    header.dataSize == 0
                        ? "FIT, byte \(position + 4): the header gives no data size (a file not finished); read to the end of the file"
                        : "\(error.description); what it holds was read")
                dataEnd = bytes.count
                crcPresent = false
            }
            if crcPresent {
                var crc = FITCRC()
                crc.update(UnsafeRawBufferPointer(rebasing: bytes[position..<dataEnd]))
                let stored = UInt16(bytes[dataEnd]) | UInt16(bytes[dataEnd + 1]) << 8
                if stored != crc.value {
                    let error = FITError(.fileCRC(stored: stored, computed: crc.value), offset: dataEnd)
                    if !lenient { throw error }
                    report.warnings.append(error.description)
                }
            }
            var records = RecordDecoder()
            do {
                try records.decode(bytes, from: position + header.size, to: dataEnd, report: &report, body)
            } catch let error as FITError {
                guard lenient else { throw error }
                report.warnings.append("\(error.description); the \(bytes.count - error.offset) bytes from there were left out")
                report.files += 1
                return report
            }
            report.files += 1
            position = crcPresent ? dataEnd + 2 : dataEnd
        }
        if report.files == 0 { throw FITError(.notFIT("the file is empty"), offset: 0) }
        return report
    }

    /// A FIT file header: its size (12 or 14), the size of its records, and whether its own CRC holds.
    struct FileHeader {
        var size: Int
        var dataSize: Int
        var crcProblem: FITError?

        init(_ bytes: UnsafeRawBufferPointer, at position: Int) throws(FITError) {
            let remaining = bytes.count - position
            guard remaining >= minimumHeaderSize else {
                throw FITError(.truncated(expectedBytes: minimumHeaderSize - remaining), offset: bytes.count)
            }
            size = Int(bytes[position])
            guard bytes[position + 8] == UInt8(ascii: "."), bytes[position + 9] == UInt8(ascii: "F"),
                bytes[position + 10] == UInt8(ascii: "I"), bytes[position + 11] == UInt8(ascii: "T")
            else { throw FITError(.notFIT("no .FIT signature in the header"), offset: position + 8) }
            guard size == 12 || size == 14 else {
                throw FITError(.notFIT("a header of \(size) bytes (12 or 14 expected)"), offset: position)
            }
            guard remaining >= size else { throw FITError(.truncated(expectedBytes: size - remaining), offset: bytes.count) }
            dataSize = Int(bytes.loadUnaligned(fromByteOffset: position + 4, as: UInt32.self).littleEndian)
            if size == 14 {
                let stored = UInt16(bytes[position + 12]) | UInt16(bytes[position + 13]) << 8
                var crc = FITCRC()
                crc.update(UnsafeRawBufferPointer(rebasing: bytes[position..<position + 12]))
                // 0: the writer did not compute one, which the protocol allows.
                if stored != 0, stored != crc.value {
                    crcProblem = FITError(.headerCRC(stored: stored, computed: crc.value), offset: position + 12)
                }
            }
        }
    }
}

/// Where one field of a definition lies in its data messages.
struct FITFieldLayout: Sendable, Hashable {
    var number: UInt8
    var offset: Int
    var size: Int
    /// The base type's number (the low five bits of the definition's byte).
    var baseType: UInt8
}

/// A definition message: the layout of the data messages of one local type, until it is defined again.
struct FITDefinition: Sendable {
    var globalNumber: UInt16 = 0
    var bigEndian = false
    var fields: [FITFieldLayout] = []
    /// Bytes of a data message: its fields and its developer fields.
    var messageSize = 0
    /// Field number → index in `fields` + 1 (0: absent), for reads by number in constant time.
    var index = [UInt8](repeating: 0, count: 256)
    /// Where the `timestamp` field (253) is, if the message has one as a 4-byte integer.
    var timestampOffset: Int?
    var defined = false
}

/// Decodes the records of one FIT file: its 16 local definitions and the last timestamp, for compressed
/// timestamp headers.
struct RecordDecoder {
    var definitions = [FITDefinition](repeating: FITDefinition(), count: 16)
    var lastTimestamp: UInt32?

    /// The profile's `timestamp`, the same number in every message that has one.
    static let timestampField: UInt8 = 253

    mutating func decode(
        _ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int, report: inout FITDecoder.Report,
        _ body: (borrowing FITMessage) throws -> Void
    ) throws {
        var position = start
        while position < end {
            let header = bytes[position]
            if header & 0x80 != 0 {
                // Compressed timestamp header: local type 0–3, and the time's low five bits.
                let local = Int((header >> 5) & 0x03)
                let offset = UInt32(header & 0x1F)
                var timestamp = offset
                if let last = lastTimestamp {
                    timestamp = (last & ~0x1F) + offset
                    if offset < last & 0x1F { timestamp &+= 0x20 }
                }
                lastTimestamp = timestamp
                position = try data(bytes, local: local, at: position, end: end, timestamp: timestamp, report: &report, body)
            } else if header & 0x40 != 0 {
                position = try define(bytes, header: header, at: position, end: end)
                report.definitionMessages += 1
            } else {
                position = try data(bytes, local: Int(header & 0x0F), at: position, end: end, timestamp: nil, report: &report, body)
            }
        }
    }

    /// Reads a definition message at `position` (its header byte); returns where the next record starts.
    private mutating func define(_ bytes: UnsafeRawBufferPointer, header: UInt8, at position: Int, end: Int) throws(FITError) -> Int {
        let local = Int(header & 0x0F)
        let hasDeveloperFields = header & 0x20 != 0
        guard position + 6 <= end else { throw FITError(.truncated(expectedBytes: position + 6 - end), offset: end) }
        let architecture = bytes[position + 2]
        guard architecture <= 1 else {
            throw FITError(.badDefinition("architecture \(architecture) (0 or 1 expected)"), offset: position + 2)
        }
        let bigEndian = architecture == 1
        let rawGlobal = bytes.loadUnaligned(fromByteOffset: position + 3, as: UInt16.self)
        let count = Int(bytes[position + 5])
        var next = position + 6 + 3 * count
        guard next <= end else { throw FITError(.truncated(expectedBytes: next - end), offset: end) }
        var developerCount = 0
        if hasDeveloperFields {
            guard next + 1 <= end else { throw FITError(.truncated(expectedBytes: next + 1 - end), offset: end) }
            developerCount = Int(bytes[next])
            next += 1 + 3 * developerCount
            guard next <= end else { throw FITError(.truncated(expectedBytes: next - end), offset: end) }
        }

        var definition = definitions[local]
        // Clear only what the old layout set: a file that redefines a type at every message stays linear.
        for field in definition.fields { definition.index[Int(field.number)] = 0 }
        definition.fields.removeAll(keepingCapacity: true)
        definition.globalNumber = bigEndian ? UInt16(bigEndian: rawGlobal) : UInt16(littleEndian: rawGlobal)
        definition.bigEndian = bigEndian
        definition.timestampOffset = nil
        var offset = 0
        var field = position + 6
        for _ in 0..<count {
            let number = bytes[field]
            let size = Int(bytes[field + 1])
            let baseType = bytes[field + 2] & 0x1F
            // A number given twice: the first one is read (the profile never repeats one).
            if definition.index[Int(number)] == 0 {
                definition.fields.append(FITFieldLayout(number: number, offset: offset, size: size, baseType: baseType))
                definition.index[Int(number)] = UInt8(truncatingIfNeeded: definition.fields.count)
                if number == Self.timestampField, size == 4 { definition.timestampOffset = offset }
            }
            offset += size
            field += 3
        }
        // Developer fields (after their count) are skipped by their size, whatever describes them.
        if hasDeveloperFields { field += 1 }
        for _ in 0..<developerCount {
            offset += Int(bytes[field + 1])
            field += 3
        }
        definition.messageSize = offset
        definition.defined = true
        definitions[local] = definition
        return next
    }

    /// Hands the data message at `position` (its header byte) to `body`; returns where the next record starts.
    private mutating func data(
        _ bytes: UnsafeRawBufferPointer, local: Int, at position: Int, end: Int, timestamp compressed: UInt32?,
        report: inout FITDecoder.Report, _ body: (borrowing FITMessage) throws -> Void
    ) throws -> Int {
        guard definitions[local].defined else { throw FITError(.undefinedLocalType(UInt8(local)), offset: position) }
        let size = definitions[local].messageSize
        let start = position + 1
        guard start + size <= end else { throw FITError(.truncated(expectedBytes: start + size - end), offset: end) }
        let content = UnsafeRawBufferPointer(rebasing: bytes[start..<start + size])
        var timestamp = compressed
        if let offset = definitions[local].timestampOffset {
            let raw = content.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            let value = definitions[local].bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
            if value != 0xFFFF_FFFF {
                timestamp = value
                lastTimestamp = value
            }
        }
        report.dataMessages += 1
        try body(FITMessage(definition: definitions[local], content: content, timestamp: timestamp))
        return start + size
    }
}

/// One data message, read in place: its global message number (the profile's `mesg_num`), its timestamp
/// (its own `timestamp` field or the compressed header's), and its fields by number. A field the message does
/// not have, or whose value is the base type's "invalid" sentinel, reads as nil.
public struct FITMessage: ~Copyable {
    let definition: FITDefinition
    let content: UnsafeRawBufferPointer
    /// Seconds since the FIT epoch (1989-12-31T00:00:00Z), or nil when neither the message nor a compressed
    /// header gives one.
    public let timestamp: UInt32?

    init(definition: FITDefinition, content: UnsafeRawBufferPointer, timestamp: UInt32?) {
        self.definition = definition
        self.content = content
        self.timestamp = timestamp
    }

    public var globalNumber: UInt16 { definition.globalNumber }

    /// Seconds from 1970 to the FIT epoch, 1989-12-31T00:00:00Z.
    public static let epochSecondsSince1970: Int64 = 631_065_600

    private func layout(_ number: UInt8) -> FITFieldLayout? {
        let index = definition.index[Int(number)]
        return index == 0 ? nil : definition.fields[Int(index) - 1]
    }

    public func has(_ number: UInt8) -> Bool { definition.index[Int(number)] != 0 }

    /// Bytes of each base type (by its number): enum, sint8, uint8, sint16, uint16, sint32, uint32, string,
    /// float32, float64, uint8z, uint16z, uint32z, byte, sint64, uint64, uint64z.
    static let baseTypeSizes: [Int] = [1, 1, 1, 2, 2, 4, 4, 1, 4, 8, 1, 2, 4, 1, 8, 8, 8]

    /// The first element of an integer field, as its base type says, or nil (absent, invalid, or not an
    /// integer type, or a size that is not a whole number of elements: a misaligned field).
    public func integer(_ number: UInt8) -> Int64? {
        guard let field = layout(number), field.baseType < Self.baseTypeSizes.count else { return nil }
        let width = Self.baseTypeSizes[Int(field.baseType)]
        guard field.size >= width, field.size % width == 0 else { return nil }
        let big = definition.bigEndian
        switch field.baseType {
        case 0, 2, 13:  // enum, uint8, byte
            let value = content[field.offset]
            return value == 0xFF ? nil : Int64(value)
        case 10:  // uint8z
            let value = content[field.offset]
            return value == 0 ? nil : Int64(value)
        case 1:  // sint8
            let value = Int8(bitPattern: content[field.offset])
            return value == 0x7F ? nil : Int64(value)
        case 3:
            let value = Int16(bitPattern: load(UInt16.self, field.offset, big))
            return value == 0x7FFF ? nil : Int64(value)
        case 4:
            let value = load(UInt16.self, field.offset, big)
            return value == 0xFFFF ? nil : Int64(value)
        case 11:
            let value = load(UInt16.self, field.offset, big)
            return value == 0 ? nil : Int64(value)
        case 5:
            let value = Int32(bitPattern: load(UInt32.self, field.offset, big))
            return value == 0x7FFF_FFFF ? nil : Int64(value)
        case 6:
            let value = load(UInt32.self, field.offset, big)
            return value == 0xFFFF_FFFF ? nil : Int64(value)
        case 12:
            let value = load(UInt32.self, field.offset, big)
            return value == 0 ? nil : Int64(value)
        case 14:
            let value = Int64(bitPattern: load(UInt64.self, field.offset, big))
            return value == 0x7FFF_FFFF_FFFF_FFFF ? nil : value
        case 15:
            let value = load(UInt64.self, field.offset, big)
            return value == 0xFFFF_FFFF_FFFF_FFFF || value > UInt64(Int64.max) ? nil : Int64(value)
        case 16:
            let value = load(UInt64.self, field.offset, big)
            return value == 0 || value > UInt64(Int64.max) ? nil : Int64(value)
        default:
            return nil
        }
    }

    /// A numeric field as `value / scale - offset` (the profile's scale and offset), floats included; nil when
    /// absent, invalid or not finite.
    public func double(_ number: UInt8, scale: Double = 1, offset: Double = 0) -> Double? {
        guard let field = layout(number) else { return nil }
        let value: Double
        switch field.baseType {
        case 8:
            guard field.size >= 4, field.size % 4 == 0 else { return nil }
            value = Double(Float(bitPattern: load(UInt32.self, field.offset, definition.bigEndian)))
        case 9:
            guard field.size >= 8, field.size % 8 == 0 else { return nil }
            value = Double(bitPattern: load(UInt64.self, field.offset, definition.bigEndian))
        default:
            guard let integer = integer(number) else { return nil }
            value = Double(integer)
        }
        let result = value / scale - offset
        return result.isFinite ? result : nil
    }

    /// A string field (UTF-8, up to its first NUL), or nil when absent or empty.
    public func string(_ number: UInt8) -> String? {
        guard let field = layout(number), field.size > 0 else { return nil }
        let bytes = UnsafeRawBufferPointer(rebasing: content[field.offset..<field.offset + field.size])
        let length = bytes.firstIndex(of: 0) ?? bytes.count
        guard length > 0 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<length]), as: UTF8.self)
    }

    /// A field's bytes as stored, whatever its type.
    public func bytes(_ number: UInt8) -> [UInt8]? {
        guard let field = layout(number) else { return nil }
        return Array(content[field.offset..<field.offset + field.size])
    }

    private func load<T: FixedWidthInteger>(_ type: T.Type, _ offset: Int, _ bigEndian: Bool) -> T {
        let raw = content.loadUnaligned(fromByteOffset: offset, as: T.self)
        return bigEndian ? T(bigEndian: raw) : T(littleEndian: raw)
    }
}
