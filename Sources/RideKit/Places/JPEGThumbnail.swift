/// The small preview a camera embeds in a JPEG's EXIF block (IFD1, tags 0x0201/0x0202), found by reading bytes
/// only: the server has no image library, and a phone's photo nearly always carries one (160×120 is usual).
///
///     JPEGThumbnail.range(in: photoBytes)  // 1234..<6789, the bytes of a JPEG of its own; nil when there is none
///
/// Every offset is checked against the bounds of the APP1 segment it came from, so a hostile file gives nil, never
/// a crash or a read outside the buffer. Time: linear in the segments before the first APP1 with EXIF (each is
/// skipped by its length), plus the entries of two IFDs; at most `maximumSegments` segments are looked at.
public enum JPEGThumbnail {
    /// Segments looked at before giving up: EXIF is APP1, which cameras write first or second.
    public static let maximumSegments = 64

    /// Where the embedded thumbnail is in `bytes`, or nil when `bytes` is no JPEG, has no EXIF, or its EXIF has no
    /// JPEG thumbnail that lies wholly inside the EXIF block and begins as a JPEG does.
    public static func range(in bytes: some RandomAccessCollection<UInt8>) -> Range<Int>? {
        let data = Array(bytes.prefix(1 << 20))  // EXIF is at most 64 KiB and comes before the image data
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var position = 2
        for _ in 0..<maximumSegments {
            guard position + 4 <= data.count, data[position] == 0xFF else { return nil }
            let marker = data[position + 1]
            // Fill bytes (0xFF 0xFF …) may precede a marker.
            if marker == 0xFF {
                position += 1
                continue
            }
            // Start of scan or end of image: no EXIF before the picture.
            if marker == 0xDA || marker == 0xD9 { return nil }
            let length = Int(data[position + 2]) << 8 | Int(data[position + 3])
            guard length >= 2, position + 2 + length <= data.count else { return nil }
            let body = (position + 4)..<(position + 2 + length)
            if marker == 0xE1, let range = thumbnail(inAPP1: data, body) { return range }
            position = body.upperBound
        }
        return nil
    }

    /// The thumbnail of an APP1 segment's body, when it is EXIF: `Exif\0\0`, then a TIFF block.
    static func thumbnail(inAPP1 data: [UInt8], _ body: Range<Int>) -> Range<Int>? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        guard body.count > header.count + 8, Array(data[body.lowerBound..<body.lowerBound + 6]) == header else { return nil }
        let tiff = (body.lowerBound + 6)..<body.upperBound
        let reader: TIFFReader
        switch (data[tiff.lowerBound], data[tiff.lowerBound + 1]) {
        case (0x49, 0x49): reader = TIFFReader(data: data, block: tiff, littleEndian: true)
        case (0x4D, 0x4D): reader = TIFFReader(data: data, block: tiff, littleEndian: false)
        default: return nil
        }
        guard reader.uint16(at: 2) == 42, let ifd0 = reader.uint32(at: 4),
              let ifd0Count = reader.uint16(at: ifd0),
              let ifd1 = reader.uint32(at: ifd0 + 2 + ifd0Count * 12), ifd1 != 0, ifd1 != ifd0,
              let ifd1Count = reader.uint16(at: ifd1)
        else { return nil }
        var offset: Int?
        var length: Int?
        for index in 0..<ifd1Count {
            let entry = ifd1 + 2 + index * 12
            guard let tag = reader.uint16(at: entry) else { return nil }
            // A LONG value, or a SHORT one (some writers): the value sits in the entry's last four bytes.
            let type = reader.uint16(at: entry + 2)
            let value = type == 3 ? reader.uint16(at: entry + 8) : reader.uint32(at: entry + 8)
            if tag == 0x0201 { offset = value }
            if tag == 0x0202 { length = value }
        }
        guard let offset, let length, length >= 4, offset <= tiff.count, length <= tiff.count - offset else { return nil }
        let start = tiff.lowerBound + offset
        // A JPEG of its own: it begins with SOI and a marker.
        guard data[start] == 0xFF, data[start + 1] == 0xD8, data[start + 2] == 0xFF else { return nil }
        return start..<(start + length)
    }

    /// Integers of a TIFF block in its byte order; nil for any read past the block's end.
    struct TIFFReader {
        let data: [UInt8]
        let block: Range<Int>
        let littleEndian: Bool

        func uint16(at offset: Int) -> Int? {
            guard offset >= 0, offset <= block.count - 2 else { return nil }
            let a = Int(data[block.lowerBound + offset]), b = Int(data[block.lowerBound + offset + 1])
            return littleEndian ? b << 8 | a : a << 8 | b
        }

        func uint32(at offset: Int) -> Int? {
            guard offset >= 0, offset <= block.count - 4, let low = uint16(at: littleEndian ? offset : offset + 2),
                  let high = uint16(at: littleEndian ? offset + 2 : offset)
            else { return nil }
            return high << 16 | low
        }
    }
}
