import Foundation
@testable import RideKit
import TestSupport
import Testing

/// The QR encoder of the phone-app setup screen, against independent truth: ISO 18004's tables (format and version
/// bits, codeword counts, generator polynomials), the Reed–Solomon codewords checked by evaluating the codeword
/// polynomial at the generator's roots, and every symbol read back by a second tool, zbar's `zbarimg`.
@Suite struct QRCodeTests {
    /// ISO 18004 Annex C, Table C.1: the 15 masked format bits, by level (L, M, Q, H) then mask 0…7.
    static let formatTable: [QRCode.ErrorCorrection: [String]] = [
        .low: ["111011111000100", "111001011110011", "111110110101010", "111100010011101",
               "110011000101111", "110001100011000", "110110001000001", "110100101110110"],
        .medium: ["101010000010010", "101000100100101", "101111001111100", "101101101001011",
                  "100010111111001", "100000011001110", "100111110010111", "100101010100000"],
        .quartile: ["011010101011111", "011000001101000", "011111100110001", "011101000000110",
                    "010010010110100", "010000110000011", "010111011011010", "010101111101101"],
        .high: ["001011010001001", "001001110111110", "001110011100111", "001100111010000",
                "000011101100010", "000001001010101", "000110100001100", "000100000111011"],
    ]

    /// ISO 18004 Annex D, Table D.1: the 18 version bits of versions 7 to 10.
    static let versionTable: [Int: String] = [
        7: "000111110010010100", 8: "001000010110111100", 9: "001001101010011001", 10: "001010010011010011",
    ]

    /// ISO 18004 Table 1 / Table 9: all codewords of each version 1…10, and its remainder bits.
    static let totalCodewords = [26, 44, 70, 100, 134, 172, 196, 242, 292, 346]
    static let remainderBits = [0, 7, 7, 7, 7, 7, 0, 0, 0, 0]

    @Test func formatBitsAreISOsTable() {
        for (level, row) in Self.formatTable {
            for mask in 0..<8 {
                #expect(QRCode.formatBits(level: level, mask: mask) == Int(row[mask], radix: 2), "level \(level) mask \(mask)")
            }
        }
    }

    @Test func versionBitsAreISOsTable() {
        for (version, bits) in Self.versionTable {
            #expect(QRCode.versionBits(version: version) == Int(bits, radix: 2), "version \(version)")
        }
    }

    /// Both copies of the format bits read back from a symbol's modules, in the order of ISO's Figure 25, name the
    /// level and mask the symbol was made with; versions 7+ carry the version bits in both corners.
    @Test(arguments: [(1, 0), (2, 3), (5, 5), (7, 6), (10, 7)])
    func theSymbolCarriesItsFormatAndVersion(version: Int, mask: Int) throws {
        let text = String(repeating: "a", count: QRCode.dataCapacityBytes(version: version, level: .medium))
        let code = try QRCode(text: text, errorCorrection: .medium, mask: mask)
        #expect(code.version == version && code.errorCorrection == .medium && code.mask == mask)
        let n = code.size
        // Bit 14 (the most significant) first: row 8 left to right, then column 8 upwards, skipping the timing row.
        let firstPositions = [(0, 8), (1, 8), (2, 8), (3, 8), (4, 8), (5, 8), (7, 8), (8, 8), (8, 7), (8, 5), (8, 4), (8, 3), (8, 2), (8, 1), (8, 0)]
        let secondPositions = (0..<7).map { (8, n - 1 - $0) } + (0..<8).map { (n - 8 + $0, 8) }
        let expected = Self.formatTable[.medium]![mask]
        for positions in [firstPositions, secondPositions] {
            #expect(String(positions.map { code[$0.0, $0.1] ? "1" : "0" }) == expected)
        }
        #expect(code[8, n - 8], "the dark module")
        if version >= 7 {
            // Bit 17 first: the bottom-left block's columns right to left, each top to bottom ends with bit 0.
            var bottomLeft = "", topRight = ""
            for i in stride(from: 17, through: 0, by: -1) {
                bottomLeft += code[i / 3, n - 11 + i % 3] ? "1" : "0"
                topRight += code[n - 11 + i % 3, i / 3] ? "1" : "0"
            }
            #expect(bottomLeft == Self.versionTable[version])
            #expect(topRight == Self.versionTable[version])
        }
    }

