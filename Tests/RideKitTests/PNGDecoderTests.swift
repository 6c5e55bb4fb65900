import Foundation
import RideKit
import SystemZlib
import Testing

/// The PNG reader the preview reads map tiles with: images written here by the test's own encoder (each filter,
/// colour type and bit depth chosen by hand, pixels known), the encoder's output read back, and damaged files refused.
@Suite struct PNGDecoderTests {
    /// A PNG from raw scanlines (each already led by its filter byte), with zlib's CRC and deflate.
    static func png(width: Int, height: Int, depth: UInt8, colourType: UInt8, scanlines: [UInt8], extra: [(String, [UInt8])] = [], interlace: UInt8 = 0) -> Data {
        func be(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = typed.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, uInt($0.count))) }
            return be(body.count) + typed + be(Int(crc))
        }
        var size = compressBound(uLong(scanlines.count))
        var deflated = [UInt8](repeating: 0, count: Int(size))
        _ = compress(&deflated, &size, scanlines, uLong(scanlines.count))
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += chunk("IHDR", be(width) + be(height) + [depth, colourType, 0, 0, interlace])
        for (type, body) in extra { bytes += chunk(type, body) }
        bytes += chunk("IDAT", Array(deflated[0..<Int(size)]))
        bytes += chunk("IEND", [])
        return Data(bytes)
    }

    static func rgba(_ canvas: RGBACanvas) -> [[UInt8]] {
        (0..<canvas.height).flatMap { y in (0..<canvas.width).map { x in let c = canvas[x, y]; return [c.red, c.green, c.blue, c.alpha] } }
    }

    @Test func theEncodersImagesReadBackPixelForPixel() throws {
        var canvas = RGBACanvas(width: 37, height: 11)
        var state: UInt32 = 12345
        for y in 0..<11 {
            for x in 0..<37 {
                state = state &* 1_103_515_245 &+ 12345
                canvas[x, y] = RGBAColor(red: UInt8(state >> 24), green: UInt8(state >> 16 & 0xFF), blue: UInt8(state >> 8 & 0xFF), alpha: y == 3 ? 0 : 200)
            }
        }
        #expect(try PNGDecoder.decode(PNGEncoder.encode(canvas)) == canvas)
        let empty = RGBACanvas(width: 5, height: 5)
        #expect(try PNGDecoder.decode(PNGEncoder.encode(empty)) == empty)
    }

    /// RGB, 8 bits, 2 × 3: rows filtered Up, Average and Paeth by hand from known pixels.
    @Test func everyRowFilterIsUndone() throws {
        let pixels: [[UInt8]] = [[10, 20, 30, 200, 100, 50], [15, 25, 35, 190, 110, 40], [250, 5, 128, 7, 9, 11]]
        var lines: [UInt8] = []
        let filters: [UInt8] = [2, 3, 4]
        for (y, row) in pixels.enumerated() {
            lines.append(filters[y])
            for i in 0..<6 {
                let a = i >= 3 ? Int(row[i - 3]) : 0
                let b = y > 0 ? Int(pixels[y - 1][i]) : 0
                let c = (y > 0 && i >= 3) ? Int(pixels[y - 1][i - 3]) : 0
                let predictor: Int
                switch filters[y] {
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                default:
                    let p = a + b - c
                    predictor = abs(p - a) <= abs(p - b) && abs(p - a) <= abs(p - c) ? a : (abs(p - b) <= abs(p - c) ? b : c)
                }
                lines.append(UInt8((Int(row[i]) - predictor + 256) % 256))
            }
        }
        let canvas = try PNGDecoder.decode(Self.png(width: 2, height: 3, depth: 8, colourType: 2, scanlines: lines))
        var expected: [[UInt8]] = []
        for row in pixels {
            expected.append([row[0], row[1], row[2], 255])
            expected.append([row[3], row[4], row[5], 255])
        }
        #expect(Self.rgba(canvas) == expected)
    }

    /// A palette of three colours at 2 bits a pixel, the second transparent by tRNS.
    @Test func palettesAtTwoBitsWithTransparency() throws {
        // Indices 0 1 2 0 | 2 2 1 0: bytes 0b00_01_10_00, 0b10_10_01_00.
        let image = Self.png(
            width: 4, height: 2, depth: 2, colourType: 3, scanlines: [0, 0b0001_1000, 0, 0b1010_0100],
            extra: [("PLTE", [255, 0, 0, 0, 255, 0, 0, 0, 255]), ("tRNS", [255, 0])])
        let canvas = try PNGDecoder.decode(image)
        let red: [UInt8] = [255, 0, 0, 255], green: [UInt8] = [0, 255, 0, 0], blue: [UInt8] = [0, 0, 255, 255]
        #expect(Self.rgba(canvas) == [red, green, blue, red, blue, blue, green, red])
    }

    @Test func greyAtOneBitAndRGBAAtSixteenBits() throws {
        let grey = try PNGDecoder.decode(Self.png(width: 9, height: 1, depth: 1, colourType: 0, scanlines: [0, 0b1010_0000, 0b1000_0000]))
        #expect(Self.rgba(grey).map(\.[0]) == [255, 0, 255, 0, 0, 0, 0, 0, 255])
        let wide = try PNGDecoder.decode(Self.png(width: 1, height: 1, depth: 16, colourType: 6, scanlines: [0, 0x12, 0x34, 0xAB, 0xCD, 0x00, 0xFF, 0x80, 0x01]))
        #expect(Self.rgba(wide) == [[0x12, 0xAB, 0x00, 0x80]])
    }

    @Test func damagedOrHugeFilesAreRefused() throws {
        let good = Self.png(width: 2, height: 1, depth: 8, colourType: 0, scanlines: [0, 1, 2])
        #expect(throws: PNGDecodingError.notPNG) { try PNGDecoder.decode(Data("GIF89a".utf8)) }
        for cut in [9, 20, 33, good.count - 1] {
            #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(good.prefix(cut)) }
        }
        var flipped = good
        flipped[40] ^= 0xFF
        #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(flipped) }
        // 16,384 × 16,384 announced (1 GiB of pixels): refused before anything that size is allocated.
        #expect(throws: PNGDecodingError.tooLarge(width: 16_384, height: 16_384)) {
            try PNGDecoder.decode(Self.png(width: 16_384, height: 16_384, depth: 8, colourType: 6, scanlines: [0]))
        }
        // Too little or too much image data, a bad filter, interlacing, a bad depth.
        #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(Self.png(width: 2, height: 2, depth: 8, colourType: 0, scanlines: [0, 1, 2])) }
        #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(Self.png(width: 2, height: 1, depth: 8, colourType: 0, scanlines: [0, 1, 2, 3])) }
        #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(Self.png(width: 2, height: 1, depth: 8, colourType: 0, scanlines: [7, 1, 2])) }
        #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(Self.png(width: 2, height: 1, depth: 8, colourType: 0, scanlines: [0, 1, 2], interlace: 1)) }
        #expect(throws: PNGDecodingError.self) { try PNGDecoder.decode(Self.png(width: 2, height: 1, depth: 3, colourType: 0, scanlines: [0, 1])) }
        // A palette index beyond the palette.
        #expect(throws: PNGDecodingError.self) {
            try PNGDecoder.decode(Self.png(width: 1, height: 1, depth: 8, colourType: 3, scanlines: [0, 5], extra: [("PLTE", [1, 2, 3])]))
        }
    }
}
