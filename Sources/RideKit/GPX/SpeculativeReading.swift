import Foundation

/// What a part of a track segment read on another thread holds: the steps for the track figures, the counts, and
/// where the part ends.
struct SpeculatedPart: @unchecked Sendable {
    var steps: [BackgroundStatsAccumulator.Step] = []
    var points = 0
    var segments = 0
    /// Points since the last segment break, or the part's starting value (1) when it has none.
    var pointsInLastSegment = 1
    /// Input offset just after the part.
    var end = 0
    /// Line feeds in the part, and characters after the last one (all of them if none).
    var extent = (newlines: 0, tailColumns: 0)
}

/// A handler that takes parts read on other threads instead of the points one by one (`GPXSummaryHandler`).
protocol SpeculatedPartConsumer {
    mutating func absorb(_ part: SpeculatedPart)
}

/// Collects what a part holds for `SpeculatedPart`.
struct SpeculatedPartHandler: GPXContentHandler {
    var part = SpeculatedPart()

    var keepsUnknownExtensions: Bool { false }
    mutating func beginDocument(version: String, creator: String?) {}
    mutating func waypoint(_ waypoint: Waypoint) {}
    mutating func route(_ route: Route) {}
    mutating func beginTrack() {}

    mutating func beginSegment() {
        part.segments += 1
        part.steps.append(.beginSegment)
    }

    mutating func trackPoint(_ point: TrackPoint) {
        part.points += 1
        part.steps.append(
            .point(
                latitude: point.latitude, longitude: point.longitude, elevation: point.elevation, time: point.time,
                speed: point.speedMetersPerSecond))
    }

    mutating func endSegment(extensions: [XMLElementNode]) {}
    mutating func endTrack(_ track: Track) {}
    mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode]) {}
}

/// Where a file may be read in parts: it must be a regular UTF-8 file without a byte order mark, so that the
/// tokenizer's offsets are the file's. The workers read the sequential reader's own open file (`pread`), so both
/// see the same bytes even if the path is replaced meanwhile; the descriptor must stay open until `stop()`.
struct SpeculationSetup {
    var descriptor: Int32
    var fileSize: Int
    var partBytes: Int
    var workers: Int
    /// For tests: the sequential reader waits for a worker to read each part instead of reading the part itself
    /// when no worker has got to it yet, so that which parts are taken does not depend on the threads' timing.
    var waitsForWorkers = false
}

/// Reads the track points of a large file on several threads at once, without giving up anything of the
/// sequential reader's strictness or its messages.
///
/// The file is cut into parts of about `partBytes`, each starting just before a `<trkpt` that follows a `>` and
/// white space. Worker threads read the parts *speculatively*: a copy of the tokenizer in the context of the
/// first track segment (open elements, namespace bindings) reads the part as the points of a segment, with
/// segment breaks allowed, and succeeds only if it ends exactly at the part's end in the same context. The
/// sequential reader goes on as before; when it arrives at a part's first byte between two children of a
/// segment, in that same context, the tokenizer would do exactly what the worker did (same bytes, same state),
/// so it takes the worker's result and skips the bytes. Anywhere else, or when the worker gave up (anything but
/// points and segment breaks, any error), it reads the part itself: errors are always found and reported by
/// the sequential reader, with their own line and column.
final class SpeculativeReading: @unchecked Sendable {
    static let defaultPartBytes = 4 << 20
    /// Smaller files are read sequentially: threads would cost more than they save.
    static let minimumFileBytes = 16 << 20
    /// One worker per core, up to four; none on a single core. `BIKERIDE_READER_THREADS` overrides it (0: read
    /// sequentially), for comparisons.
    static let defaultWorkers: Int = {
        if let text = ProcessInfo.processInfo.environment["BIKERIDE_READER_THREADS"], let count = Int(text), count >= 0 {
            return min(count, 16)
        }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return cores < 2 ? 0 : min(cores, 4)
    }()

