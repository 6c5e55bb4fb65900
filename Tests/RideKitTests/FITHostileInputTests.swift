import Foundation
@testable import RideKit
import TestSupport
import Testing

/// Damaged and hostile FIT files: each gets a clear error or a lenient read, never a crash, and costs time in
/// proportion to its size.
@Suite struct FITHostileInputTests {
    /// A FIT file around `records` (the records' bytes), with a right header and CRC.
    static func file(_ records: [UInt8], dataSize: UInt32? = nil) -> [UInt8] {
        let size = dataSize ?? UInt32(records.count)
        var header: [UInt8] = [14, 0x20, 0x08, 0x08]
        header += withUnsafeBytes(of: size.littleEndian, Array.init)
        header += Array(".FIT".utf8)
        var headerCRC = FITCRC()
        headerCRC.update(header)
        header += [UInt8(headerCRC.value & 0xFF), UInt8(headerCRC.value >> 8)]
        var bytes = header + records
        var crc = FITCRC()
        crc.update(bytes)
        bytes += [UInt8(crc.value & 0xFF), UInt8(crc.value >> 8)]
        return bytes
    }

    @Test func theCRCIsCRC16ARC() {
        var crc = FITCRC()
        crc.update(Array("123456789".utf8))
        #expect(crc.value == 0xBB3D)  // the check value of CRC-16/ARC
    }

    /// A real file cut at every length: strict mode names the problem, lenient mode keeps what came before.
    @Test func aFileCutAnywhereIsAClearErrorOrALenientRead() throws {
        let bytes = try Fixtures.bytes("fit/python-fitparse/Activity.fit")
        for length in 0..<bytes.count {
            let cut = Array(bytes[..<length])
            #expect(throws: FITError.self, "cut at \(length)") { try FITReader.read(cut) }
            if length >= 14 {
                let read = try FITReader.read(cut, lenient: true)
                #expect(!read.warnings.isEmpty, "cut at \(length)")
            }
        }
    }

