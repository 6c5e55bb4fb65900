import Foundation
import SystemZlib

/// Why a PNG could not be read.
public enum PNGDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    case notPNG
    case corrupt(reason: String)
    case unsupported(reason: String)
    case tooLarge(width: Int, height: Int)

    public var description: String {
        switch self {
        case .notPNG: return "not a PNG file (no PNG signature)"
        case .corrupt(let reason): return "damaged PNG: \(reason)"
        case .unsupported(let reason): return "PNG not supported here: \(reason)"
        case .tooLarge(let width, let height): return "PNG of \(width) × \(height) pixels is larger than allowed"
        }
    }
}

/// Reads PNG images (ISO/IEC 15948) into an `RGBACanvas`: the map tiles of an offline tile set, under a preview.
/// Grey, RGB, palette, grey + alpha and RGBA, bit depths 1–16 (16-bit samples keep their high byte), the five
/// row filters, `tRNS` transparency; not interlaced images (tiles never are).
///
///     let canvas = try PNGDecoder.decode(PNGEncoder.encode(RGBACanvas(width: 2, height: 2)))  // 2 × 2, clear
///
/// Untrusted input: every length is checked against what is left, the size is capped before anything is
/// allocated (`maximumPixels`), and the inflated data must be exactly the size the header announces.
/// O(compressed + width × height).
public enum PNGDecoder {
    /// The canvas of the PNG in `data`; at most `maximumPixels` pixels (a 512-pixel tile is 262,144).
    public static func decode(_ data: Data, maximumPixels: Int = 1 << 20) throws(PNGDecodingError) -> RGBACanvas {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, Array(bytes[0..<8]) == PNGEncoder.signature else { throw .notPNG }
        var offset = 8
        var header: [UInt8]?
        var palette: [UInt8] = []
        var transparency: [UInt8] = []
        var compressed: [UInt8] = []
        func readUInt32(_ at: Int) -> Int {
            Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
        }
        var ended = false
        while !ended {
            guard offset + 12 <= bytes.count else { throw .corrupt(reason: "the file ends inside a chunk") }
            let length = readUInt32(offset)
            guard length <= bytes.count - offset - 12 else { throw .corrupt(reason: "a chunk is longer than the file") }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let body = Array(bytes[(offset + 8)..<(offset + 8 + length)])
            let stored = UInt32(readUInt32(offset + 8 + length))
            guard PNGEncoder.crc32Checksum(Data(bytes[(offset + 4)..<(offset + 8 + length)])) == stored else {
                throw .corrupt(reason: "the checksum of chunk \(type) is wrong")
            }
            offset += 12 + length
            switch type {
            case "IHDR":
                guard length == 13, header == nil else { throw .corrupt(reason: "a bad IHDR chunk") }
                header = body
            case "PLTE": palette = body
            case "tRNS": transparency = body
            case "IDAT": compressed.append(contentsOf: body)
            case "IEND": ended = true
            default: break  // ancillary chunks (gamma, text, time …) change nothing here
            }
        }
        guard let header else { throw .corrupt(reason: "no IHDR chunk") }
        let width = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        let height = Int(header[4]) << 24 | Int(header[5]) << 16 | Int(header[6]) << 8 | Int(header[7])
        let depth = Int(header[8]), colourType = Int(header[9])
        guard width > 0, height > 0 else { throw .corrupt(reason: "an image without pixels") }
        guard width <= 16_384, height <= 16_384, width * height <= maximumPixels else { throw .tooLarge(width: width, height: height) }
        guard header[10] == 0, header[11] == 0 else { throw .unsupported(reason: "compression or filter method \(header[10])/\(header[11])") }
        guard header[12] == 0 else { throw .unsupported(reason: "interlaced images") }
        let channels: Int
        switch (colourType, depth) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16): channels = 1
        case (2, 8), (2, 16): channels = 3
        case (3, 1), (3, 2), (3, 4), (3, 8): channels = 1
        case (4, 8), (4, 16): channels = 2
        case (6, 8), (6, 16): channels = 4
        default: throw .corrupt(reason: "colour type \(colourType) with bit depth \(depth)")
        }
        if colourType == 3, palette.isEmpty || palette.count % 3 != 0 { throw .corrupt(reason: "a palette image without a palette") }
        let bitsPerPixel = channels * depth
        let rowBytes = (width * bitsPerPixel + 7) / 8
        let step = max(1, bitsPerPixel / 8)  // the filters' "corresponding byte to the left"
        let expected = height * (rowBytes + 1)
        var raw = [UInt8](repeating: 0, count: expected)
        var produced = uLongf(expected)
        let status = compressed.withUnsafeBufferPointer { input in
            raw.withUnsafeMutableBufferPointer { output in
                uncompress(output.baseAddress, &produced, input.baseAddress, uLong(input.count))
            }
        }
        guard status == Z_OK, Int(produced) == expected else { throw .corrupt(reason: "the image data does not inflate to its size") }

        // Undo the row filters in place; `previous` is the row above, already unfiltered.
        for y in 0..<height {
            let start = y * (rowBytes + 1) + 1, above = start - rowBytes - 1
            let filter = raw[start - 1]
            for i in 0..<rowBytes {
                let a = i >= step ? Int(raw[start + i - step]) : 0
                let b = y > 0 ? Int(raw[above + i]) : 0
                let c = (y > 0 && i >= step) ? Int(raw[above + i - step]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c)
                default: throw .corrupt(reason: "row filter \(filter)")
                }
                raw[start + i] = raw[start + i] &+ UInt8(truncatingIfNeeded: predictor)
            }
        }

        var canvas = RGBACanvas(width: width, height: height)
        let maximum = (1 << depth) - 1
        for y in 0..<height {
            let start = y * (rowBytes + 1) + 1
            func sample(_ index: Int) -> Int {
                switch depth {
                case 16: return Int(raw[start + index * 2])
                case 8: return Int(raw[start + index])
                default:
                    let bit = index * depth
                    return Int(raw[start + bit / 8] >> (8 - depth - bit % 8)) & maximum
                }
            }
            func byte(_ value: Int) -> UInt8 { depth >= 8 ? UInt8(value) : UInt8(value * 255 / maximum) }
            for x in 0..<width {
                let i = x * channels
                let colour: RGBAColor
                switch colourType {
                case 0:
                    let grey = sample(i)
                    let clear = transparency.count >= 2 && depth <= 8 && (Int(transparency[0]) << 8 | Int(transparency[1])) == grey
                    colour = RGBAColor(red: byte(grey), green: byte(grey), blue: byte(grey), alpha: clear ? 0 : 255)
                case 2:
                    let r = sample(i), g = sample(i + 1), b = sample(i + 2)
                    let clear = transparency.count >= 6 && depth == 8
                        && Int(transparency[1]) == r && Int(transparency[3]) == g && Int(transparency[5]) == b
                    colour = RGBAColor(red: UInt8(r), green: UInt8(g), blue: UInt8(b), alpha: clear ? 0 : 255)
                case 3:
                    let index = sample(i)
                    guard index * 3 + 2 < palette.count else { throw .corrupt(reason: "a palette index beyond the palette") }
                    colour = RGBAColor(
                        red: palette[index * 3], green: palette[index * 3 + 1], blue: palette[index * 3 + 2],
                        alpha: index < transparency.count ? transparency[index] : 255)
                case 4:
                    let grey = UInt8(sample(i))
                    colour = RGBAColor(red: grey, green: grey, blue: grey, alpha: UInt8(sample(i + 1)))
                default:
                    colour = RGBAColor(red: UInt8(sample(i)), green: UInt8(sample(i + 1)), blue: UInt8(sample(i + 2)), alpha: UInt8(sample(i + 3)))
                }
                canvas[x, y] = colour
            }
        }
        return canvas
    }
}