    /// The context every part is read in.
    let template: XMLScanner
    /// `<` and the qualified name of a track point.
    private let pattern: [UInt8]
    private let descriptor: Int32
    private let fileSize: Int
    private let start: Int
    private let partBytes: Int
    /// Parts read ahead of the sequential reader at most: bounds memory whatever the file's size.
    private let partsAhead: Int
    private let waitsForWorkers: Bool

    private enum State {
        case reading
        case done(SpeculatedPart)
        case failed
        /// The sequential reader reads (or has passed) this part itself.
        case abandoned
    }

    private let condition = NSCondition()
    private var states: [Int: State] = [:]
    private var boundaries: [Int: Int] = [:]
    /// The first part with no boundary after its start: it and later parts are not read ahead.
    private var lastPart = Int.max
    private var nextToClaim = 1
    /// The part whose start the sequential reader comes to next.
    private var current = 1
    private var stopped = false
    private var running = 0

    /// Parts the sequential reader took from the workers, and parts it read itself: for tests and measurements.
    private(set) var partsTaken = 0
    private(set) var partsReadSequentially = 0

    /// The offset where the next part starts, `Int.max` when there is none.
    private(set) var nextBoundary = Int.max

    /// Starts the workers.
    init(setup: SpeculationSetup, context: XMLScanner, trackPointName: [UInt8], start: Int) {
        descriptor = setup.descriptor
        template = context
        pattern = [UInt8(ascii: "<")] + trackPointName
        fileSize = setup.fileSize
        self.start = start
        partBytes = setup.partBytes
        partsAhead = max(4, setup.workers * 2)
        waitsForWorkers = setup.waitsForWorkers
        nextBoundary = boundary(of: 1) ?? .max
        running = setup.workers
        for index in 0..<setup.workers {
            let thread = Thread { [self] in work() }
            thread.name = "bikeride reader \(index + 1)"
            thread.start()
        }
    }

