import Foundation
@testable import RideKit
import TestSupport
import Testing

/// Real FIT files damaged on purpose, as the fuzzer (`Benchmarks/fuzz/run-fit.sh`) damages them, but seeded and
/// small enough for every test run: cut short, bytes flipped with the CRCs made right again (so that the damage
/// reaches the message decoder in strict mode too), and definitions that claim sizes and counts they do not
/// have. Each read, strict and lenient, either succeeds or throws a `FITError` that says at which byte of the
/// file and what; nothing traps.
@Suite struct FITMutationTests {
    /// Activities from several makers (Garmin watches and bike computers, an indoor trainer, developer fields,
    /// compressed speed and distance, timestamps in events).
    static let fixtures = [
        "fit/python-fitparse/garmin-fenix-5-walk.fit", "fit/python-fitparse/garmin-fenix-5-run.fit",
        "fit/python-fitparse/compressed-speed-distance.fit", "fit/python-fitparse/2015-10-13-08-43-15.fit",
        "fit/python-fitparse/sample-activity-indoor-trainer.fit", "fit/python-fitparse/2013-02-06-12-11-14.fit",
        "fit/python-fitparse/DeveloperData.fit", "fit/python-fitparse/activity-settings.fit",
    ]

    /// What a read may end in: an activity, or a `FITError` that names a byte inside the file and a problem.
    static func expectClearOutcome(_ bytes: [UInt8], lenient: Bool, _ what: String) {
        do {
            _ = try FITReader.read(bytes, lenient: lenient)
        } catch let error as FITError {
            #expect(error.offset >= 0 && error.offset <= bytes.count, "\(what): \(error)")
            #expect(error.description.hasPrefix("FIT, byte \(error.offset): "), "\(what): \(error)")
        } catch {
            Issue.record("\(what): not a FITError: \(error)")
        }
    }

    /// `bytes` with the header's CRC (14-byte headers) and the first file's CRC computed again.
    static func withCRCsRecomputed(_ bytes: [UInt8]) -> [UInt8] {
        var fixed = bytes
        let headerSize = Int(bytes[0])
        let dataSize = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        if headerSize == 14 {
            var crc = FITCRC()
            crc.update(fixed[0..<12])
            fixed[12] = UInt8(crc.value & 0xFF)
            fixed[13] = UInt8(crc.value >> 8)
        }
        let end = headerSize + dataSize
        guard end + 2 <= fixed.count else { return fixed }
        var crc = FITCRC()
        crc.update(fixed[0..<end])
        fixed[end] = UInt8(crc.value & 0xFF)
        fixed[end + 1] = UInt8(crc.value >> 8)
        return fixed
    }

    /// Where the definition messages of the first FIT file in `bytes` start, found by walking its records as the
    /// protocol lays them out (the test's own walk, not the decoder's).
    static func definitionOffsets(_ bytes: [UInt8]) -> [Int] {
        let headerSize = Int(bytes[0])
        let end = headerSize + (Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24)
        var sizes = [Int?](repeating: nil, count: 16)
        var offsets: [Int] = []
        var offset = headerSize
        while offset < end {
            let header = bytes[offset]
            if header & 0x80 != 0 {  // compressed timestamp: a data message of local type 0–3
                guard let size = sizes[Int(header >> 5 & 3)] else { break }
                offset += 1 + size
            } else if header & 0x40 != 0 {  // definition
                offsets.append(offset)
                let fields = Int(bytes[offset + 5])
                var size = 0
                for field in 0..<fields { size += Int(bytes[offset + 6 + field * 3 + 1]) }
                var length = 6 + fields * 3
                if header & 0x20 != 0 {  // developer fields
                    let developerFields = Int(bytes[offset + length])
                    for field in 0..<developerFields { size += Int(bytes[offset + length + 1 + field * 3 + 1]) }
                    length += 1 + developerFields * 3
                }
                sizes[Int(header & 0x0F)] = size
                offset += length
            } else {
                guard let size = sizes[Int(header & 0x0F)] else { break }
                offset += 1 + size
            }
        }
        return offsets
    }

