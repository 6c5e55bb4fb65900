import Foundation

/// A QR code symbol (ISO/IEC 18004) of some bytes, for the phone-app setup screen: the URL an app needs, scanned
/// with the phone's camera instead of typed.
///
///     let code = try QRCode(text: "https://rides.example.org/ingest/owntracks")
///     code.size            // 29: version 3, 4 × 3 + 17 modules a side
///     code.svg()           // an SVG document with a 4-module quiet zone
///
/// Byte mode only (a URL is bytes), versions 1–10 (up to 213 bytes at level M, 271 at L: the setup URLs are 40 to
/// 200), error correction M by preference and L when M does not fit. The data and its Reed–Solomon codewords over
/// GF(256) are interleaved per block, placed in the zigzag of ISO 18004 §7.7.3, and masked with whichever of the
/// eight masks scores the lowest penalty (§7.8.3). O(size²) per mask.
public struct QRCode: Sendable, Hashable {
    /// How much of the symbol may be damaged and still read: L about 7 %, M 15 %, Q 25 %, H 30 %.
    public enum ErrorCorrection: Int, Sendable, CaseIterable {
        case low, medium, quartile, high

        /// The two bits the format information carries (§7.9.1, Table 12): L 01, M 00, Q 11, H 10.
        public var formatBits: Int {
            switch self {
            case .low: 1
            case .medium: 0
            case .quartile: 3
            case .high: 2
            }
        }
    }

    public enum EncodingError: Error, Equatable, CustomStringConvertible {
        /// More bytes than version 10 holds at level L.
        case tooLong(byteCount: Int, maximum: Int)

        public var description: String {
            switch self {
            case let .tooLong(count, maximum): "\(count) bytes do not fit a QR code of version 1 to 10 (at most \(maximum))"
            }
        }
    }

    /// 1…10: the symbol is `4 × version + 17` modules a side.
    public let version: Int
    public let errorCorrection: ErrorCorrection
    /// The mask chosen (0…7).
    public let mask: Int
    /// Modules a side.
    public let size: Int
    /// `size × size` modules row by row from the top left; true is dark.
    public let modules: [Bool]

    public static let maximumVersion = 10

    /// The symbol of `text`'s UTF-8 bytes.
    public init(text: String, errorCorrection: ErrorCorrection = .medium, mask: Int? = nil) throws(EncodingError) {
        try self.init(bytes: Array(text.utf8), errorCorrection: errorCorrection, mask: mask)
    }

    /// The symbol of `bytes` in byte mode, in the smallest version that holds them at `errorCorrection` (else at L);
    /// `mask` forces a mask (tests), nil picks the lowest penalty.
    public init(bytes: [UInt8], errorCorrection: ErrorCorrection = .medium, mask forcedMask: Int? = nil) throws(EncodingError) {
        var chosen: (Int, ErrorCorrection)?
        for level in errorCorrection == .low ? [.low] : [errorCorrection, .low] {
            if let version = (1...Self.maximumVersion).first(where: { Self.dataCapacityBytes(version: $0, level: level) >= bytes.count }) {
                chosen = (version, level)
                break
            }
        }
        guard let (version, level) = chosen else {
            throw .tooLong(byteCount: bytes.count, maximum: Self.dataCapacityBytes(version: Self.maximumVersion, level: .low))
        }
        self.version = version
        self.errorCorrection = level
        size = 4 * version + 17

        let codewords = Self.interleaved(Self.dataCodewords(bytes, version: version, level: level), version: version, level: level)
        var grid = QRGrid(version: version)
        grid.placeCodewords(codewords)
        let mask = forcedMask ?? (0..<8).min { a, b in
            var first = grid, second = grid
            first.applyMask(a, level: level)
            second.applyMask(b, level: level)
            return first.penalty() < second.penalty()
        }!
        grid.applyMask(mask, level: level)
        self.mask = mask
        modules = grid.dark
    }

    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    // MARK: Drawing