    /// Bytes flipped at random (seeded) in a real file: strict and lenient reads either succeed or throw
    /// `FITError`; nothing traps.
    @Test func flippedBytesNeverCrash() throws {
        let original = try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-walk.fit")
        var generator = SeededGenerator(seed: 41)
        for _ in 0..<3_000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let index = Int.random(in: 0..<bytes.count, using: &generator)
                bytes[index] = UInt8.random(in: 0...255, using: &generator)
            }
            for lenient in [false, true] {
                do { _ = try FITReader.read(bytes, lenient: lenient) } catch is FITError {}
            }
        }
    }

    @Test func aHeaderClaimingFourGigabytesEndsEarly() throws {
        let records: [UInt8] = [0x40, 0, 0, 0, 0, 1, 0, 1, 0x00, 0x00, 4]
        let bytes = Self.file(records, dataSize: 0xFFFF_FFFF)
        do {
            _ = try FITReader.read(bytes)
            Issue.record("read a file that claims 4 GB")
        } catch let error as FITError {
            guard case .truncated = error.reason else { Issue.record("\(error)"); return }
            #expect(error.description.contains("ends early"))
        }
        let lenient = try FITReader.read(bytes, lenient: true)
        #expect(!lenient.warnings.isEmpty)
    }

    /// The largest definition FIT allows (255 fields of 255 bytes, developer fields too), then a data message of
    /// it: read, its fields skipped or read, nothing more.
    @Test func theLargestDefinitionIsRead() throws {
        var records: [UInt8] = [0x60, 0, 0, 20, 0, 255]
        for field in 0..<255 { records += [UInt8(field), 255, 0x0D] }
        records += [255]
        for field in 0..<255 { records += [UInt8(field), 255, 0] }
        records += [0x00] + [UInt8](repeating: 0xFF, count: 255 * 255 * 2)
        let activity = try FITReader.read(Self.file(records))
        #expect(!activity.hasPositions)
    }

    /// A million definitions and nothing else: read in one pass (time in proportion to the bytes).
    @Test func endlessDefinitionsAreReadInOnePass() throws {
        let definition: [UInt8] = [0x40, 0, 0, 20, 0, 3, 0, 4, 0x85, 1, 4, 0x85, 253, 4, 0x86]
        var records: [UInt8] = []
        records.reserveCapacity(definition.count * 200_000)
        for _ in 0..<200_000 { records += definition }
        let bytes = Self.file(records)
        let report = try bytes.withUnsafeBytes { try FITDecoder.decode($0) { _ in } }
        #expect(report.definitionMessages == 200_000 && report.dataMessages == 0)
    }

    /// A data message whose local type was never defined, and an architecture byte that is neither 0 nor 1.
    @Test func undefinedTypesAndBadDefinitionsAreNamed() throws {
        do {
            _ = try FITReader.read(Self.file([0x03, 1, 2, 3]))
            Issue.record("read a message of an undefined type")
        } catch let error as FITError {
            #expect(error.reason == .undefinedLocalType(3))
            #expect(error.offset == 14)
        }
        do {
            _ = try FITReader.read(Self.file([0x40, 0, 7, 20, 0, 0]))
            Issue.record("read a definition with architecture 7")
        } catch let error as FITError {
            guard case .badDefinition = error.reason else { Issue.record("\(error)"); return }
            #expect(error.offset == 16)
        }
        #expect(throws: FITError.self) { try FITReader.read(Array("<gpx/>".utf8)) }
        #expect(throws: FITError.self) { try FITReader.read([UInt8]()) }
    }

    /// Found by the fuzzer: an `enhanced_altitude` of 1,454,957.6 m was kept, and the GPX written from the file was
    /// refused by the GPX reader. An altitude no GPX may hold is left out, and the GPX reads back.
    @Test func anAltitudeNoGPXMayHoldIsLeftOut() throws {
        // record: position_lat, position_long (sint32), enhanced_altitude (uint32), then one at 430 m.
        var records: [UInt8] = [0x40, 0, 0, 20, 0, 3, 0, 4, 0x85, 1, 4, 0x85, 78, 4, 0x86]
        for altitude in [UInt32((1_454_957.6 + 500) * 5), UInt32((430 + 500) * 5)] {
            records += [0x00] + withUnsafeBytes(of: Int32(554_766_609).littleEndian, Array.init)
                + withUnsafeBytes(of: Int32(78_741_067).littleEndian, Array.init) + withUnsafeBytes(of: altitude.littleEndian, Array.init)
        }
        let activity = try FITReader.read(Self.file(records))
        let points = try #require(activity.document.tracks.first?.segments.first?.points)
        #expect(points.map(\.elevation) == [nil, 430])
        let back = try GPXReader.read(bytes: GPXWriter.write(activity.document))
        #expect(back.tracks.first?.segments.first?.points.count == 2)
    }

    /// Both byte orders: the same record, little- and big-endian, reads the same.
    @Test func bothByteOrdersReadTheSame() throws {
        func record(bigEndian: Bool) -> [UInt8] {
            func bytes<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
                withUnsafeBytes(of: bigEndian ? value.bigEndian : value.littleEndian, Array.init)
            }
            // record (20): position_lat, position_long (sint32), timestamp (uint32), heart_rate (uint8), altitude (uint16).
            var out: [UInt8] = [0x40, 0, bigEndian ? 1 : 0] + bytes(UInt16(20)) + [5, 0, 4, 0x85, 1, 4, 0x85, 253, 4, 0x86, 3, 1, 0x02, 2, 2, 0x84]
            out += [0x00] + bytes(Int32(554_766_609)) + bytes(Int32(78_741_067)) + bytes(UInt32(1_000_000_000)) + [150] + bytes(UInt16(2_500 + 2_150))
            return out
        }
        let little = try FITReader.read(Self.file(record(bigEndian: false)))
        let big = try FITReader.read(Self.file(record(bigEndian: true)))
        #expect(little == big)
        let point = try #require(little.document.tracks.first?.segments.first?.points.first)
        // 46.5 × 2³¹ / 180 = 554,766,609.07 semicircles, 6.6° = 78,741,067.09; (4,650 / 5) − 500 = 430 m; 10⁹ s after
        // 1989-12-31, which is 1970 + 631,065,600 s.
        #expect(abs(point.latitude - 46.5) < 1e-7, "\(point.latitude)")
        #expect(abs(point.longitude - 6.6) < 1e-7, "\(point.longitude)")
        #expect(point.elevation == 430)
        #expect(point.heartRate == 150)
        let seconds: Int64 = 631_065_600 + 1_000_000_000
        #expect(point.time?.secondsSince1970 == seconds)
    }
}