    @Test(arguments: fixtures) func everyFixtureReadsAndHasDefinitions(_ path: String) throws {
        let bytes = try Fixtures.bytes(path)
        _ = try FITReader.read(bytes)
        #expect(Self.definitionOffsets(bytes).count >= 2, "the walk found the definitions")
    }

    /// Cut at 97 places spread over the file: strict mode says the file ends early (or a damaged CRC), lenient
    /// mode reads what came before, never traps.
    @Test(arguments: fixtures) func cutShort(_ path: String) throws {
        let bytes = try Fixtures.bytes(path)
        for step in 0..<97 {
            let length = bytes.count * step / 97
            let cut = Array(bytes[..<length])
            #expect(throws: FITError.self, "\(path) cut at \(length)") { try FITReader.read(cut) }
            Self.expectClearOutcome(cut, lenient: true, "\(path) cut at \(length)")
        }
    }

    /// 1 to 8 random bytes changed (seeded), then the CRCs made right: the decoder meets the damage itself.
    @Test(arguments: fixtures) func flippedBytesWithRightCRCs(_ path: String) throws {
        let original = try Fixtures.bytes(path)
        var generator = SeededGenerator(seed: UInt64(path.utf8.count) * 7_919)
        for round in 0..<150 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                // Past the header: a damaged header is only a wrong signature or size, tested elsewhere.
                let index = Int.random(in: 14..<bytes.count, using: &generator)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &generator)
            }
            let fixed = Self.withCRCsRecomputed(bytes)
            for lenient in [false, true] {
                Self.expectClearOutcome(bytes, lenient: lenient, "\(path) round \(round)")
                Self.expectClearOutcome(fixed, lenient: lenient, "\(path) round \(round), CRCs right")
            }
        }
    }

    /// Definitions that lie: a field of size 0 or 255, 255 fields, no fields, an unknown architecture, another
    /// global message number, a developer-field flag the definition does not follow. The CRCs are right, so only
    /// the decoder's own checks stand between the lie and a crash.
    @Test(arguments: fixtures) func bogusDefinitions(_ path: String) throws {
        let original = try Fixtures.bytes(path)
        let offsets = Self.definitionOffsets(original)
        for (number, offset) in offsets.prefix(12).enumerated() {
            let fields = Int(original[offset + 5])
            var lies: [(String, (inout [UInt8]) -> Void)] = [
                ("255 fields", { $0[offset + 5] = 255 }),
                ("no fields", { $0[offset + 5] = 0 }),
                ("architecture 2", { $0[offset + 2] = 2 }),
                ("global number 65535", { $0[offset + 3] = 0xFF; $0[offset + 4] = 0xFF }),
                ("developer flag", { $0[offset] ^= 0x20 }),
                ("local type 15", { $0[offset] = $0[offset] & 0xF0 | 0x0F }),
            ]
            if fields > 0 {
                lies += [
                    ("a field of size 0", { $0[offset + 7] = 0 }),
                    ("a field of size 255", { $0[offset + 7] = 255 }),
                    ("a field of size 3 as uint32", { $0[offset + 7] = 3; $0[offset + 8] = 0x86 }),
                    ("the last field of size 255", { $0[offset + 6 + (fields - 1) * 3 + 1] = 255 }),
                    ("an unknown base type", { $0[offset + 8] = 0x7F }),
                ]
            }
            for (lie, apply) in lies {
                var bytes = original
                apply(&bytes)
                bytes = Self.withCRCsRecomputed(bytes)
                for lenient in [false, true] {
                    Self.expectClearOutcome(bytes, lenient: lenient, "\(path), definition \(number) at \(offset): \(lie)")
                }
            }
        }
    }
}