    /// The dark modules as one SVG path in module units (a quiet zone of `quietZone` modules around them): each run
    /// of dark modules in a row is one rectangle, `M x y h w v 1 h -w z`.
    public func svgPath(quietZone: Int = 4) -> String {
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard self[x, y] else { x += 1; continue }
                let start = x
                while x < size, self[x, y] { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        return path
    }

    /// A standalone SVG document: black modules on white with a 4-module quiet zone, `modulePixels` a module.
    public func svg(modulePixels: Int = 4, title: String? = nil) -> String {
        let side = size + 8
        let label = title.map { "<title>\(Self.xmlEscaped($0))</title>" } ?? ""
        return "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(side) \(side)\" width=\"\(side * modulePixels)\" "
            + "height=\"\(side * modulePixels)\" shape-rendering=\"crispEdges\">\(label)<rect width=\"\(side)\" height=\"\(side)\" fill=\"#fff\"/>"
            + "<path d=\"\(svgPath())\" fill=\"#000\"/></svg>"
    }

    /// The symbol as pixels (a quiet zone of 4 modules, `modulePixels` a module), for a PNG.
    public func canvas(modulePixels: Int = 4) -> RGBACanvas {
        let side = (size + 8) * modulePixels
        var canvas = RGBACanvas(width: side, height: side)
        canvas.fill(RGBAColor(red: 255, green: 255, blue: 255))
        let black = RGBAColor(red: 0, green: 0, blue: 0)
        for y in 0..<size {
            for x in 0..<size where self[x, y] {
                for dy in 0..<modulePixels {
                    for dx in 0..<modulePixels { canvas[(x + 4) * modulePixels + dx, (y + 4) * modulePixels + dy] = black }
                }
            }
        }
        return canvas
    }

    static func xmlEscaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }

    // MARK: Tables (ISO 18004 Table 9)

    /// Error correction codewords per block, and the blocks' data codewords (a second group has one more each).
    struct Blocks: Sendable {
        var eccPerBlock: Int
        var groups: [(count: Int, dataCodewords: Int)]

        var dataCodewords: Int { groups.reduce(0) { $0 + $1.count * $1.dataCodewords } }
        var blockCount: Int { groups.reduce(0) { $0 + $1.count } }
    }

    /// Indexed by version − 1, then by `ErrorCorrection.rawValue` (L, M, Q, H).
    static let blockTable: [[Blocks]] = [
        [.init(7, [(1, 19)]), .init(10, [(1, 16)]), .init(13, [(1, 13)]), .init(17, [(1, 9)])],
        [.init(10, [(1, 34)]), .init(16, [(1, 28)]), .init(22, [(1, 22)]), .init(28, [(1, 16)])],
        [.init(15, [(1, 55)]), .init(26, [(1, 44)]), .init(18, [(2, 17)]), .init(22, [(2, 13)])],
        [.init(20, [(1, 80)]), .init(18, [(2, 32)]), .init(26, [(2, 24)]), .init(16, [(4, 9)])],
        [.init(26, [(1, 108)]), .init(24, [(2, 43)]), .init(18, [(2, 15), (2, 16)]), .init(22, [(2, 11), (2, 12)])],
        [.init(18, [(2, 68)]), .init(16, [(4, 27)]), .init(24, [(4, 19)]), .init(28, [(4, 15)])],
        [.init(20, [(2, 78)]), .init(18, [(4, 31)]), .init(18, [(2, 14), (4, 15)]), .init(26, [(4, 13), (1, 14)])],
        [.init(24, [(2, 97)]), .init(22, [(2, 38), (2, 39)]), .init(22, [(4, 18), (2, 19)]), .init(26, [(4, 14), (2, 15)])],
        [.init(30, [(2, 116)]), .init(22, [(3, 36), (2, 37)]), .init(20, [(4, 16), (4, 17)]), .init(24, [(4, 12), (4, 13)])],
        [.init(18, [(2, 68), (2, 69)]), .init(26, [(4, 43), (1, 44)]), .init(24, [(6, 19), (2, 20)]), .init(28, [(6, 15), (2, 16)])],
    ]

    static func blocks(version: Int, level: ErrorCorrection) -> Blocks { blockTable[version - 1][level.rawValue] }

    /// Bits of the character count in byte mode: 8 up to version 9, 16 from 10 (Table 3).
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// The most bytes a version holds in byte mode at `level`: its data codewords less the mode and count bits.
    public static func dataCapacityBytes(version: Int, level: ErrorCorrection) -> Int {
        (blocks(version: version, level: level).dataCodewords * 8 - 4 - countBits(version: version)) / 8
    }

    // MARK: Codewords

