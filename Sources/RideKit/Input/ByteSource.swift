import Foundation

/// Where the reader's bytes come from: filled in chunks, so memory does not grow with the file.
protocol ByteSource {
    /// Fills `buffer` from the start with up to `buffer.count` bytes; returns 0 only at the end.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// Makes the next read start at `offset` bytes from the start of the input, which is not before anything
    /// read so far. False (and nothing changed) when the source cannot do that: it is then read through.
    mutating func seek(to offset: Int) -> Bool
}

extension ByteSource {
    mutating func seek(to offset: Int) -> Bool { false }
}

/// Bytes held in memory.
struct MemorySource: ByteSource {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// A file or a pipe (standard input), read in chunks straight into the caller's buffer.
struct FileSource: ByteSource {
    let handle: FileHandle

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let count = Foundation.read(handle.fileDescriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno == EINTR { continue }
            throw GPXError(.io("cannot read: \(String(cString: strerror(errno)))"), line: 0, column: 0)
        }
    }
}

/// A range of bytes of an open file, read with `pread`, so that several readers can share one descriptor.
struct FileRangeSource: ByteSource {
    let descriptor: Int32
    private(set) var offset: Int
    let end: Int

    init(descriptor: Int32, range: Range<Int>) {
        self.descriptor = descriptor
        offset = range.lowerBound
        end = range.upperBound
    }

    mutating func seek(to offset: Int) -> Bool {
        guard offset >= self.offset && offset <= end else { return false }
        self.offset = offset
        return true
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let wanted = min(buffer.count, end - offset)
        guard wanted > 0 else { return 0 }
        while true {
            let count = pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            if count >= 0 {
                offset += count
                return count
            }
            if errno == EINTR { continue }
            throw GPXError(.io("cannot read: \(String(cString: strerror(errno)))"), line: 0, column: 0)
        }
    }
}

/// A file read ahead on a thread of its own: while the tokenizer works through one chunk, the next is read
/// from the disk (or the page cache), so the two overlap on two cores.
final class ReadAheadSource: ByteSource, @unchecked Sendable {
    private static let chunkBytes = 1 << 20
    private static let chunksAhead = 3

    private let handle: FileHandle
    private let condition = NSCondition()
    private var ready: [[UInt8]] = []
    private var finished = false
    private var failure: (any Error)?
    private var current: [UInt8] = []
    /// Chunks handed back by the reader, for the thread to fill again.
    private var spare: [[UInt8]] = []
    private var offset = 0
    private var started = false
    private var threadEnded = false

    init(handle: FileHandle) {
        self.handle = handle
    }

    /// Stops reading ahead (the file is done with, or the reader gave up on it) and waits for the thread to
    /// end, so that the file can be closed safely afterwards. Only for regular files, whose reads return promptly.
    func stop() {
        condition.lock()
        finished = true
        ready = []
        condition.broadcast()
        while started && !threadEnded { condition.wait() }
        condition.unlock()
    }

    private func endThread() {
        condition.lock()
        threadEnded = true
        condition.broadcast()
        condition.unlock()
    }

