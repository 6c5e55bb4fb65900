import Foundation
import Testing

@testable import RideKit
import TestSupport

/// Reading a file in parts on several threads (`SpeculativeReading`) must give exactly what the sequential reader
/// gives: the same summary, bit for bit, or the same error at the same line and column. The parts here are a few
/// KiB, so that a small document is cut into many, at every kind of place.
@Suite struct SpeculativeReadingTests {
    typealias Outcome = Result<GPXSummary, GPXError>

    struct Reading {
        var outcome: Outcome
        var taken: Int
        var sequential: Int
    }

    static func read(_ url: URL, partBytes: Int?, workers: Int = 2, waitingForWorkers: Bool = false) -> Reading {
        var handler = GPXSummaryHandler(activity: .ride)
        var parts = (taken: 0, sequential: 0)
        do {
            let report = try GPXReader.parse(
                contentsOf: url, into: &handler, options: GPXReadOptions(), partBytes: partBytes ?? 1 << 20,
                minimumFileBytes: 0, workers: partBytes == nil ? 0 : workers, waitingForWorkers: waitingForWorkers, parts: &parts)
            return Reading(outcome: .success(handler.summary(report: report)), taken: parts.taken, sequential: parts.sequential)
        } catch {
            return Reading(outcome: .failure(error), taken: parts.taken, sequential: parts.sequential)
        }
    }