    /// Mode 0100 (byte), the count, the bytes, a terminator of up to four 0 bits, 0 bits to a whole byte, then the
    /// pad codewords 11101100 and 00010001 in turn (§7.4).
    static func dataCodewords(_ bytes: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let capacity = blocks(version: version, level: level).dataCodewords
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacity * 8 - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The data split into blocks, each followed by its Reed–Solomon codewords, read out column by column: the first
    /// codeword of every block, then the second… then the error correction codewords the same way (§7.6).
    static func interleaved(_ data: [UInt8], version: Int, level: ErrorCorrection) -> [UInt8] {
        let layout = blocks(version: version, level: level)
        var dataBlocks: [[UInt8]] = []
        var offset = 0
        for group in layout.groups {
            for _ in 0..<group.count {
                dataBlocks.append(Array(data[offset..<offset + group.dataCodewords]))
                offset += group.dataCodewords
            }
        }
        let generator = ReedSolomon.generator(degree: layout.eccPerBlock)
        let eccBlocks = dataBlocks.map { ReedSolomon.remainder($0, generator: generator) }
        var result: [UInt8] = []
        for i in 0..<(dataBlocks.map(\.count).max() ?? 0) {
            for block in dataBlocks where i < block.count { result.append(block[i]) }
        }
        for i in 0..<layout.eccPerBlock {
            for block in eccBlocks { result.append(block[i]) }
        }
        return result
    }

    // MARK: Format and version information

    /// The 15 format bits: the level's 2 bits and the mask's 3, a BCH(15,5) code (generator x¹⁰ + x⁸ + x⁵ + x⁴ + x²
    /// + x + 1), XORed with 101010000010010 so that they are never all zero (§7.9.1).
    public static func formatBits(level: ErrorCorrection, mask: Int) -> Int {
        let data = level.formatBits << 3 | mask
        return (data << 10 | bchRemainder(data << 10, generator: 0b101_0011_0111, degree: 10)) ^ 0b101_0100_0001_0010
    }

    /// The 18 version bits of versions 7 and up: 6 bits of version, a BCH(18,6) code with generator
    /// x¹² + x¹¹ + x¹⁰ + x⁹ + x⁸ + x⁵ + x² + 1 (§7.10).
    public static func versionBits(version: Int) -> Int {
        version << 12 | bchRemainder(version << 12, generator: 0b1_1111_0010_0101, degree: 12)
    }

    static func bchRemainder(_ value: Int, generator: Int, degree: Int) -> Int {
        var remainder = value
        let top = generator.bitWidth - generator.leadingZeroBitCount - 1
        while remainder.bitWidth - remainder.leadingZeroBitCount - 1 >= top, remainder != 0 {
            remainder ^= generator << (remainder.bitWidth - remainder.leadingZeroBitCount - 1 - top)
        }
        precondition(top == degree)
        return remainder
    }

    /// Centres of the alignment patterns on each axis (Annex E), versions 2–10.
    static func alignmentCentres(version: Int) -> [Int] {
        switch version {
        case 1: []
        case 2...6: [6, 4 * version + 10]
        default: [[6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50]][version - 7]
        }
    }
}

extension QRCode.Blocks {
    init(_ ecc: Int, _ groups: [(Int, Int)]) {
        self.init(eccPerBlock: ecc, groups: groups.map { (count: $0.0, dataCodewords: $0.1) })
    }
}

/// Bits appended most significant first, read out as bytes.
struct BitBuffer {
    private(set) var bytes: [UInt8] = []
    private(set) var count = 0

    mutating func append(_ value: Int, count bits: Int) {
        for i in stride(from: bits - 1, through: 0, by: -1) {
            if count % 8 == 0 { bytes.append(0) }
            if value >> i & 1 == 1 { bytes[count / 8] |= 0x80 >> UInt8(count % 8) }
            count += 1
        }
    }
}

/// Reed–Solomon error correction over GF(256) with the QR code's field polynomial x⁸ + x⁴ + x³ + x² + 1 (0x11D) and
/// generator polynomials (x − α⁰)(x − α¹)…(x − αⁿ⁻¹).
enum ReedSolomon {
    /// α^i for i in 0..<255 (twice over, so that a sum of two logarithms needs no modulo), and the logarithms.
    static let tables: (exp: [UInt8], log: [Int]) = {
        var exp = [UInt8](repeating: 0, count: 512)
        var log = [Int](repeating: 0, count: 256)
        var value = 1
        for i in 0..<255 {
            exp[i] = UInt8(value)
            log[value] = i
            value <<= 1
            if value & 0x100 != 0 { value ^= 0x11D }
        }
        for i in 255..<512 { exp[i] = exp[i - 255] }
        return (exp, log)
    }()

