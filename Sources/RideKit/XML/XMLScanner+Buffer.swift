import Foundation

extension XMLScanner {
    // MARK: Buffer

    /// Counts the lines and columns of the buffer's first `count` bytes, which are about to leave it, so that
    /// locations stay right.
    mutating func countLines(before count: Int) {
        let newlines = XMLScanner.countNewlines(base, count: count)
        var lastNewline = count - 1
        while lastNewline >= 0 && base[lastNewline] != 10 { lastNewline -= 1 }
        if newlines > 0 {
            linesBeforeBuffer += newlines
            columnCarry = 0
        }
        for index in (lastNewline + 1)..<count where base[index] & 0xC0 != 0x80 { columnCarry += 1 }
    }

    /// Moves the current token to the front of the buffer and reads more. Returns false when there is no more.
    mutating func refill() throws(GPXError) -> Bool {
        if atEndOfInput { return false }
        if tokenStart > 0 {
            countLines(before: tokenStart)
            let kept = end - tokenStart
            if kept > 0 { memmove(base, base + tokenStart, kept) }
            bufferOffset += tokenStart
            position -= tokenStart
            currentTokenStart -= tokenStart
            end = kept
            tokenStart = 0
        }
        // What is left at the front is an unfinished token, which the scanner reads again from its start: read at
        // least as much again as it holds (growing the buffer for it), so that each pass over a long token is twice
        // as long as the one before and all the passes add up to about twice its length, not its square over the
        // chunk size. A whole chunk at a time, as before, when no token is left over.
        let kept = end
        while capacity - end < max(4096, kept) {
            let newCapacity = capacity * 2
            guard newCapacity - 4096 <= XMLScanner.maxTokenBytes + chunkSize else {
                if capacity - end >= 4096 { break }
                throw error(.tokenTooLong(limitBytes: XMLScanner.maxTokenBytes), at: 0)
            }
            storage.grow(to: newCapacity)
            base = storage.pointer
            capacity = newCapacity
        }
        let stop = end + min(capacity - end, max(chunkSize, kept))
        let goal = min(stop, end + max(kept, 1))
        while end < goal {
            let count: Int
            do {
                count = try source.read(into: UnsafeMutableRawBufferPointer(start: base + end, count: stop - end))
            } catch let failure as GPXError {
                throw failure.line == 0 ? error(failure.reason, at: end) : failure
            } catch {
                throw GPXError(.io("cannot read: \(error)"), line: 0, column: 0)
            }
            if count == 0 {
                atEndOfInput = true
                break
            }
            end += count
        }
        return true
    }

    /// Counts LF bytes sixteen at a time: this runs over every byte of every file.
    static func countNewlines(_ start: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        let newline = SIMD16<UInt8>(repeating: 10)
        let one = SIMD16<UInt8>(repeating: 1)
        var total = 0
        var index = 0
        while index + 16 <= count {
            // Byte-wise counters overflow after 255 rounds: fold them into `total` before that.
            var counters = SIMD16<UInt8>()
            var rounds = 0
            while rounds < 255 && index + 16 <= count {
                let bytes = UnsafeRawPointer(start + index).loadUnaligned(as: SIMD16<UInt8>.self)
                counters &+= one.replacing(with: 0, where: bytes .!= newline)
                index += 16
                rounds += 1
            }
            total += Int(SIMD16<UInt16>(truncatingIfNeeded: counters).wrappedSum())
        }
        while index < count {
            if start[index] == 10 { total += 1 }
            index += 1
        }
        return total
    }
}

/// The raw names of the open elements, one after another.
final class ByteStack {
    private(set) var pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 4096)
    private var capacity = 4096
    var count = 0

    func append(_ bytes: UnsafePointer<UInt8>, count length: Int) {
        if count + length > capacity {
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity * 2, count + length))
            bigger.update(from: pointer, count: count)
            pointer.deallocate()
            pointer = bigger
            capacity = max(capacity * 2, count + length)
        }
        (pointer + count).update(from: bytes, count: length)
        count += length
    }

    deinit { pointer.deallocate() }
}

/// The scanner's buffer, owned by a class so that it is freed with the scanner.
final class ScanBuffer {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int

    init(capacity: Int) {
        pointer = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    func grow(to newCapacity: Int) {
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: pointer, count: capacity)
        pointer.deallocate()
        pointer = bigger
        capacity = newCapacity
    }

    deinit { pointer.deallocate() }
}
