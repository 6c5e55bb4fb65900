import Foundation
import SystemZlib

/// A minimal PNG reader for tests: 8-bit RGBA, not interlaced, all five row filters; every chunk's CRC checked with
/// a bitwise CRC-32 of its own (not zlib's), the image data inflated by zlib's `uncompress`.
public struct DecodedPNG: Sendable {
    public let width: Int
    public let height: Int
    /// RGBA bytes, row by row.
    public let pixels: [UInt8]

    public enum Failure: Error { case signature, chunk(String), crc(String), header, inflate(Int32), size }

    public func alpha(x: Int, y: Int) -> UInt8 { pixels[(y * width + x) * 4 + 3] }
    public func rgba(x: Int, y: Int) -> [UInt8] { Array(pixels[(y * width + x) * 4..<(y * width + x) * 4 + 4]) }

    public init(_ data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count > 8, bytes[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else { throw Failure.signature }
        var offset = 8
        var width = 0, height = 0
        var compressed: [UInt8] = []
        var ended = false
        func u32(_ at: Int) -> Int { Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]) }
        while !ended {
            guard offset + 12 <= bytes.count else { throw Failure.chunk("truncated") }
            let length = u32(offset)
            let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
            guard offset + 12 + length <= bytes.count else { throw Failure.chunk(type) }
            let body = Array(bytes[offset + 8..<offset + 8 + length])
            guard Self.crc32(Array(bytes[offset + 4..<offset + 8 + length])) == UInt32(u32(offset + 8 + length)) else { throw Failure.crc(type) }
            switch type {
            case "IHDR":
                guard length == 13, body[8] == 8, body[9] == 6, body[12] == 0 else { throw Failure.header }
                width = Int(body[0]) << 24 | Int(body[1]) << 16 | Int(body[2]) << 8 | Int(body[3])
                height = Int(body[4]) << 24 | Int(body[5]) << 16 | Int(body[6]) << 8 | Int(body[7])
            case "IDAT": compressed += body
            case "IEND": ended = true
            default: break
            }
            offset += 12 + length
        }
        guard width > 0, height > 0, width * height <= 1 << 26 else { throw Failure.header }
        let stride = width * 4
        var raw = [UInt8](repeating: 0, count: (stride + 1) * height)
        var rawLength = uLong(raw.count)
        let status = uncompress(&raw, &rawLength, compressed, uLong(compressed.count))
        guard status == Z_OK else { throw Failure.inflate(status) }
        guard Int(rawLength) == raw.count else { throw Failure.size }
        var pixels = [UInt8](repeating: 0, count: stride * height)
        for y in 0..<height {
            let filter = raw[y * (stride + 1)]
            for i in 0..<stride {
                let x = raw[y * (stride + 1) + 1 + i]
                let a = i >= 4 ? Int(pixels[y * stride + i - 4]) : 0
                let b = y > 0 ? Int(pixels[(y - 1) * stride + i]) : 0
                let c = (i >= 4 && y > 0) ? Int(pixels[(y - 1) * stride + i - 4]) : 0
                let predictor: Int
                switch filter {
                case 0: predictor = 0
                case 1: predictor = a
                case 2: predictor = b
                case 3: predictor = (a + b) / 2
                case 4:
                    let p = a + b - c
                    let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
                    predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                default: throw Failure.header
                }
                pixels[y * stride + i] = UInt8((Int(x) + predictor) & 0xFF)
            }
        }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// CRC-32 (polynomial 0xEDB88320, reflected), bit by bit.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