    static func multiply(_ a: UInt8, _ b: UInt8) -> UInt8 {
        guard a != 0, b != 0 else { return 0 }
        return tables.exp[tables.log[Int(a)] + tables.log[Int(b)]]
    }

    /// The generator's coefficients, highest power first (its leading 1 included).
    static func generator(degree: Int) -> [UInt8] {
        var polynomial: [UInt8] = [1]
        for i in 0..<degree {
            // × (x + αⁱ): subtraction is addition in GF(2⁸).
            var next = [UInt8](repeating: 0, count: polynomial.count + 1)
            for (j, coefficient) in polynomial.enumerated() {
                next[j] ^= coefficient
                next[j + 1] ^= multiply(coefficient, tables.exp[i])
            }
            polynomial = next
        }
        return polynomial
    }

    /// The remainder of data(x) · xⁿ divided by the generator: the n error correction codewords.
    static func remainder(_ data: [UInt8], generator: [UInt8]) -> [UInt8] {
        let degree = generator.count - 1
        var remainder = [UInt8](repeating: 0, count: degree)
        for byte in data {
            let factor = byte ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for j in 0..<degree { remainder[j] ^= multiply(generator[j + 1], factor) }
        }
        return remainder
    }
}

/// The modules of a symbol being built, and which of them belong to function patterns (finders, separators, timing,
/// alignment, format and version areas, the dark module), which data and masks never touch.
struct QRGrid {
    let version: Int
    let size: Int
    var dark: [Bool]
    var isFunction: [Bool]

    init(version: Int) {
        self.version = version
        size = 4 * version + 17
        dark = [Bool](repeating: false, count: size * size)
        isFunction = [Bool](repeating: false, count: size * size)
        drawFunctionPatterns()
    }

    mutating func set(_ x: Int, _ y: Int, _ value: Bool) {
        dark[y * size + x] = value
        isFunction[y * size + x] = true
    }

    mutating func drawFunctionPatterns() {
        // Timing patterns: row and column 6, dark on even positions.
        for i in 0..<size {
            set(6, i, i % 2 == 0)
            set(i, 6, i % 2 == 0)
        }
        // Finder patterns (7 × 7, with their light separators) in three corners.
        for (cx, cy) in [(3, 3), (size - 4, 3), (3, size - 4)] {
            for dy in -4...4 {
                for dx in -4...4 {
                    let x = cx + dx, y = cy + dy
                    guard x >= 0, x < size, y >= 0, y < size else { continue }
                    let ring = max(abs(dx), abs(dy))
                    set(x, y, ring != 2 && ring != 4)
                }
            }
        }
        // Alignment patterns (5 × 5) at every pair of centres except where a finder is.
        let centres = QRCode.alignmentCentres(version: version)
        for (i, cy) in centres.enumerated() {
            for (j, cx) in centres.enumerated() {
                if (i == 0 && j == 0) || (i == 0 && j == centres.count - 1) || (i == centres.count - 1 && j == 0) { continue }
                for dy in -2...2 {
                    for dx in -2...2 { set(cx + dx, cy + dy, max(abs(dx), abs(dy)) != 1) }
                }
            }
        }
        // Reserve the format areas (written after masking) and the version areas.
        drawFormatBits(0)
        if version >= 7 { drawVersionBits() }
    }

    /// The 15 format bits, bit 0 the least significant: once around the top-left finder and once split between the
    /// other two, with the dark module beside the bottom-left finder (§7.9.1, Figure 25).
    mutating func drawFormatBits(_ bits: Int) {
        func bit(_ i: Int) -> Bool { bits >> i & 1 == 1 }
        for i in 0...5 { set(8, i, bit(i)) }
        set(8, 7, bit(6))
        set(8, 8, bit(7))
        set(7, 8, bit(8))
        for i in 9..<15 { set(14 - i, 8, bit(i)) }
        for i in 0..<8 { set(size - 1 - i, 8, bit(i)) }
        for i in 8..<15 { set(8, size - 15 + i, bit(i)) }
        set(8, size - 8, true)
    }