    /// Reads `text` both ways from a temporary file and expects the same outcome; returns the parallel reading.
    @discardableResult
    static func expectSameBothWays(
        _ bytes: [UInt8], partBytes: Int, workers: Int = 2, waitingForWorkers: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Reading {
        let url = FileManager.default.temporaryDirectory.appending(path: "speculative-\(UUID().uuidString).gpx")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let sequential = read(url, partBytes: nil)
        let parallel = read(url, partBytes: partBytes, workers: workers, waitingForWorkers: waitingForWorkers)
        #expect(parallel.outcome == sequential.outcome, sourceLocation: sourceLocation)
        #expect(sequential.taken == 0, sourceLocation: sourceLocation)
        return parallel
    }

    /// What a generated ride contains besides plain points.
    struct Variations {
        var pointCount = 2_000
        var prefix = ""
        var segmentBreakEvery = 0
        var pauseMarkerEvery = 0
        /// Comments holding a whole `<trkpt …/>` after a `>`: a part may start inside one.
        var trapCommentEvery = 0
        var selfClosingEvery = 0
        var segmentExtensionsEvery = 0
        var rebindPrefixInSegment = 0
        var newTrackEvery = 0
        var lineEnd = "\n"
    }

    static func ride(_ v: Variations) -> [UInt8] {
        let p = v.prefix.isEmpty ? "" : v.prefix + ":"
        let gpxns = v.prefix.isEmpty ? "xmlns" : "xmlns:\(v.prefix)"
        let nl = v.lineEnd
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\(nl)"
        text += "<\(p)gpx version=\"1.1\" creator=\"test\" \(gpxns)=\"http://www.topografix.com/GPX/1/1\""
        text += " xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\">\(nl)"
        text += "  <\(p)trk>\(nl)    <\(p)name>Ride</\(p)name>\(nl)    <\(p)trkseg>\(nl)"
        var latitude = 46.5
        var longitude = 7.25
        for index in 0..<v.pointCount {
            latitude += 0.000031 + Double(index % 7) * 0.000001
            longitude += 0.000017
            let time = GPXTime(secondsSince1970: Int64(1_700_000_000 + index)).rfc3339
            if v.segmentBreakEvery > 0 && index > 0 && index % v.segmentBreakEvery == 0 {
                text += "    </\(p)trkseg>\(nl)    <\(p)trkseg>\(nl)"
            }
            if v.newTrackEvery > 0 && index > 0 && index % v.newTrackEvery == 0 {
                text += "    </\(p)trkseg>\(nl)  </\(p)trk>\(nl)  <\(p)trk>\(nl)    <\(p)trkseg>\(nl)"
            }
            if v.rebindPrefixInSegment > 0 && index > 0 && index % v.rebindPrefixInSegment == 0 {
                // The same prefix bound to another namespace: hr and cad are then not Garmin's.
                text += "    </\(p)trkseg>\(nl)    <\(p)trkseg xmlns:gpxtpx=\"urn:example:other\">\(nl)"
            }
            if v.segmentExtensionsEvery > 0 && index > 0 && index % v.segmentExtensionsEvery == 0 {
                text += "      <\(p)extensions><note>here</note></\(p)extensions>\(nl)"
            }
            if v.trapCommentEvery > 0 && index % v.trapCommentEvery == 0 {
                text += "      <!-- > \(nl)      <\(p)trkpt lat=\"1\" lon=\"1\"/> -->\(nl)"
            }
            if v.pauseMarkerEvery > 0 && index > 0 && index % v.pauseMarkerEvery == 0 {
                text += "      <\(p)trkpt lat=\"100.0\" lon=\"0\"/>\(nl)      <\(p)trkpt lat=\"200.0\" lon=\"0\"/>\(nl)"
            }
            let coordinates = "lat=\"\(String(format: "%.7f", latitude))\" lon=\"\(String(format: "%.7f", longitude))\""
            if v.selfClosingEvery > 0 && index % v.selfClosingEvery == 0 {
                text += "      <\(p)trkpt \(coordinates)/>\(nl)"
                continue
            }
            text += "      <\(p)trkpt \(coordinates)>\(nl)"
            text += "        <\(p)ele>\(400 + Double(index % 50) * 0.5)</\(p)ele>\(nl)"
            text += "        <\(p)time>\(time)</\(p)time>\(nl)"
            text += "        <\(p)extensions>\(nl)          <gpxtpx:TrackPointExtension>\(nl)"
            text += "            <gpxtpx:hr>\(100 + index % 40)</gpxtpx:hr>\(nl)            <gpxtpx:cad>\(80 + index % 9)</gpxtpx:cad>\(nl)"
            text += "          </gpxtpx:TrackPointExtension>\(nl)        </\(p)extensions>\(nl)"
            text += "      </\(p)trkpt>\(nl)"
        }
        text += "    </\(p)trkseg>\(nl)  </\(p)trk>\(nl)</\(p)gpx>\(nl)"
        return Array(text.utf8)
    }

    /// The parts a file is cut into, found from its bytes as `SpeculativeReading` describes them: part k starts
    /// before the first `<trkpt` at or after k × `partBytes` past the first `<trkseg>`; the last part has no end,
    /// so no worker can read it. `atSegmentStart`: parts whose first point opens a segment, which the sequential
    /// reader does not take (it hands over only between two points of a segment).
    ///
    /// The last part is counted as read in sequence only if the sequential reader comes to its start before a
    /// worker has found that it has no end (then the reader reads it without looking): that one count depends
    /// on the threads, so the tests pin down the parts taken, and the others to within that one.
    static func parts(of bytes: [UInt8], partBytes: Int) -> (count: Int, atSegmentStart: Int) {
        let text = String(decoding: bytes, as: UTF8.self)
        let start = text.utf8.distance(from: text.utf8.startIndex, to: text.range(of: "<trkseg>")!.upperBound)
        var count = 0
        var atSegmentStart = 0
        var offset = start + partBytes
        while offset < bytes.count, let found = text.range(of: "<trkpt", range: text.utf8.index(text.utf8.startIndex, offsetBy: offset)..<text.endIndex) {
            count += 1
            if text[..<found.lowerBound].trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("<trkseg>") { atSegmentStart += 1 }
            offset += partBytes
        }
        return (count, atSegmentStart)
    }

    @Test func aPlainRideReadInPartsGivesTheSameSummaryAndTheWorkersDoTheWork() throws {
        let bytes = Self.ride(Variations())
        // The sequential reader waits for the workers, so every part but the last comes from them.
        let reading = try Self.expectSameBothWays(bytes, partBytes: 8_192, waitingForWorkers: true)
        let summary = try reading.outcome.get()
        #expect(summary.points == 2_000)
        #expect(summary.segments == 1)
        let parts = Self.parts(of: bytes, partBytes: 8_192)
        #expect(parts.count >= 10)
        #expect(reading.taken == parts.count - 1)
        #expect(reading.sequential <= 1)
    }

    @Test(arguments: [1, 2, 4])
    func anyNumberOfWorkersGivesTheSameSummary(workers: Int) throws {
        let bytes = Self.ride(Variations(segmentBreakEvery: 97))
        let reading = try Self.expectSameBothWays(bytes, partBytes: 5_000, workers: workers, waitingForWorkers: true)
        #expect(try reading.outcome.get().segments == 2_000 / 97 + 1)
        let parts = Self.parts(of: bytes, partBytes: 5_000)
        #expect(parts.atSegmentStart >= 1)
        #expect(reading.taken == parts.count - 1 - parts.atSegmentStart)
        #expect((parts.atSegmentStart...(parts.atSegmentStart + 1)).contains(reading.sequential))
    }

    @Test func withoutWaitingEveryPartIsTakenOrReadInSequence() throws {
        // Which parts the workers get to first depends on the threads; that each part is counted once does not.
        let bytes = Self.ride(Variations())
        let reading = try Self.expectSameBothWays(bytes, partBytes: 8_192)
        let parts = Self.parts(of: bytes, partBytes: 8_192).count
        #expect(((parts - 1)...parts).contains(reading.taken + reading.sequential))
    }

    @Test(arguments: [
        ("segment breaks", Variations(segmentBreakEvery: 13)),
        ("prefixed GPX elements", Variations(prefix: "g", segmentBreakEvery: 211)),
        ("old OpenTracks pause markers", Variations(pauseMarkerEvery: 31)),
        ("comments holding a point", Variations(trapCommentEvery: 5)),
        ("self-closing points", Variations(selfClosingEvery: 3)),
        ("segment extensions", Variations(segmentExtensionsEvery: 101)),
        ("a prefix bound anew in a segment", Variations(rebindPrefixInSegment: 400)),
        ("several tracks", Variations(newTrackEvery: 333)),
        ("CRLF line ends", Variations(segmentBreakEvery: 500, lineEnd: "\r\n")),
        ("everything at once", Variations(
            segmentBreakEvery: 89, pauseMarkerEvery: 53, trapCommentEvery: 7, selfClosingEvery: 11,
            segmentExtensionsEvery: 301, rebindPrefixInSegment: 701, newTrackEvery: 907)),
    ])
    func unusualRidesGiveTheSameSummary(_ name: String, _ variations: Variations) throws {
        for partBytes in [1_000, 3_333, 16_384] {
            try Self.expectSameBothWays(Self.ride(variations), partBytes: partBytes)
        }
    }

    @Test func aPointInsideACommentIsNeverCounted() throws {
        // Every part boundary the search finds may sit inside a comment that holds a point: the worker reads that
        // point, but the sequential reader never stands there, so the part is not taken.
        let reading = try Self.expectSameBothWays(Self.ride(Variations(trapCommentEvery: 1)), partBytes: 2_048)
        #expect(try reading.outcome.get().points == 2_000)
    }

    @Test func theFixturesGiveTheSameSummary() throws {
        for path in Fixtures.wellFormedGPX {
            let bytes = try Fixtures.bytes(path)
            for partBytes in [300, 2_000] {
                try Self.expectSameBothWays(bytes, partBytes: partBytes)
            }
        }
    }

    /// Damage placed at a quarter, half and nine tenths of a ride: the error is the sequential reader's own.
    @Test(arguments: [
        ("lat=\"46.5", "lat=\"96.5"),
        ("<ele>40", "<ele>x40"),
        ("</gpxtpx:cad>", "</gpxtpx:cadx>"),
        ("<time>2023", "<time>2023-02-30"),
        ("<gpxtpx:hr>", "<gpxtpx:hr>\u{FFFF}"),
        ("<trkpt ", "<foo:trkpt "),
        ("      </trkpt>", "      </trkpt></trkseg>"),
        ("        <ele>", "        <!-- - -- -->"),
    ])
    func anErrorIsReportedWhereTheSequentialReaderReportsIt(_ needle: String, _ replacement: String) throws {
        let text = String(decoding: Self.ride(Variations()), as: UTF8.self)
        let ranges = text.ranges(of: needle)
        #expect(ranges.count > 100)
        for fraction in [0.25, 0.5, 0.9] {
            var damaged = text
            damaged.replaceSubrange(ranges[Int(Double(ranges.count) * fraction)], with: replacement)
            let reading = try Self.expectSameBothWays(Array(damaged.utf8), partBytes: 4_096)
            guard case .failure(let error) = reading.outcome else {
                Issue.record("\(replacement) at \(fraction) was accepted")
                continue
            }
            #expect(error.line > 1_000)
        }
    }

    @Test func aTruncatedRideFailsTheSameWay() throws {
        let bytes = Self.ride(Variations())
        for keep in [bytes.count / 3, bytes.count - 20, bytes.count - 2] {
            let reading = try Self.expectSameBothWays(Array(bytes[..<keep]), partBytes: 4_096)
            #expect(throws: GPXError.self) { try reading.outcome.get() }
        }
    }

    /// Random damage anywhere (seeded): whatever the bytes, both readers agree.
    @Test func randomDamageGivesTheSameOutcome() throws {
        let original = Self.ride(Variations(pointCount: 400, segmentBreakEvery: 61, trapCommentEvery: 17))
        let alphabet = Array("<>/=\"' \n&;!-[]?:abctrkptsegl0123456789.".utf8) + [0xC3, 0xFF, 0x00]
        var generator = SeededGenerator(seed: 436)
        var failures = 0
        for _ in 0..<150 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: bytes[index] = alphabet.randomElement(using: &generator)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &generator)!, at: index)
                }
            }
            let reading = try Self.expectSameBothWays(bytes, partBytes: 1_500)
            if case .failure = reading.outcome { failures += 1 }
        }
        // Most random damage breaks the document; some (a digit in a number) does not.
        #expect(failures > 50)
    }
}