    private func readLoop() {
        defer { endThread() }
        var source = FileSource(handle: handle)
        while true {
            // Reuse a chunk the reader has finished with: no allocation, no zeroing, no page faults per chunk.
            condition.lock()
            var chunk = spare.popLast() ?? []
            condition.unlock()
            if chunk.count != Self.chunkBytes {
                chunk = [UInt8](unsafeUninitializedCapacity: Self.chunkBytes) { _, count in count = Self.chunkBytes }
            }
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch {
                condition.lock()
                failure = error
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.lock()
            if finished {
                condition.unlock()
                return
            }
            if count == 0 {
                finished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            if count < Self.chunkBytes { chunk.removeSubrange(count...) }
            while ready.count >= Self.chunksAhead && !finished { condition.wait() }
            ready.append(chunk)
            condition.broadcast()
            condition.unlock()
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if !started {
            started = true
            let thread = Thread { [self] in readLoop() }
            thread.name = "bikeride read-ahead"
            thread.start()
        }
        if offset == current.count {
            condition.lock()
            while ready.isEmpty && !finished { condition.wait() }
            if ready.isEmpty {
                let error = failure
                condition.unlock()
                if let error { throw error }
                return 0
            }
            let finishedChunk = current
            current = ready.removeFirst()
            offset = 0
            if finishedChunk.count == Self.chunkBytes { spare.append(finishedChunk) }
            condition.broadcast()
            condition.unlock()
        }
        let count = min(buffer.count, current.count - offset)
        current.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// The encodings GPX files come in, as found from the byte order mark and the XML declaration.
enum SourceEncoding: Equatable {
    case utf8
    case ascii
    case latin1
    case utf16LittleEndian
    case utf16BigEndian

    /// Whether an XML declaration's `encoding="…"` agrees with what the bytes are.
    func accepts(declared name: String) -> Bool {
        let name = name.uppercased()
        switch self {
        case .utf8: return name == "UTF-8" || name == "UTF8"
        case .ascii: return name == "US-ASCII" || name == "ASCII"
        case .latin1: return ["ISO-8859-1", "ISO8859-1", "LATIN1", "ISO_8859-1", "LATIN-1"].contains(name)
        case .utf16LittleEndian, .utf16BigEndian: return name.hasPrefix("UTF-16") || name == "UTF16"
        }
    }
}

/// Turns the raw bytes of a source into UTF-8 for the tokenizer, whatever encoding the file is in.
///
/// UTF-8 passes through untouched (the tokenizer validates it); ISO-8859-1 and UTF-16 are transcoded chunk by
/// chunk, so they cost memory no more than UTF-8 does.
struct DecodingSource: ByteSource {
    private var source: any ByteSource
    /// Raw bytes already read while sniffing the encoding, not yet handed on.
    private var pending: [UInt8]
    private var pendingOffset = 0
    private var atEnd = false
    let encoding: SourceEncoding
    /// Whether the file began with a byte order mark.
    let hadByteOrderMark: Bool
    /// A UTF-16 high surrogate waiting for its pair across a chunk boundary.
    private var highSurrogate: UInt16?
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    /// Reads the start of `source`, decides its encoding and skips a byte order mark.
    init(_ source: any ByteSource) throws {
        var source = source
        var head = [UInt8](repeating: 0, count: 4096)
        var filled = 0
        while filled < head.count {
            let count = try head.withUnsafeMutableBytes { buffer in
                try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            }
            if count == 0 { break }
            filled += count
        }
        head.removeSubrange(filled...)
        self.source = source
        func starts(_ prefix: [UInt8]) -> Bool { head.starts(with: prefix) }
        if starts([0xEF, 0xBB, 0xBF]) {
            encoding = .utf8
            hadByteOrderMark = true
            pendingOffset = 3
        } else if starts([0xFF, 0xFE]) {
            encoding = .utf16LittleEndian
            hadByteOrderMark = true
            pendingOffset = 2
        } else if starts([0xFE, 0xFF]) {
            encoding = .utf16BigEndian
            hadByteOrderMark = true
            pendingOffset = 2
        } else if starts([0x3C, 0x00, 0x3F, 0x00]) || starts([0x00, 0x3C, 0x00, 0x3F])
            || starts([0x3C, 0x00, 0x67, 0x00]) || starts([0x00, 0x3C, 0x00, 0x67])
        {
            throw GPXError(
                .unsupportedEncoding("the file looks like UTF-16 without a byte order mark; save it as UTF-8 or with a BOM"),
                line: 1, column: 1)
        } else if starts([0x00, 0x00, 0xFE, 0xFF]) || starts([0xFF, 0xFE, 0x00, 0x00]) || starts([0x4C, 0x6F, 0xA7, 0x94]) {
            throw GPXError(.unsupportedEncoding("the file is in UTF-32 or EBCDIC, which bikeride does not read"), line: 1, column: 1)
        } else {
            hadByteOrderMark = false
            switch DecodingSource.declaredEncoding(in: head)?.uppercased() {
            case nil, "UTF-8", "UTF8": encoding = .utf8
            case "US-ASCII", "ASCII": encoding = .ascii
            case "ISO-8859-1", "ISO8859-1", "LATIN1", "ISO_8859-1", "LATIN-1": encoding = .latin1
            case let name?:
                throw GPXError(
                    .unsupportedEncoding(
                        "unsupported encoding '\(name)' (bikeride reads UTF-8, UTF-16 with a byte order mark, ISO-8859-1 and US-ASCII)"
                    ), line: 1, column: 1)
            }
        }
        pending = head
    }

    /// The bytes as they came, undecoded: for a gzip stream, which is inflated before the encoding is sniffed.
    /// Only before anything was read.
    func undecoded() -> any ByteSource {
        PrefixedSource(prefix: Array(pending[pendingOffset...]), rest: source)
    }

    /// Whether the data starts like a gzip stream (a `.gpx.gz` handed over as it is).
    var startsWithGzipMagic: Bool { pending.count >= 2 && pending[0] == 0x1F && pending[1] == 0x8B }

    /// The `encoding` pseudo-attribute of an XML declaration at the very start, if any.
    static func declaredEncoding(in head: [UInt8]) -> String? {
        // `<?xml` then white space: `<?xml-stylesheet …?>` or `<?xmlfoo …?>` is a processing instruction, not
        // the declaration, and says nothing about the encoding (the fuzzer found this one).
        guard head.starts(with: Array("<?xml".utf8)), head.count > 5, [0x20, 0x09, 0x0A, 0x0D].contains(head[5]) else { return nil }
        let end = head.firstIndex(of: UInt8(ascii: ">")) ?? head.count
        let declaration = String(decoding: head[..<end], as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[range.upperBound...].drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" })
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        rest = rest.dropFirst()
        guard let close = rest.firstIndex(of: quote) else { return nil }
        return String(rest[..<close])
    }

    /// Seeks only where the bytes are the file's own: UTF-8 or ASCII without a byte order mark.
    mutating func seek(to offset: Int) -> Bool {
        guard encoding == .utf8 || encoding == .ascii, !hadByteOrderMark else { return false }
        let consumed = pendingOffset < pending.count ? pendingOffset : nil
        if offset <= pending.count {
            guard let consumed, offset >= consumed else { return false }
            pendingOffset = offset
            return true
        }
        guard source.seek(to: offset) else { return false }
        pendingOffset = pending.count
        atEnd = false
        return true
    }

    /// Next raw bytes: first those read while sniffing, then the source's.
    private mutating func readRaw(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if pendingOffset < pending.count {
            let count = min(buffer.count, pending.count - pendingOffset)
            pending.withUnsafeBytes { source in
                buffer.baseAddress!.copyMemory(from: source.baseAddress! + pendingOffset, byteCount: count)
            }
            pendingOffset += count
            return count
        }
        if atEnd { return 0 }
        let count = try source.read(into: buffer)
        if count == 0 { atEnd = true }
        return count
    }

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch encoding {
        case .utf8, .ascii:
            // US-ASCII is checked by the tokenizer's UTF-8 validation plus the declaration check; bytes over 0x7F
            // in a file that says ASCII are refused there.
            return try readRaw(into: buffer)
        case .latin1:
            // Each byte becomes one or two UTF-8 bytes: read at most half the room.
            var raw = [UInt8](repeating: 0, count: max(1, buffer.count / 2))
            let count = try raw.withUnsafeMutableBytes { rawBuffer in try readRaw(into: rawBuffer) }
            var written = 0
            for byte in raw[..<count] {
                if byte < 0x80 {
                    buffer[written] = byte
                    written += 1
                } else {
                    buffer[written] = 0xC0 | (byte >> 6)
                    buffer[written + 1] = 0x80 | (byte & 0x3F)
                    written += 2
                }
            }
            return written
        case .utf16LittleEndian, .utf16BigEndian:
            return try readUTF16(into: buffer)
        }
    }

    /// An error found while transcoding, held back until the text before it has been handed over, so that the
    /// tokenizer reports it at the right line and column.
    private var heldError: GPXError?

    private mutating func stop(at written: Int, _ error: GPXError) throws -> Int {
        guard written > 0 else { throw error }
        heldError = error
        return written
    }

    private mutating func readUTF16(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        if let heldError { throw heldError }
        // One code unit (2 bytes) becomes at most 3 UTF-8 bytes; a pair (4 bytes) becomes 4.
        let room = max(4, (buffer.count / 3 * 2 - 2) & ~1)
        var raw = [UInt8](repeating: 0, count: room)
        var count = 0
        while count < 2 {
            let got = try raw.withUnsafeMutableBytes { rawBuffer in
                try readRaw(into: UnsafeMutableRawBufferPointer(rebasing: rawBuffer[count...]))
            }
            if got == 0 { break }
            count += got
        }
        if count == 0 {
            if highSurrogate != nil { throw GPXError(.notWellFormed("UTF-16 ends inside a surrogate pair"), line: 0, column: 0) }
            return 0
        }
        if count % 2 == 1 {
            // Pull one more byte so that code units stay whole.
            var extra: [UInt8] = [0]
            let got = try extra.withUnsafeMutableBytes { rawBuffer in try readRaw(into: rawBuffer) }
            guard got == 1 else { throw GPXError(.notWellFormed("UTF-16 text has an odd number of bytes"), line: 0, column: 0) }
            if count == raw.count { raw.append(extra[0]) } else { raw[count] = extra[0] }
            count += 1
        }
        var written = 0
        let littleEndian = encoding == .utf16LittleEndian
        var index = 0
        while index < count {
            let unit =
                littleEndian
                ? UInt16(raw[index]) | UInt16(raw[index + 1]) << 8 : UInt16(raw[index]) << 8 | UInt16(raw[index + 1])
            index += 2
            var scalar: UInt32
            if let high = highSurrogate {
                guard (0xDC00...0xDFFF).contains(unit) else {
                    return try stop(at: written, GPXError(.notWellFormed("UTF-16 high surrogate without its low half"), line: 0, column: 0))
                }
                scalar = 0x10000 + (UInt32(high - 0xD800) << 10 | UInt32(unit - 0xDC00))
                highSurrogate = nil
            } else if (0xD800...0xDBFF).contains(unit) {
                highSurrogate = unit
                continue
            } else if (0xDC00...0xDFFF).contains(unit) {
                return try stop(at: written, GPXError(.notWellFormed("UTF-16 low surrogate without its high half"), line: 0, column: 0))
            } else {
                scalar = UInt32(unit)
            }
            switch scalar {
            case 0..<0x80:
                buffer[written] = UInt8(scalar)
                written += 1
            case 0x80..<0x800:
                buffer[written] = UInt8(0xC0 | scalar >> 6)
                buffer[written + 1] = UInt8(0x80 | scalar & 0x3F)
                written += 2
            case 0x800..<0x10000:
                buffer[written] = UInt8(0xE0 | scalar >> 12)
                buffer[written + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
                buffer[written + 2] = UInt8(0x80 | scalar & 0x3F)
                written += 3
            default:
                buffer[written] = UInt8(0xF0 | scalar >> 18)
                buffer[written + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
                buffer[written + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
                buffer[written + 3] = UInt8(0x80 | scalar & 0x3F)
                written += 4
            }
        }
        return written
    }
}