    /// The table's blocks add up to ISO's total codewords, and those fill exactly the modules that are left once the
    /// function patterns are drawn (less the remainder bits).
    @Test func codewordsFillTheSymbol() {
        for version in 1...10 {
            for level in QRCode.ErrorCorrection.allCases {
                let blocks = QRCode.blocks(version: version, level: level)
                #expect(blocks.dataCodewords + blocks.blockCount * blocks.eccPerBlock == Self.totalCodewords[version - 1])
            }
            let free = QRGrid(version: version).isFunction.filter { !$0 }.count
            #expect(free == Self.totalCodewords[version - 1] * 8 + Self.remainderBits[version - 1], "version \(version)")
        }
    }

    /// ISO 18004 Annex A: the generator polynomials of 7 and 10 error correction codewords, as powers of α.
    @Test func generatorPolynomialsAreAnnexAs() {
        let log = ReedSolomon.tables.log
        #expect(ReedSolomon.generator(degree: 7).map { log[Int($0)] } == [0, 87, 229, 146, 149, 238, 102, 21])
        #expect(ReedSolomon.generator(degree: 10).map { log[Int($0)] } == [0, 251, 67, 46, 61, 118, 70, 64, 94, 32, 45])
    }

    /// A block followed by its error correction codewords is a polynomial with roots α⁰…αⁿ⁻¹: evaluated by Horner's
    /// rule (no division), every syndrome is 0, and one changed byte makes some syndrome non-zero.
    @Test func reedSolomonCodewordsHaveTheGeneratorsRoots() {
        var generator = SeededGenerator(seed: 24)
        for degree in [7, 10, 13, 16, 18, 22, 26, 30] {
            let data = (0..<(5 + degree)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let codeword = data + ReedSolomon.remainder(data, generator: ReedSolomon.generator(degree: degree))
            func syndromes(_ word: [UInt8]) -> [UInt8] {
                (0..<degree).map { i in word.reduce(UInt8(0)) { ReedSolomon.multiply($0, ReedSolomon.tables.exp[i]) ^ $1 } }
            }
            #expect(syndromes(codeword).allSatisfy { $0 == 0 }, "degree \(degree)")
            var damaged = codeword
            damaged[3] ^= 0x5A
            #expect(syndromes(damaged).contains { $0 != 0 })
        }
    }

    @Test func theSmallestVersionThatHoldsTheTextIsChosen() throws {
        // Byte mode capacities at M (ISO Table 7): 14, 26, 42, 62, 84, 106, 122, 152, 180, 213.
        let capacities = [14, 26, 42, 62, 84, 106, 122, 152, 180, 213]
        for (index, capacity) in capacities.enumerated() {
            #expect(QRCode.dataCapacityBytes(version: index + 1, level: .medium) == capacity)
            #expect(try QRCode(text: String(repeating: "x", count: capacity)).version == index + 1)
            if index < 9 { #expect(try QRCode(text: String(repeating: "x", count: capacity + 1)).version == index + 2) }
        }
        // Beyond M's 213, L's 271 in version 10; beyond that, a clear error.
        let long = try QRCode(text: String(repeating: "x", count: 250))
        #expect(long.version == 10 && long.errorCorrection == .low)
        #expect(throws: QRCode.EncodingError.tooLong(byteCount: 272, maximum: 271)) { try QRCode(text: String(repeating: "x", count: 272)) }
    }

    // MARK: Read back by zbar

    static let zbarimg: String? = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// What `zbarimg` reads in the PNG of `code`.
    static func decoded(_ code: QRCode, modulePixels: Int = 4) throws -> String {
        let file = FileManager.default.temporaryDirectory.appending(path: "qr-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try PNGEncoder.encode(code.canvas(modulePixels: modulePixels)).write(to: file)
        let process = TestProcess()
        process.executableURL = URL(filePath: zbarimg!)
        process.arguments = ["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Texts of every length class: each version 1–10 at M and L, around their capacities, and URLs like the setup
    /// screen's (with `?`, `&`, `%`, `{}`), and non-ASCII text.
    static let samples: [String] = {
        var texts = ["a", "https://r.example/x", "Zürich → Genève, 5 €"]
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~/?&=%{}")
        var generator = SeededGenerator(seed: 18004)
        for length in [13, 14, 15, 26, 27, 42, 43, 62, 63, 84, 85, 106, 122, 151, 152, 153, 179, 180, 181, 200, 212, 213, 214, 240, 271] {
            texts.append(String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }))
        }
        let token = "q3Jz0fWk2e0o6s1Xy9l7bK8cVd4Rt5Gh2Mn3Pa1Sd9F"
        let base = "https://rides.example.org:8443"
        texts.append(base + "/ingest/owntracks")
        texts.append(base + "/ingest/overland?token=" + token)
        texts.append(base + "/ingest/osmand?id=" + token + "&lat={0}&lon={1}&timestamp={2}&hdop={3}&altitude={4}&speed={5}")
        texts.append(base + "/ingest/gpslogger?token=" + token + "&lat=%LAT&lon=%LON&time=%TIME&alt=%ALT&spd=%SPD&dir=%DIR&acc=%ACC&batt=%BATT")
        return texts
    }()

    @Test(.enabled(if: zbarimg != nil, "zbarimg is missing: apt-get install zbar-tools (scripts/test.sh installs it)"), arguments: samples)
    func zbarReadsWhatWasEncoded(text: String) throws {
        let code = try QRCode(text: text)
        #expect(try Self.decoded(code) == text, "version \(code.version) \(code.errorCorrection) mask \(code.mask)")
    }

    /// Every mask and every level makes a symbol zbar reads, whichever the penalty would have chosen.
    @Test(.enabled(if: zbarimg != nil, "zbarimg is missing: apt-get install zbar-tools (scripts/test.sh installs it)"), arguments: 0..<8)
    func everyMaskReads(mask: Int) throws {
        for (level, text) in [(QRCode.ErrorCorrection.low, "https://rides.example.org/ingest/owntracks"), (.medium, String(repeating: "bikeride ", count: 17)),
                              (.quartile, "mask \(mask)"), (.high, "https://example.org/live/abc")] {
            let code = try QRCode(text: text, errorCorrection: level, mask: mask)
            #expect(try Self.decoded(code, modulePixels: 3) == text, "level \(level) version \(code.version)")
        }
    }

    @Test func theSVGDrawsTheDarkModulesOnly() throws {
        let code = try QRCode(text: "https://rides.example.org/ingest/owntracks")
        // Each `h` run of the path is a run of dark modules; their lengths add up to the dark modules.
        let path = code.svgPath()
        // Each rectangle is "M x y h w v 1 h -w z": the widths follow the "h"s not followed by "-".
        let runs = path.split(separator: "h").dropFirst().filter { !$0.hasPrefix("-") }.map { Int($0.prefix { $0.isNumber }) ?? -1 }
        #expect(runs.reduce(0, +) == code.modules.filter { $0 }.count)
        let svg = code.svg(title: "<a & b>")
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.contains("<title>&lt;a &amp; b&gt;</title>"))
    }
}

/// The mask choice against a second, independent scoring of ISO 18004 §7.8.3 written over the finished symbol's rows
/// and columns as text: runs by scanning, 2 × 2 blocks, the 1011101 pattern with four light modules on either side
/// found by substring search, and the dark share in 5 % steps. The encoder must pick the mask this scores lowest
/// (the first of equals).
@Suite struct QRCodeMaskPenaltyTests {
    static func penalty(_ code: QRCode) -> Int {
        let n = code.size
        let rows = (0..<n).map { y in String((0..<n).map { code[$0, y] ? "1" : "0" }) }
        let columns = (0..<n).map { x in String((0..<n).map { code[x, $0] ? "1" : "0" }) }
        var score = 0
        for line in rows + columns {
            // N1: each run of 5 or more alike scores 3 + (length − 5).
            var runLength = 0
            var last: Character = "x"
            for character in line + "x" {
                if character == last { runLength += 1; continue }
                if runLength >= 5 { score += runLength - 2 }
                runLength = 1
                last = character
            }
            // N3: every occurrence (overlapping too) of either pattern.
            for pattern in ["10111010000", "00001011101"] {
                var start = line.startIndex
                while let found = line[start...].range(of: pattern) {
                    score += 40
                    start = line.index(after: found.lowerBound)
                }
            }
        }
        // N2: every 2 × 2 block of one colour.
        for y in 0..<(n - 1) {
            for x in 0..<(n - 1) where Set([code[x, y], code[x + 1, y], code[x, y + 1], code[x + 1, y + 1]]).count == 1 { score += 3 }
        }
        // N4: 10 per whole 5 % step away from half dark.
        let share = Double(code.modules.filter { $0 }.count) / Double(n * n) * 100
        score += Int((abs(share - 50) / 5).rounded(.down)) * 10
        return score
    }

    @Test(arguments: ["a", "https://rides.example.org/ingest/owntracks", String(repeating: "bikeride ", count: 12), "Zürich", "0123456789" + String(repeating: "x", count: 150)])
    func theMaskWithTheLowestPenaltyIsChosen(text: String) throws {
        let chosen = try QRCode(text: text)
        let scores = try (0..<8).map { Self.penalty(try QRCode(text: text, mask: $0)) }
        #expect(chosen.mask == scores.firstIndex(of: scores.min()!), "scores \(scores)")
    }
}
