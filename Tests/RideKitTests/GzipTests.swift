import Foundation
import TestSupport
import Testing

@testable import RideKit

/// `.gpx.gz` files are inflated as they stream. The truth is `gzip` itself: what it compresses reads back as
/// the plain file does, and what it calls damaged is refused.
@Suite struct GzipTests {
    /// Runs the system's gzip with `arguments` on `input`, returning its standard output.
    static func gzip(_ arguments: [String], _ input: [UInt8]) throws -> [UInt8] {
        let process = TestProcess()
        process.executableURL = URL(filePath: "/bin/gzip")
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // Write on another thread: gzip's output pipe would fill while we still write its input.
        let writer = Thread { try? stdin.fileHandleForWriting.write(contentsOf: Data(input)); try? stdin.fileHandleForWriting.close() }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](output)
    }

    static let ride = SpeculativeReadingTests.ride(.init(pointCount: 3_000, segmentBreakEvery: 700))

    @Test func aCompressedRideReadsAsThePlainOne() throws {
        let compressed = try Self.gzip(["-c", "-9"], Self.ride)
        #expect(compressed.count < Self.ride.count / 5)
        #expect(try GPXReader.read(bytes: compressed) == GPXReader.read(bytes: Self.ride))
    }

    @Test func membersOneAfterAnotherReadAsOneFile() throws {
        // `cat a.gz b.gz` is a valid gzip file of a and b: cut the ride in the middle of a tag.
        let cut = Self.ride.count / 2 + 3
        let joined = try Self.gzip(["-c"], Array(Self.ride[..<cut])) + Self.gzip(["-c"], Array(Self.ride[cut...]))
        #expect(try GPXReader.read(bytes: joined) == GPXReader.read(bytes: Self.ride))
    }

    @Test func bytesAfterTheLastMemberAreIgnoredAsGunzipIgnoresThem() throws {
        let compressed = try Self.gzip(["-c"], Self.ride) + Array("trailing junk\n".utf8)
        #expect(try GPXReader.read(bytes: compressed) == GPXReader.read(bytes: Self.ride))
    }

    @Test func aCutOffFileIsRefused() throws {
        let compressed = try Self.gzip(["-c"], Self.ride)
        let error = try #require(throws: GPXError.self) { try GPXReader.read(bytes: Array(compressed[..<(compressed.count / 2)])) }
        #expect(error.reason == .compressed("the gzip data ends too early (the file is cut off)"))
        #expect(error.line > 1)
    }

    @Test func damagedDataIsRefusedAsGzipRefusesIt() throws {
        let compressed = try Self.gzip(["-c"], Self.ride)
        var refused = 0
        for index in stride(from: 40, to: compressed.count - 8, by: compressed.count / 25) {
            var damaged = compressed
            damaged[index] ^= 0x5A
            // gzip -t is the judge; whatever it says, the reader must end in a result or an error, never crash.
            let gzipRefuses = (try? Self.gzip(["-dc"], damaged))?.count != Self.ride.count
            do {
                _ = try GPXReader.read(bytes: damaged)
            } catch {
                refused += 1
                continue
            }
            #expect(!gzipRefuses, "accepted damage at byte \(index) that gzip refuses")
        }
        #expect(refused > 20)
    }

    @Test func aBombIsRefused() throws {
        // 64 MiB of spaces inside the root compress to about 64 KiB.
        let open = Array("<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">".utf8)
        let bomb = try Self.gzip(["-c"], open + [UInt8](repeating: 0x20, count: 64 << 20) + Array("</gpx>".utf8))
        #expect(bomb.count < 1 << 20)
        let source = try GzipSource(MemorySource(bomb), maximumInflatedBytes: 8 << 20)
        var parser = GPXParser(
            scanner: XMLScanner(source: source, lenient: false) { _ in true }, handler: GPXDocumentBuilder(), lenient: false)
        let error = try #require(throws: GPXError.self) { try parser.parse() }
        #expect(error.reason == .compressed("the gzip data inflates to more than 8 MiB, which bikeride does not read"))
    }

    @Test func theReadOptionsSetTheLimit() throws {
        let compressed = try Self.gzip(["-c"], Self.ride)
        let tight = GPXReadOptions(maximumInflatedBytes: Self.ride.count - 1)
        let error = try #require(throws: GPXError.self) { try GPXReader.read(bytes: compressed, options: tight) }
        #expect(error.reason == .compressed("the gzip data inflates to more than \(Self.ride.count - 1) bytes, which bikeride does not read"))
        #expect(try GPXReader.read(bytes: compressed, options: GPXReadOptions(maximumInflatedBytes: Self.ride.count)) == GPXReader.read(bytes: Self.ride))
    }

    @Test func junkStartingWithHalfTheMagicAfterTheLastMemberIsIgnored() throws {
        // gunzip: "trailing garbage ignored". Only 1F 8B starts another member.
        for junk in [[0x1F], [0x1F, 0x6A, 0x75, 0x6E, 0x6B]] as [[UInt8]] {
            let compressed = try Self.gzip(["-c"], Self.ride) + junk
            #expect(try GPXReader.read(bytes: compressed) == GPXReader.read(bytes: Self.ride))
        }
    }

    @Test func aLargeCompressedFileIsReadInOrderNotInParts() throws {
        // Parts are cut at file offsets, which mean nothing inside gzip: the reader must not try.
        let url = FileManager.default.temporaryDirectory.appending(path: "gzip-\(UUID().uuidString).gpx.gz")
        try Data(Self.gzip(["-c"], Self.ride)).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var handler = GPXSummaryHandler()
        var parts = (taken: 0, sequential: 0)
        _ = try GPXReader.parse(
            contentsOf: url, into: &handler, options: GPXReadOptions(), partBytes: 1_000, minimumFileBytes: 0, workers: 2, parts: &parts)
        var plain = GPXSummaryHandler()
        _ = try GPXReader.parse(bytes: Self.ride, into: &plain)
        #expect(handler.summary() == plain.summary())
        #expect(parts.taken == 0)
        #expect(TrackFileFormat(fileName: url.lastPathComponent) == .gpx)
    }
}
