import SystemZlib
import Foundation

/// A gzip stream inflated as it is read (a `.gpx.gz`: Strava's exports, GraphHopper's downloads), with zlib.
///
/// Members that follow each other (`cat a.gz b.gz`) are read one after another, as `gunzip` does; bytes after
/// the last member that are not another member are ignored, as `gunzip` does (with a warning). Damaged or
/// truncated data is an error, and so is data that inflates beyond `maximumInflatedBytes`: a few MiB of gzip
/// can hold gigabytes of the same byte.
final class GzipSource: ByteSource {
    /// 4 GiB: twelve times a million-point ride.
    static let defaultMaximumInflatedBytes = GPXReadOptions().maximumInflatedBytes

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
    /// Whether `inflateInit2_` succeeded, so that `deinit` may end the stream.
    private var started = false

    init(_ compressed: any ByteSource, maximumInflatedBytes: Int = GzipSource.defaultMaximumInflatedBytes) throws(GPXError) {
        self.compressed = compressed
        self.maximumInflatedBytes = maximumInflatedBytes
        stream.initialize(to: z_stream())
        // 15 + 16: a window of 32 KiB, gzip framing only.
        // `deinit` frees the buffers whether or not this succeeds.
        guard inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw GPXError(.compressed("zlib could not start"), line: 0, column: 0)
        }
        started = true
    }

    deinit {
        if started { inflateEnd(stream) }
        stream.deinitialize(count: 1)
        stream.deallocate()
        input.deallocate()
    }

    /// Makes at least `wanted` compressed bytes available to zlib (fewer only at their end); false when none are.
    private func fillInput(atLeast wanted: Int = 1) throws -> Bool {
        while Int(stream.pointee.avail_in) < wanted && !compressedEnded {
            // Keep what zlib has not used at the front, and read after it.
            let kept = Int(stream.pointee.avail_in)
            if kept > 0 && stream.pointee.next_in != input { memmove(input, stream.pointee.next_in, kept) }
            let count = try compressed.read(into: UnsafeMutableRawBufferPointer(start: input + kept, count: Self.inputBytes - kept))
            if count == 0 { compressedEnded = true }
            stream.pointee.next_in = input
            stream.pointee.avail_in = UInt32(kept + count)
        }
        return stream.pointee.avail_in > 0
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard !finished, buffer.count > 0 else { return 0 }
        let room = min(buffer.count, Int(UInt32.max))
        stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = UInt32(room)
        while stream.pointee.avail_out == UInt32(room) {
            guard try fillInput(atLeast: betweenMembers ? 2 : 1) else {
                if betweenMembers {
                    finished = true
                    return 0
                }
                throw GPXError(.compressed("the gzip data ends too early (the file is cut off)"), line: 0, column: 0)
            }
            if betweenMembers {
                // Another member only if it starts like one (1F 8B); anything else after the last member is ignored.
                guard stream.pointee.avail_in >= 2, stream.pointee.next_in[0] == 0x1F, stream.pointee.next_in[1] == 0x8B else {
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
                .compressed("the gzip data inflates to more than \(Self.size(maximumInflatedBytes)), which bikeride does not read"),
                line: 0, column: 0)
        }
        return count
    }
}

extension GzipSource {
    static func size(_ bytes: Int) -> String { bytes >= 1 << 20 ? "\(bytes >> 20) MiB" : "\(bytes) bytes" }
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
