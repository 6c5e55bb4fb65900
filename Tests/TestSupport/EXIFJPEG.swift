import Foundation

/// JPEGs laid out byte by byte as the EXIF 2.32 specification says: SOI, APP1 `Exif\0\0`, a TIFF header, IFD0,
/// IFD1 with JPEGInterchangeFormat (0x0201) and its length (0x0202), the thumbnail, then the picture.
public enum EXIFJPEG {
    /// A stand-in thumbnail: SOI, a comment, EOI.
    public static let thumbnail: [UInt8] = [0xFF, 0xD8, 0xFF, 0xFE, 0x00, 0x06] + Array("tiny".utf8) + [0xFF, 0xD9]

    public static func make(littleEndian: Bool = true, thumbnail: [UInt8] = thumbnail, offsetShift: Int = 0, ifd1Entries: Int? = nil) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        func u32(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        // TIFF: header (8), IFD0 at 8 with no entries (2 + 4), IFD1 at 14 with two entries (2 + 24 + 4), data at 44.
        var tiff: [UInt8] = (littleEndian ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
        tiff += u16(0) + u32(14)
        tiff += u16(ifd1Entries ?? 2)
        tiff += u16(0x0201) + u16(4) + u32(1) + u32(44 + offsetShift)
        tiff += u16(0x0202) + u16(4) + u32(1) + u32(thumbnail.count)
        tiff += u32(0)
        tiff += thumbnail
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        let picture: [UInt8] = [0xFF, 0xDB, 0x00, 0x04, 0x01, 0x02, 0xFF, 0xDA, 0x00, 0x02, 0x55, 0x66, 0xFF, 0xD9]
        return [0xFF, 0xD8] + [0xFF, 0xE0, 0x00, 0x06] + Array("JFIF".utf8) + [0xFF, 0xE1] + [UInt8((app1.count + 2) >> 8), UInt8((app1.count + 2) & 0xFF)]
            + app1 + picture
    }

    /// Where `make`'s thumbnail starts: SOI 2, APP0 8, APP1 marker and length 4, `Exif\0\0` 6, then 44 into the TIFF.
    public static let thumbnailStart = 2 + 8 + 4 + 6 + 44
}