    /// Ends the workers (a part being read is finished first).
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        states = [:]
        condition.unlock()
    }

    // MARK: The sequential reader's side

    /// Moves on to the next part. With `taking`, the sequential reader stands at the current part's first byte
    /// in the template's context and takes the worker's result, waiting for it if a worker is at it; nil when
    /// there is none to take (no worker got to it, or it gave up). Without, the part is the sequential reader's.
    func advance(taking: Bool) -> SpeculatedPart? {
        condition.lock()
        var result: SpeculatedPart?
        if taking {
            while true {
                if case .reading = states[current] {
                    condition.wait()
                } else if waitsForWorkers, states[current] == nil, nextToClaim <= current, current < lastPart, running > 0, !stopped {
                    condition.wait()
                } else {
                    break
                }
            }
            if case .done(let part) = states[current] { result = part }
        }
        if result == nil { partsReadSequentially += 1 } else { partsTaken += 1 }
        states[current] = nil
        if current >= nextToClaim { nextToClaim = current + 1 }
        current += 1
        let next = current
        let last = lastPart
        condition.broadcast()
        condition.unlock()
        nextBoundary = next >= last ? .max : (boundary(of: next) ?? .max)
        return result
    }

    // MARK: Workers

    private func work() {
        condition.lock()
        while true {
            while !stopped && nextToClaim < lastPart && nextToClaim > current + partsAhead { condition.wait() }
            if stopped || nextToClaim >= lastPart { break }
            let index = nextToClaim
            nextToClaim += 1
            states[index] = .reading
            condition.unlock()
            let outcome = read(part: index)
            condition.lock()
            if index >= current {
                states[index] = outcome.map { .done($0) } ?? .failed
            } else {
                states[index] = nil
            }
            condition.broadcast()
        }
        running -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Reads part `index` in the template's context; nil when that does not work out.
    private func read(part index: Int) -> SpeculatedPart? {
        guard let from = boundary(of: index) else { return nil }
        guard let to = boundary(of: index + 1) else {
            condition.lock()
            lastPart = min(lastPart, index)
            condition.unlock()
            return nil
        }
        // A part far longer than asked for (matches of the pattern stopped for a long stretch) would hold all its
        // points at once: the sequential reader reads such a part itself.
        guard to >= from, to - from <= 2 * partBytes + Self.window else { return nil }
        let source = FileRangeSource(descriptor: descriptor, range: from..<to)
        var handler = SpeculatedPartHandler()
        // Room for a point every 256 bytes (a point with time and elevation takes 100 or more): the array grows
        // once or not at all.
        handler.part.steps.reserveCapacity((to - from) / 256)
        var parser = GPXParser(scanner: template.partScanner(reading: source), handler: handler, lenient: false)
        guard let pointsInLastSegment = try? parser.parsePart(in: template) else { return nil }
        var part = parser.handler.part
        part.pointsInLastSegment = pointsInLastSegment
        part.end = to
        part.extent = parser.scanner.extentOfInput
        return part
    }

    // MARK: Boundaries

    /// Where part `index` starts: the first `<trkpt` at or after `start + index × partBytes` that follows a `>`
    /// and white space, at the start of that white space. Nil when there is none.
    private func boundary(of index: Int) -> Int? {
        condition.lock()
        if let known = boundaries[index] {
            condition.unlock()
            return known < 0 ? nil : known
        }
        condition.unlock()
        let found = findBoundary(from: start + index * partBytes)
        condition.lock()
        boundaries[index] = found ?? -1
        if found == nil { lastPart = min(lastPart, index) }
        condition.unlock()
        return found
    }

    private static let window = 1 << 16
    private static let lookBehind = 256

    private func findBoundary(from offset: Int) -> Int? {
        var windowStart = offset
        var buffer = [UInt8](repeating: 0, count: Self.lookBehind + Self.window)
        while windowStart < fileSize {
            let readFrom = max(0, windowStart - Self.lookBehind)
            let wanted = min(buffer.count, fileSize - readFrom)
            var filled = 0
            var source = FileRangeSource(descriptor: descriptor, range: readFrom..<(readFrom + wanted))
            while filled < wanted {
                guard let count = try? buffer.withUnsafeMutableBytes({ try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled..<wanted])) }),
                    count > 0
                else { return nil }
                filled += count
            }
            if let found = buffer.withUnsafeBufferPointer({ scan($0, count: filled, firstCandidate: windowStart - readFrom) }) {
                return readFrom + found
            }
            // The next window starts where a match could not be seen whole in this one.
            windowStart = readFrom + filled - pattern.count
            if readFrom + filled >= fileSize { break }
        }
        return nil
    }

    /// The boundary before the first acceptable `<trkpt` at or after `firstCandidate` in `bytes[..<count]`.
    private func scan(_ bytes: UnsafeBufferPointer<UInt8>, count: Int, firstCandidate: Int) -> Int? {
        let length = pattern.count
        var index = firstCandidate
        while index + length < count {
            guard let found = memchr(bytes.baseAddress! + index, Int32(UInt8(ascii: "<")), count - length - index) else { return nil }
            let at = bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            index = at + 1
            guard pattern.withUnsafeBufferPointer({ memcmp(bytes.baseAddress! + at, $0.baseAddress!, length) }) == 0 else { continue }
            let after = bytes[at + length]
            guard after == 0x20 || after == 0x09 || after == 0x0A || after == 0x0D || after == UInt8(ascii: ">") || after == UInt8(ascii: "/")
            else { continue }
            var before = at
            while before > 0 && at - before < Self.lookBehind - 1 {
                let byte = bytes[before - 1]
                guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { break }
                before -= 1
            }
            guard before > 0, bytes[before - 1] == UInt8(ascii: ">") else { continue }
            return before
        }
        return nil
    }
}
