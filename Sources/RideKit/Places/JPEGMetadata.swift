/// A JPEG without what its metadata says about where, when and with what it was taken — EXIF (its GPS position, the
/// camera's serial number, the time), XMP, IPTC, comments — for a copy that leaves the owner's hands (a share
/// link's photos). The picture is the same bytes; only the EXIF orientation is kept (in a minimal EXIF block of its
/// own), so that a portrait photo is not shown on its side.
///
///     JPEGMetadata.stripped(photoBytes)  // the same JPEG without APP1 (EXIF, XMP), APP3–APP13, APP15 and comments
///
/// Kept: APP0 (JFIF), APP2 (the ICC colour profile), APP14 (Adobe's colour transform) and every segment the
/// picture needs; from the start of scan on, bytes are copied as they are. nil when `bytes` is not a JPEG that can
/// be walked to its start of scan (a hostile or truncated file): a caller then serves nothing rather than the
/// original. Time and memory linear in the size; at most `maximumSegments` segments before the scan.
public enum JPEGMetadata {
    public static let maximumSegments = 1024

    public static func stripped(_ bytes: some RandomAccessCollection<UInt8>) -> [UInt8]? {
        let data = Array(bytes)
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return nil }
        var output: [UInt8] = [0xFF, 0xD8]
        output.reserveCapacity(data.count)
        var orientationKept = false
        var position = 2
        for _ in 0..<maximumSegments {
            guard position + 2 <= data.count, data[position] == 0xFF else { return nil }
            let marker = data[position + 1]
            if marker == 0xFF {  // fill byte
                position += 1
                continue
            }
            // Start of scan or end of image: the rest is the picture, copied whole.
            if marker == 0xDA || marker == 0xD9 {
                output += data[position...]
                return output
            }
            // Markers without a length (TEM, RSTn) do not occur before the scan in a valid file.
            guard marker != 0x01, !(0xD0...0xD7).contains(marker), position + 4 <= data.count else { return nil }
            let length = Int(data[position + 2]) << 8 | Int(data[position + 3])
            guard length >= 2, position + 2 + length <= data.count else { return nil }
            let end = position + 2 + length
            if marker == 0xE1 {
                // EXIF or XMP: in its place, the orientation alone (of the first EXIF block that has one).
                if !orientationKept, let orientation = exifOrientation(data, body: (position + 4)..<end) {
                    output += orientationSegment(orientation)
                    orientationKept = true
                }
            } else if (0xE3...0xED).contains(marker) || marker == 0xEF || marker == 0xFE {
                // Dropped: APP3–APP13 (IPTC is APP13), APP15, comments.
            } else {
                output += data[position..<end]
            }
            position = end
        }
        return nil
    }

    /// The Orientation tag (0x0112) of an APP1 body that is EXIF (`Exif\0\0`, a TIFF header, IFD0), when it is 1–8.
    static func exifOrientation(_ data: [UInt8], body: Range<Int>) -> UInt16? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]
        guard body.count >= 6 + 8, Array(data[body.lowerBound..<(body.lowerBound + 6)]) == header else { return nil }
        let tiff = body.lowerBound + 6
        let little: Bool
        switch (data[tiff], data[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func uint16(_ offset: Int) -> Int? {
            guard offset >= 0, tiff + offset + 2 <= body.upperBound else { return nil }
            let a = Int(data[tiff + offset]), b = Int(data[tiff + offset + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func uint32(_ offset: Int) -> Int? {
            guard let first = uint16(offset), let second = uint16(offset + 2) else { return nil }
            return little ? first | second << 16 : first << 16 | second
        }
        guard uint16(2) == 42, let ifd = uint32(4), let count = uint16(ifd) else { return nil }
        for index in 0..<min(count, 1000) {
            let entry = ifd + 2 + index * 12
            guard let tag = uint16(entry) else { return nil }
            if tag == 0x0112 {
                guard uint16(entry + 2) == 3, let value = uint16(entry + 8), (1...8).contains(value) else { return nil }
                return UInt16(value)
            }
        }
        return nil
    }

    /// An APP1 segment holding EXIF with IFD0 and the Orientation tag alone (big-endian TIFF).
    static func orientationSegment(_ orientation: UInt16) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // MM, 42, IFD0 at 8
            + [0x00, 0x01]  // one entry
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]  // no next IFD
        let body = Array("Exif".utf8) + [0x00, 0x00] + tiff
        let length = body.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }
}
