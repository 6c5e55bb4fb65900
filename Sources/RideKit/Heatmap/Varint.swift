import Foundation

/// LEB128 varints and zigzag signed values, the compact numbers of the heatmap's stored lines and rasters.
enum Varint {
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(v & 0x7F) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    static func appendSigned(_ value: Int64, to bytes: inout [UInt8]) {
        append(UInt64(bitPattern: (value << 1) ^ (value >> 63)), to: &bytes)
    }
}

/// Reads varints from bytes; every read is checked (the bytes come from the database, which anyone may have edited).
struct VarintReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ data: Data) { bytes = [UInt8](data) }
    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }
    var remaining: Int { bytes.count - offset }

    mutating func read() throws(HeatmapDataError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count, shift < 64 else { throw HeatmapDataError.malformed }
            let byte = bytes[offset]
            offset += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func readSigned() throws(HeatmapDataError) -> Int64 {
        let raw = try read()
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count that cannot exceed what the remaining bytes could hold (one byte an item at least).
    mutating func readCount(bytesPerItem: Int = 1) throws(HeatmapDataError) -> Int {
        let value = try read()
        guard value <= UInt64(remaining / max(1, bytesPerItem)) else { throw HeatmapDataError.malformed }
        return Int(value)
    }
}

/// Stored heatmap data that cannot be read (damaged or not bikeride's).
public enum HeatmapDataError: Error, Sendable, Equatable {
    case malformed
}
