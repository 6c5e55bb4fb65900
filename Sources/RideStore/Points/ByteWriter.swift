import Foundation

/// Appends the primitive values of the point block format to a byte buffer: LEB128 varints, zigzag
/// signed varints, little-endian doubles, and strings through a per-block table.
struct ByteWriter {
    var bytes: [UInt8] = []
    /// Strings already written in this block, to their reference number (1-based: 0 means "a new string follows").
    private var strings: [String: Int] = [:]

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    @inline(__always) mutating func byte(_ value: UInt8) { bytes.append(value) }

    @inline(__always) mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    @inline(__always) mutating func varint(_ value: Int) { varint(UInt64(value)) }

    /// Small magnitudes, either sign, in few bytes: 0 → 0, -1 → 1, 1 → 2, -2 → 3 …
    @inline(__always) mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value &<< 1) ^ (value >> 63)))
    }

    @inline(__always) mutating func rawDouble(_ value: Double) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
    }

    /// A string, written once per block and referred to by number after that (namespaces, element names,
    /// `fix` values repeat on every point of some files).
    mutating func string(_ value: String) {
        if let reference = strings[value] {
            varint(reference)
            return
        }
        varint(0)
        let utf8 = Array(value.utf8)
        varint(utf8.count)
        bytes += utf8
        strings[value] = strings.count + 1
    }

    mutating func optionalString(_ value: String?) {
        guard let value else {
            byte(0)
            return
        }
        byte(1)
        string(value)
    }
}

/// Reads what `ByteWriter` wrote; every read is bounds-checked, so a damaged block is an error, not a crash.
struct ByteReader {
    private let base: UnsafeRawBufferPointer
    private(set) var offset = 0
    private var strings: [String] = []

    init(_ base: UnsafeRawBufferPointer) { self.base = base }

    var isAtEnd: Bool { offset == base.count }

    @inline(__always) mutating func byte() throws(PointBlockError) -> UInt8 {
        guard offset < base.count else { throw .truncated }
        let value = base[offset]
        offset += 1
        return value
    }

    @inline(__always) mutating func varint() throws(PointBlockError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < base.count else { throw .truncated }
            let byte = base[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            guard shift < 64 else { throw .corrupt("varint longer than 64 bits") }
        }
    }

    @inline(__always) mutating func count(limit: Int) throws(PointBlockError) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw .corrupt("count \(value) over \(limit)") }
        return Int(value)
    }

    @inline(__always) mutating func zigzag() throws(PointBlockError) -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    @inline(__always) mutating func rawDouble() throws(PointBlockError) -> Double {
        guard offset + 8 <= base.count else { throw .truncated }
        var bits: UInt64 = 0
        for index in 0..<8 { bits |= UInt64(base[offset + index]) << UInt64(index * 8) }
        offset += 8
        return Double(bitPattern: bits)
    }

    mutating func bytes(_ count: Int) throws(PointBlockError) -> UnsafeRawBufferPointer {
        guard count >= 0, offset + count <= base.count else { throw .truncated }
        let slice = UnsafeRawBufferPointer(rebasing: base[offset..<(offset + count)])
        offset += count
        return slice
    }

    mutating func string() throws(PointBlockError) -> String {
        let reference = try varint()
        if reference == 0 {
            let length = try count(limit: base.count - offset)
            let value = String(decoding: try bytes(length), as: UTF8.self)
            strings.append(value)
            return value
        }
        guard reference <= UInt64(strings.count) else { throw .corrupt("string reference \(reference) unknown") }
        return strings[Int(reference) - 1]
    }

    mutating func optionalString() throws(PointBlockError) -> String? {
        try byte() == 0 ? nil : try string()
    }
}

/// Why a stored block of points could not be read back.
public enum PointBlockError: Error, Sendable, Hashable, CustomStringConvertible {
    case truncated
    case corrupt(String)
    case unsupportedVersion(UInt8)

    public var description: String {
        switch self {
        case .truncated: return "a stored block of points ends too early (the database is damaged)"
        case .corrupt(let detail): return "a stored block of points is damaged: \(detail)"
        case .unsupportedVersion(let version):
            return "a stored block of points has format \(version), which this version of bikeride cannot read: upgrade it"
        }
    }
}
