import Foundation
import TestSupport
@testable import RideKit
import Testing

/// The zip writer of the library export, read back by an independent reader: Python's `zipfile` (which checks every
/// CRC-32 and the ZIP64 records), for empty, one, two and many entries, deflated and stored, UTF-8 names, and the
/// ZIP64 records forced by lowering the thresholds (so that they are exercised without writing 4 GiB).
@Suite struct ZipWriterTests {
    /// What Python's zipfile reads of an archive: each entry's name, size, compression method and SHA-256, after
    /// `testzip()` found every CRC right.
    struct ReadEntry: Decodable, Equatable {
        var name: String
        var size: Int
        var method: Int
        var sha256: String
    }

    static let reader = """
        import hashlib, json, sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as archive:
            bad = archive.testzip()
            assert bad is None, 'bad CRC in ' + str(bad)
            print(json.dumps([{'name': info.filename, 'size': info.file_size, 'method': info.compress_type,
                               'sha256': hashlib.sha256(archive.read(info)).hexdigest()} for info in archive.infolist()]))
        """

    static func readWithPython(_ bytes: [UInt8]) throws -> [ReadEntry] {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-zip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appending(path: "a.zip"), script = folder.appending(path: "read.py")
        try Data(bytes).write(to: zip)
        try Data(reader.utf8).write(to: script)
        let process = TestProcess()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.path, zip.path]
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(String(decoding: message, as: UTF8.self))")
        return try JSONDecoder().decode([ReadEntry].self, from: data)
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        // A check of the check: hashed by Python too, compared with what Python read back.
        let process = TestProcess()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try? process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try? input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Entries of every kind: empty, tiny, compressible, incompressible (random), a UTF-8 name.
    static func contents(count: Int) -> [(String, [UInt8])] {
        var generator = SystemRandomNumberGenerator()
        let all: [(String, [UInt8])] = [
            ("empty.txt", []),
            ("tiny.txt", Array("hi".utf8)),
            ("tracks/ride.gpx", Array(String(repeating: "<trkpt lat=\"47.1\" lon=\"8.5\"></trkpt>\n", count: 5_000).utf8)),
            ("photos/random.jpg", (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
            ("places/Zürich café ☕.json", Array(#"{"name": "Zürich"}"#.utf8)),
        ]
        return Array(all.prefix(count))
    }

    @Test(arguments: [0, 1, 2, 5]) func pythonReadsWhatItWrites(_ count: Int) throws {
        let entries = Self.contents(count: count)
        var zip = ZipWriter()
        var bytes: [UInt8] = []
        for (name, content) in entries { bytes += zip.entry(named: name, bytes: content, modified: Date(timeIntervalSince1970: 1_700_000_000)) }
        bytes += zip.finish()
        #expect(zip.offset == UInt64(bytes.count))
        let read = try Self.readWithPython(bytes)
        #expect(read.map(\.name) == entries.map(\.0))
        #expect(read.map(\.size) == entries.map(\.1.count))
        #expect(read.map(\.sha256) == entries.map { Self.sha256($0.1) })
        if count >= 4 {
            #expect(read[2].method == 8, "text is deflated")
            #expect(read[3].method == 0, "random bytes are stored: deflating would grow them")
            #expect(bytes.count < entries.reduce(0) { $0 + $1.1.count }, "smaller than its contents")
        }
    }

    @Test func zip64RecordsAreReadWhereSizesOffsetsAndCountsNeedThem() throws {
        var zip = ZipWriter()
        zip.zip64Threshold = 100
        zip.zip64EntryThreshold = 3
        let entries = Self.contents(count: 5)
        var bytes: [UInt8] = []
        for (name, content) in entries { bytes += zip.entry(named: name, bytes: content, modified: Date()) }
        bytes += zip.finish()
        // The ZIP64 end record and its locator are there.
        #expect(bytes.windows(ofCount: 4).contains { Array($0) == [0x50, 0x4B, 0x06, 0x06] })
        #expect(bytes.windows(ofCount: 4).contains { Array($0) == [0x50, 0x4B, 0x06, 0x07] })
        let read = try Self.readWithPython(bytes)
        #expect(read.map(\.name) == entries.map(\.0))
        #expect(read.map(\.sha256) == entries.map { Self.sha256($0.1) })
    }

    @Test func dosTimesCountFrom1980InTwoSecondSteps() {
        // 2024-05-04 07:40:31 UTC.
        let (time, date) = ZipWriter.dosTime(Date(timeIntervalSince1970: 1_714_808_431))
        #expect(time == UInt16(7 << 11 | 40 << 5 | 15))
        #expect(date == UInt16((2024 - 1980) << 9 | 5 << 5 | 4))
    }
}

extension Array {
    fileprivate func windows(ofCount size: Int) -> [ArraySlice<Element>] {
        guard count >= size else { return [] }
        return (0...(count - size)).map { self[$0..<($0 + size)] }
    }
}
