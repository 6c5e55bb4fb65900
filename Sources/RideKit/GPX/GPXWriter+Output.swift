import Foundation

extension GPXWriter {
    // MARK: Output buffer

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    mutating func raw(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    mutating func newline(_ depth: Int) {
        buffer.append(UInt8(ascii: "\n"))
        buffer.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }

    mutating func flushIfFull() {
        if buffer.count >= chunkSize { flush() }
    }

    mutating func flush() {
        guard let sink, !buffer.isEmpty else { return }
        if failure == nil {
            do { try sink(buffer) } catch { failure = error }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    mutating func writeEnd(extensions: [XMLElementNode]) {
        precondition(state != .finished, "GPXWriter: finish called twice")
        if state == .segment { endSegment() }
        if state == .track { endTrack() }
        state = .finished
        writeExtensions(extensions, depth: 1)
        raw("\n</gpx>\n")
    }

    consuming func finishReturningBytes(extensions: [XMLElementNode]) -> [UInt8] {
        writeEnd(extensions: extensions)
        return buffer
    }
}
