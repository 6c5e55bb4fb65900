import Foundation
import SystemZlib

/// Writes a zip archive (PKWARE's APPNOTE 6.3) entry by entry, as bytes the caller sends on at once: to a file, or
/// to a response body. Nothing is seeked back to, so the archive can stream; only what the central directory needs
/// of each entry (its name, sizes, CRC and offset) is kept until `finish()`.
///
///     var zip = ZipWriter()
///     var out = zip.entry(named: "hello.txt", bytes: Array("hello".utf8), modified: Date())
///     out += zip.finish()  // a whole archive, that any unzip reads
///
/// Each entry is deflated (raw DEFLATE, RFC 1951, by zlib), or stored when deflating would not make it smaller (a
/// JPEG). Its CRC-32 and sizes are known before its header is written (the caller hands over an entry's bytes
/// whole), so local headers carry them and no data descriptor is needed. ZIP64 records are written where a size,
/// an offset or the number of entries does not fit the classic fields (an archive over 4 GiB, more than 65,535
/// entries). Names are UTF-8 (flag bit 11). Memory: one entry and its deflated bytes, plus the central directory
/// (about 100 bytes an entry). Time: linear in the bytes.
public struct ZipWriter: Sendable {
    /// What the central directory says of an entry.
    private struct Record: Sendable {
        var name: [UInt8]
        var method: UInt16
        var crc: UInt32
        var compressedSize: UInt64
        var size: UInt64
        var offset: UInt64
        var time: UInt16
        var date: UInt16
    }

    private var records: [Record] = []
    /// Bytes handed out so far: where the next entry's header starts.
    public private(set) var offset: UInt64 = 0
    /// Sizes and offsets from this value on go into ZIP64 fields; 0xFFFF_FFFF by the format (lowered by tests, so that
    /// the ZIP64 records are exercised without writing 4 GiB).
    package var zip64Threshold: UInt64 = 0xFFFF_FFFF
    /// Entry counts from this value on need the ZIP64 end record; 0xFFFF by the format.
    package var zip64EntryThreshold = 0xFFFF

    public init() {}

    /// How many entries were written.
    public var entryCount: Int { records.count }

    /// An entry's bytes made ready: their CRC-32 and, when it makes them smaller, their deflated form. The costly
    /// part of an entry (run it off the caller's thread); `entry(named:prepared:modified:)` then only frames it.
    public struct PreparedEntry: Sendable {
        fileprivate var crc: UInt32
        fileprivate var method: UInt16
        fileprivate var data: [UInt8]
        fileprivate var size: Int
    }

    /// `bytes` made ready for an entry: deflated when `compress` and that makes them smaller, else stored.
    public static func prepare(_ bytes: [UInt8], compress: Bool = true) -> PreparedEntry {
        let crc = bytes.withUnsafeBufferPointer { buffer in
            UInt32(crc32(0, buffer.baseAddress, uInt(buffer.count)))
        }
        if compress, bytes.count > 64, let deflated = deflate(bytes), deflated.count < bytes.count {
            return PreparedEntry(crc: crc, method: 8, data: deflated, size: bytes.count)
        }
        return PreparedEntry(crc: crc, method: 0, data: bytes, size: bytes.count)
    }

    /// The local header and data of one entry: write them to the output, in this order, before the next entry.
    /// `name` is a relative path with `/` between folders (the caller's own names: it is written as given).
    public mutating func entry(named name: String, bytes: [UInt8], modified: Date, compress: Bool = true) -> [UInt8] {
        entry(named: name, prepared: Self.prepare(bytes, compress: compress), modified: modified)
    }

    /// The local header and data of an entry made ready by `prepare`.
    public mutating func entry(named name: String, prepared: PreparedEntry, modified: Date) -> [UInt8] {
        let (time, date) = Self.dosTime(modified)
        let record = Record(
            name: Array(name.utf8), method: prepared.method, crc: prepared.crc, compressedSize: UInt64(prepared.data.count),
            size: UInt64(prepared.size), offset: offset, time: time, date: date)
        var output = localHeader(record)
        output.reserveCapacity(output.count + prepared.data.count)
        output += prepared.data
        records.append(record)
        offset += UInt64(output.count)
        return output
    }

