/// The CRC-16 of the FIT protocol: the reflected polynomial 0xA001 with initial value 0 (CRC-16/ARC), over the
/// header (its first 12 bytes, for the 14-byte header's own CRC) and over header and records (the file CRC).
///
///     var crc = FITCRC()
///     crc.update(Array("123456789".utf8))
///     crc.value   // 0xBB3D, CRC-16/ARC's check value
public struct FITCRC: Sendable, Hashable {
    public private(set) var value: UInt16 = 0

    public init() {}

    private static let table: [UInt16] = (0..<256).map { byte in
        var crc = UInt16(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        return crc
    }

    public mutating func update(_ byte: UInt8) {
        value = (value >> 8) ^ Self.table[Int((value ^ UInt16(byte)) & 0xFF)]
    }

    public mutating func update(_ bytes: some Sequence<UInt8>) {
        for byte in bytes { update(byte) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        var crc = value
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = (crc >> 8) ^ table[Int((crc ^ UInt16(byte)) & 0xFF)] }
        }
        value = crc
    }
}