    /// The 18 version bits in a 6 × 3 block above the bottom-left finder and its mirror left of the top-right one.
    mutating func drawVersionBits() {
        let bits = QRCode.versionBits(version: version)
        for i in 0..<18 {
            let value = bits >> i & 1 == 1
            let a = size - 11 + i % 3, b = i / 3
            set(a, b, value)
            set(b, a, value)
        }
    }

    /// The codewords' bits, most significant first, up and down two-module columns from the bottom right, skipping
    /// the vertical timing column and every function module (§7.7.3). Remainder bits stay light.
    mutating func placeCodewords(_ codewords: [UInt8]) {
        var index = 0
        let total = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            let upward = (right + 1) & 2 == 0
            for step in 0..<size {
                let y = upward ? size - 1 - step : step
                for x in [right, right - 1] where !isFunction[y * size + x] && index < total {
                    dark[y * size + x] = codewords[index >> 3] >> (7 - UInt8(index & 7)) & 1 == 1
                    index += 1
                }
            }
            right -= 2
        }
    }

    /// Whether mask `mask` flips the module at column `x`, row `y` (Table 10, with i the row and j the column).
    static func maskFlips(_ mask: Int, x j: Int, y i: Int) -> Bool {
        switch mask {
        case 0: (i + j) % 2 == 0
        case 1: i % 2 == 0
        case 2: j % 3 == 0
        case 3: (i + j) % 3 == 0
        case 4: (i / 2 + j / 3) % 2 == 0
        case 5: (i * j) % 2 + (i * j) % 3 == 0
        case 6: ((i * j) % 2 + (i * j) % 3) % 2 == 0
        default: ((i + j) % 2 + (i * j) % 3) % 2 == 0
        }
    }

    /// Flips the data modules the mask selects and writes the format bits that name it.
    mutating func applyMask(_ mask: Int, level: QRCode.ErrorCorrection) {
        for y in 0..<size {
            for x in 0..<size where !isFunction[y * size + x] && Self.maskFlips(mask, x: x, y: y) {
                dark[y * size + x].toggle()
            }
        }
        drawFormatBits(QRCode.formatBits(level: level, mask: mask))
    }

    /// The penalty of §7.8.3: runs of five or more alike in a line (3 + the length beyond 5), 2 × 2 blocks alike (3
    /// each), the finder-like 1:1:3:1:1 pattern with four light modules on one side (40 each), and 10 for each 5 %
    /// the dark share strays from half.
    func penalty() -> Int {
        var score = 0
        func module(_ x: Int, _ y: Int) -> Bool { dark[y * size + x] }
        let finderLike: [Bool] = [true, false, true, true, true, false, true, false, false, false, false]
        for horizontal in [true, false] {
            for a in 0..<size {
                var run = 0
                var previous = false
                for b in 0..<size {
                    let value = horizontal ? module(b, a) : module(a, b)
                    if b > 0 && value == previous {
                        run += 1
                    } else {
                        if run >= 5 { score += 3 + run - 5 }
                        run = 1
                    }
                    previous = value
                }
                if run >= 5 { score += 3 + run - 5 }
                for b in 0...(size - finderLike.count) {
                    var forward = true, backward = true
                    for k in 0..<finderLike.count {
                        let value = horizontal ? module(b + k, a) : module(a, b + k)
                        if value != finderLike[k] { forward = false }
                        if value != finderLike[finderLike.count - 1 - k] { backward = false }
                    }
                    if forward { score += 40 }
                    if backward { score += 40 }
                }
            }
        }
        for y in 0..<(size - 1) {
            for x in 0..<(size - 1) {
                let value = module(x, y)
                if module(x + 1, y) == value, module(x, y + 1) == value, module(x + 1, y + 1) == value { score += 3 }
            }
        }
        // k whole steps of 5 % between the dark share and half: |dark / total − 1/2| / (1/20), rounded down.
        let darkCount = dark.reduce(0) { $0 + ($1 ? 1 : 0) }
        score += abs(darkCount * 20 - dark.count * 10) / dark.count * 10
        return score
    }
}
