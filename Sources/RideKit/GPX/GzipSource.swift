import CZlib
import Foundation

/// A gzip stream inflated as it is read (a `.gpx.gz`: Strava's exports, GraphHopper's downloads), with zlib.
///
/// Members that follow each other (`cat a.gz b.gz`) are read one after another, as `gunzip` does; bytes after
/// the last member that are not another member are ignored, as `gunzip` does (with a warning). Damaged or
/// truncated data is an error, and so is data that inflates beyond `maximumInflatedBytes`: a few MiB of gzip
/// can hold gigabytes of the same byte.
final class GzipSource: ByteSource {
    /// 4 GiB: twelve times a million-point ride.
    static let defaultMaximumInflatedBytes = 4 << 30

    private var compressed: any ByteSource
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private static let inputBytes = 1 << 16
    private let input = UnsafeMutablePointer<UInt8>.allocate(capacity: GzipSource.inputBytes)
    private var compressedEnded = false
    /// Between members: the last one ended, the next has not begun.
    private var betweenMembers = false
    private var finished = false
    private var inflated = 0
    private let maximumInflatedBytes: Int

    init(_ compressed: any ByteSource, maximumInflatedBytes: Int = GzipSource.defaultMaximumInflatedBytes) throws(GPXError) {
        self.compressed = compressed
        self.maximumInflatedBytes = maximumInflatedBytes
        stream.initialize(to: z_stream())
        // 15 + 16: a window of 32 KiB, gzip framing only.
        guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            stream.deallocate()
            input.deallocate()
            throw GPXError(.compressed("zlib could not start"), line: 0, column: 0)
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
    }

    /// Reads more compressed bytes when zlib has used up the last ones; false at their end.
    private func fillInput() throws -> Bool {
        if stream.pointee.avail_in > 0 { return true }
        if compressedEnded { return false }
        let count = try compressed.read(into: UnsafeMutableRawBufferPointer(start: input, count: Self.inputBytes))
        if count == 0 {
            compressedEnded = true
            return false
        }
        stream.pointee.next_in = input
        stream.pointee.avail_in = UInt32(count)
        return true
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        let room = min(buffer.count, Int(UInt32.max))
        stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(room)
        while stream.pointee.avail_out == UInt32(room) {
            guard try fillInput() else {
                if betweenMembers {
                    finished = true
                    return 0
                }
                throw GPXError(.compressed("the gzip data ends too early (the file is cut off)"), line: 0, column: 0)
            }
            if betweenMembers {
                // Another member only if it starts like one; anything else after the last member is ignored.
                guard stream.pointee.next_in[0] == 0x1F else {
                    finished = true
                    return 0
                }
                inflateReset(stream)
                betweenMembers = false
            }
            let status = inflate(stream, Z_NO_FLUSH)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                betweenMembers = true
                if stream.pointee.avail_out < UInt32(room) { return try produced(room) }
            case Z_MEM_ERROR:
                throw GPXError(.compressed("out of memory while inflating gzip data"), line: 0, column: 0)
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "error \(status)"
                throw GPXError(.compressed("the gzip data is damaged (\(message))"), line: 0, column: 0)
            }
        }
        return try produced(room)
    }

    private func produced(_ room: Int) throws -> Int {
        let count = room - Int(stream.pointee.avail_out)
        inflated += count
        if inflated > maximumInflatedBytes {
            throw GPXError(
                .compressed("the gzip data inflates to more than \(maximumInflatedBytes >> 20) MiB, which bikeride does not read"),
                line: 0, column: 0)
        }
        return count
    }
}

/// Bytes already read from a source, then the rest of it.
struct PrefixedSource: ByteSource {
    private var prefix: [UInt8]
    private var offset = 0
    private var rest: any ByteSource

    init(prefix: [UInt8], rest: any ByteSource) {
        self.prefix = prefix
        self.rest = rest
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if offset < prefix.count {
            let count = min(buffer.count, prefix.count - offset)
            prefix.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + offset, byteCount: count) }
            offset += count
            return count
        }
        return try rest.read(into: buffer)
    }
}