    /// The central directory and the end records: the archive's last bytes. Write nothing after them.
    public mutating func finish() -> [UInt8] {
        let directoryOffset = offset
        var output: [UInt8] = []
        for record in records { output += centralHeader(record) }
        let directorySize = UInt64(output.count)
        let needsZip64 = records.count >= zip64EntryThreshold || directoryOffset >= zip64Threshold || directorySize >= zip64Threshold
        if needsZip64 {
            let endOffset = directoryOffset + directorySize
            // ZIP64 end of central directory record.
            output.append32(0x0606_4B50)
            output.append64(44)  // the size of the rest of this record
            output.append16(Self.versionMadeBy)
            output.append16(45)
            output.append32(0)
            output.append32(0)
            output.append64(UInt64(records.count))
            output.append64(UInt64(records.count))
            output.append64(directorySize)
            output.append64(directoryOffset)
            // ZIP64 end of central directory locator.
            output.append32(0x0706_4B50)
            output.append32(0)
            output.append64(endOffset)
            output.append32(1)
        }
        output.append32(0x0605_4B50)
        output.append16(0)
        output.append16(0)
        let count = records.count >= zip64EntryThreshold ? 0xFFFF : UInt16(records.count)
        output.append16(count)
        output.append16(count)
        output.append32(directorySize >= zip64Threshold ? 0xFFFF_FFFF : UInt32(directorySize))
        output.append32(directoryOffset >= zip64Threshold ? 0xFFFF_FFFF : UInt32(directoryOffset))
        output.append16(0)  // no comment
        offset += UInt64(output.count)
        return output
    }

    // MARK: Records

    /// Made on Unix (its permissions in the external attributes), by APPNOTE 4.5 (ZIP64).
    private static let versionMadeBy: UInt16 = 3 << 8 | 45
    /// A regular file, rw-r--r--: what readers take to be a file, not a link or a folder.
    private static let externalAttributes: UInt32 = 0o100644 << 16
    /// Bit 11: names are UTF-8.
    private static let flags: UInt16 = 1 << 11

    private func localHeader(_ record: Record) -> [UInt8] {
        let zip64 = record.size >= zip64Threshold || record.compressedSize >= zip64Threshold
        var output: [UInt8] = []
        output.append32(0x0403_4B50)
        output.append16(zip64 ? 45 : 20)
        output.append16(Self.flags)
        output.append16(record.method)
        output.append16(record.time)
        output.append16(record.date)
        output.append32(record.crc)
        output.append32(zip64 ? 0xFFFF_FFFF : UInt32(record.compressedSize))
        output.append32(zip64 ? 0xFFFF_FFFF : UInt32(record.size))
        output.append16(UInt16(record.name.count))
        output.append16(zip64 ? 20 : 0)
        output += record.name
        if zip64 {
            output.append16(0x0001)
            output.append16(16)
            output.append64(record.size)
            output.append64(record.compressedSize)
        }
        return output
    }

    private func centralHeader(_ record: Record) -> [UInt8] {
        // The ZIP64 extra field holds, in this order, only the values whose classic field says 0xFFFFFFFF.
        var extra: [UInt8] = []
        if record.size >= zip64Threshold { extra.append64(record.size) }
        if record.compressedSize >= zip64Threshold { extra.append64(record.compressedSize) }
        if record.offset >= zip64Threshold { extra.append64(record.offset) }
        var output: [UInt8] = []
        output.append32(0x0201_4B50)
        output.append16(Self.versionMadeBy)
        output.append16(extra.isEmpty ? 20 : 45)
        output.append16(Self.flags)
        output.append16(record.method)
        output.append16(record.time)
        output.append16(record.date)
        output.append32(record.crc)
        output.append32(record.compressedSize >= zip64Threshold ? 0xFFFF_FFFF : UInt32(record.compressedSize))
        output.append32(record.size >= zip64Threshold ? 0xFFFF_FFFF : UInt32(record.size))
        output.append16(UInt16(record.name.count))
        output.append16(extra.isEmpty ? 0 : UInt16(4 + extra.count))
        output.append16(0)  // comment
        output.append16(0)  // disk
        output.append16(0)  // internal attributes
        output.append32(Self.externalAttributes)
        output.append32(record.offset >= zip64Threshold ? 0xFFFF_FFFF : UInt32(record.offset))
        output += record.name
        if !extra.isEmpty {
            output.append16(0x0001)
            output.append16(UInt16(extra.count))
            output += extra
        }
        return output
    }

    /// MS-DOS time and date (2-second steps, from 1980), in UTC: what the classic fields can say.
    static func dosTime(_ date: Date) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = min(max((parts.year ?? 1980) - 1980, 0), 127)
        let time = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
        let day = UInt16(year << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        return (time, day)
    }

    /// Raw DEFLATE (no zlib header: what a zip entry holds), or nil when zlib fails (the entry is then stored).
    static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // -15: a raw stream with zlib's largest window; 8: zlib's default memory level.
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: bound)
        let status = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                return SystemZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}

extension [UInt8] {
    fileprivate mutating func append16(_ value: UInt16) {
        append(UInt8(value & 0xFF))
        append(UInt8(value >> 8))
    }

    fileprivate mutating func append32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    fileprivate mutating func append64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8((value >> UInt64(shift)) & 0xFF)) }
    }
}
