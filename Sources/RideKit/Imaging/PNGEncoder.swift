import Foundation
import SystemZlib

/// Writes 8-bit RGBA images as PNG (ISO/IEC 15948): signature, IHDR, one zlib-deflated IDAT, IEND, each chunk
/// with its CRC-32.
///
///     let png = PNGEncoder.encode(RGBACanvas(width: 256, height: 256))  // a fully transparent tile
///
/// Each row is filtered with "Sub" (type 1) when the row has any colour and "None" otherwise: map tiles are mostly
/// empty or flat, and both deflate to almost nothing. O(width × height).
public enum PNGEncoder {
    /// The 8 bytes every PNG starts with.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The PNG of `canvas`. `level` is zlib's compression level (1 fast … 9 small; 6 is zlib's default).
    public static func encode(_ canvas: RGBACanvas, level: Int32 = 6) -> Data {
        let width = canvas.width, height = canvas.height
        let rowBytes = width * 4
        var filtered = [UInt8](repeating: 0, count: (rowBytes + 1) * height)
        canvas.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                let source = y * rowBytes, target = y * (rowBytes + 1)
                var anyColour = false
                for i in 0..<rowBytes where pixels[source + i] != 0 { anyColour = true; break }
                guard anyColour else { continue }  // filter 0, zeros: already there
                filtered[target] = 1
                for i in 0..<rowBytes {
                    let left: UInt8 = i >= 4 ? pixels[source + i - 4] : 0
                    filtered[target + 1 + i] = pixels[source + i] &- left
                }
            }
        }
        var png = Data(signature)
        var header = Data()
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        header.append(contentsOf: [8, 6, 0, 0, 0])  // 8 bits, RGBA, deflate, adaptive filtering, no interlace
        appendChunk("IHDR", header, to: &png)
        appendChunk("IDAT", deflate(filtered, level: level), to: &png)
        appendChunk("IEND", Data(), to: &png)
        return png
    }

    /// `bytes` in the zlib format (RFC 1950), as IDAT carries them.
    static func deflate(_ bytes: [UInt8], level: Int32) -> Data {
        var capacity = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(capacity))
        let status = bytes.withUnsafeBufferPointer { input in
            compress2(&output, &capacity, input.baseAddress, uLong(bytes.count), level)
        }
        // compressBound is enough by zlib's contract; only memory exhaustion could fail, which Swift traps on anyway.
        precondition(status == Z_OK, "zlib compress2 failed: \(status)")
        return Data(output[0..<Int(capacity)])
    }

    /// Length, type, data, and the CRC-32 of type and data.
    static func appendChunk(_ type: String, _ data: Data, to png: inout Data) {
        png.appendBigEndian(UInt32(data.count))
        var typed = Data(type.utf8)
        typed.append(data)
        png.append(typed)
        png.appendBigEndian(crc32Checksum(typed))
    }

    /// CRC-32 (ISO 3309, as PNG and gzip use it), by zlib.
    public static func crc32Checksum(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { raw in
            UInt32(crc32(0, raw.bindMemory(to: UInt8.self).baseAddress, uInt(raw.count)))
        }
    }
}

extension Data {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
