import Foundation

extension GPXParser {
    // MARK: Reading in parts

    /// At the first track segment: starts reading the rest of the file in parts, in this segment's context.
    mutating func startSpeculation() {
        guard let setup = speculationSetup, handler is any SpeculatedPartConsumer, scanner.depth > 0 else { return }
        speculationSetup = nil
        // `<trkseg/>` has no inside to read in parts.
        let context = scanner.partScanner(reading: MemorySource([]))
        guard context.hasSameContext(as: scanner) else { return }
        let qname = Array(scanner.elementQName.utf8)
        let prefix = scanner.elementPrefixLength == 0 ? [] : Array(qname[...scanner.elementPrefixLength])
        speculation = SpeculativeReading(setup: setup, context: context, trackPointName: prefix + Array("trkpt".utf8), start: scanner.inputOffset)
        nextPartOffset = speculation?.nextBoundary ?? .max
    }

    /// Stops the threads reading ahead, if any. Returns how many parts were taken from them and how many read
    /// sequentially.
    @discardableResult
    mutating func finishSpeculation() -> (taken: Int, sequential: Int) {
        guard let speculation else { return (0, 0) }
        speculation.stop()
        self.speculation = nil
        nextPartOffset = .max
        return (speculation.partsTaken, speculation.partsReadSequentially)
    }

    /// The sequential reader has come to or passed the start of a part read ahead: takes it if it stands exactly
    /// there, between two children of a segment, in the context the part was read in (see `SpeculativeReading`).
    mutating func takeParts(pointsInSegment: inout Int) throws(GPXError) {
        guard let speculation else {
            nextPartOffset = .max
            return
        }
        while scanner.inputOffset >= nextPartOffset {
            let standsAtPart =
                scanner.inputOffset == nextPartOffset && pointsInSegment > 0 && scanner.hasSameContext(as: speculation.template)
            if let part = speculation.advance(taking: standsAtPart), var consumer = handler as? any SpeculatedPartConsumer {
                consumer.absorb(part)
                handler = consumer as! Handler
                try scanner.skip(to: part.end, extent: part.extent)
                pointsInSegment = part.pointsInLastSegment
            }
            nextPartOffset = speculation.nextBoundary
        }
    }

    /// Reads a part on a worker: track points and segment breaks only, from a scanner made by
    /// `XMLScanner.partScanner(reading:)` in `context`. Returns the points since the last segment break (1 when
    /// there was none: the sequential reader only hands over after a point). Throws for anything else, and when
    /// the part does not end in `context`; the sequential reader then reads the part itself.
    mutating func parsePart(in context: XMLScanner) throws(GPXError) -> Int {
        var pointsInSegment = 1
        while true {
            switch try scanner.next(skippingWhitespace: true) {
            case .text: continue
            case .endOfDocument:
                guard scanner.hasSameContext(as: context) else { throw failure(.notWellFormed("a part ends elsewhere")) }
                return pointsInSegment
            case .endElement:
                // `</trkseg>`: within a part only a new `<trkseg>` may follow.
                handler.endSegment(extensions: [])
                var event = try scanner.next(skippingWhitespace: true)
                while event == .text { event = try scanner.next(skippingWhitespace: true) }
                guard event == .startElement, gpxName() == .trkseg else { throw failure(.notWellFormed("not a segment break")) }
                handler.beginSegment()
                pointsInSegment = 0
            case .startElement:
                guard gpxName() == .trkpt else { throw failure(.notWellFormed("not a track point")) }
                if isLegacyPauseMarker() {
                    try skipElement()
                    if pointsInSegment > 0 {
                        handler.endSegment(extensions: [])
                        handler.beginSegment()
                        pointsInSegment = 0
                    }
                } else if let point = try parsePoint(element: "trkpt") {
                    handler.trackPoint(point)
                    pointsInSegment += 1
                }
            }
        }
    }
}
