/// A photo without what its metadata says about where, when and with what it was taken, for a copy that leaves the
/// owner's hands (a share link's photos), in each format photos are taken in: JPEG (`JPEGMetadata`), PNG and WebP.
/// The picture's bytes are copied as they are; nothing is decoded or re-encoded, no checksum recomputed.
///
///     ImageMetadata.stripped(bytes, mediaType: "image/png")  // the PNG without tEXt, zTXt, iTXt, eXIf, tIME …
///
/// nil when the bytes are not a file of that type that can be walked to its end (truncated, a length past the end, a
/// chunk a decoder could not skip), or the type is one this cannot clean (HEIC): a caller then serves nothing rather
/// than the original. Time and memory linear in the size.
public enum ImageMetadata {
    /// The media types whose metadata can be removed.
    public static let strippableMediaTypes: Set<String> = ["image/jpeg", "image/png", "image/webp"]

    public static func stripped(_ bytes: some RandomAccessCollection<UInt8>, mediaType: String) -> [UInt8]? {
        switch mediaType {
        case "image/jpeg": return JPEGMetadata.stripped(bytes)
        case "image/png": return strippedPNG(Array(bytes))
        case "image/webp": return strippedWebP(Array(bytes))
        default: return nil
        }
    }

    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The chunks a PNG keeps: the critical ones, and the ancillary ones that change how it is drawn (transparency,
    /// colour space and profile, gamma, significant bits, background, pixel aspect, HDR, APNG's animation). Every
    /// other ancillary chunk goes: text (`tEXt`, `zTXt`, `iTXt`: comments, XMP, software), `eXIf` (GPS, serial),
    /// `tIME`, and private ones whose content nobody here knows (Apple's `iDOT` only speeds decoding up).
    static let pngKeptChunks: Set<String> = [
        "IHDR", "PLTE", "IDAT", "IEND",
        "tRNS", "gAMA", "cHRM", "sRGB", "iCCP", "sBIT", "bKGD", "pHYs", "hIST", "sPLT", "cICP", "mDCv", "cLLi",
        "acTL", "fcTL", "fdAT",
    ]

    /// Walks the chunks from the signature to `IEND` (bytes after it are dropped too); nil when a chunk's length
    /// runs past the end, the first chunk is not `IHDR`, there is no `IEND`, or a critical chunk is unknown (no
    /// decoder could draw the file).
    static func strippedPNG(_ data: [UInt8]) -> [UInt8]? {
        guard data.count >= 8 + 12, Array(data[0..<8]) == pngSignature else { return nil }
        var output = pngSignature
        output.reserveCapacity(data.count)
        var position = 8
        var first = true
        while position + 12 <= data.count {
            let length = Int(data[position]) << 24 | Int(data[position + 1]) << 16 | Int(data[position + 2]) << 8 | Int(data[position + 3])
            // At most 2^31 − 1 by the specification; within what is left.
            guard length <= Int(Int32.max), length <= data.count - position - 12 else { return nil }
            let typeBytes = data[(position + 4)..<(position + 8)]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else { return nil }
            let type = String(decoding: typeBytes, as: UTF8.self)
            if first {
                guard type == "IHDR" else { return nil }
                first = false
            }
            let end = position + 12 + length
            let isCritical = (0x41...0x5A).contains(typeBytes.first!)
            if pngKeptChunks.contains(type) {
                output += data[position..<end]
            } else if isCritical {
                return nil
            }
            if type == "IEND" { return output }
            position = end
        }
        return nil
    }

    // MARK: WebP

    /// The chunks a WebP keeps: the picture (`VP8 `, `VP8L`, `ALPH`), the extended header, the ICC profile and
    /// animation frames. `EXIF`, `XMP ` and unknown chunks go, and `VP8X`'s flags for EXIF and XMP are cleared.
    static let webpKeptChunks: Set<String> = ["VP8 ", "VP8L", "VP8X", "ALPH", "ICCP", "ANIM", "ANMF"]

    /// Rewrites the RIFF container with the kept chunks (its size recomputed, each chunk copied with its padding);
    /// nil when the RIFF size or a chunk's runs past the end, a chunk's FourCC is not text, or no picture is left.
    /// Bytes after the RIFF's stated size are dropped.
    static func strippedWebP(_ data: [UInt8]) -> [UInt8]? {
        guard data.count >= 12, Array(data[0..<4]) == Array("RIFF".utf8), Array(data[8..<12]) == Array("WEBP".utf8) else { return nil }
        let riffSize = Int(data[4]) | Int(data[5]) << 8 | Int(data[6]) << 16 | Int(data[7]) << 24
        guard riffSize >= 4 + 8, riffSize <= data.count - 8 else { return nil }
        let riffEnd = 8 + riffSize
        var output = Array(data[0..<12])
        output.reserveCapacity(riffEnd)
        var position = 12
        var hasPicture = false
        var extendedHeaderAt: Int?
        while position < riffEnd {
            guard riffEnd - position >= 8 else { return nil }
            let fourCC = data[position..<(position + 4)]
            guard fourCC.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
            let type = String(decoding: fourCC, as: UTF8.self)
            let size = Int(data[position + 4]) | Int(data[position + 5]) << 8 | Int(data[position + 6]) << 16 | Int(data[position + 7]) << 24
            guard size <= riffEnd - position - 8 else { return nil }
            // Chunks are padded to an even length; a last chunk's missing pad byte is written back.
            let padded = size + (size & 1)
            let end = min(position + 8 + padded, riffEnd)
            if webpKeptChunks.contains(type) {
                if type == "VP8X" {
                    guard position == 12, size >= 10 else { return nil }
                    extendedHeaderAt = output.count
                }
                if ["VP8 ", "VP8L", "ANMF"].contains(type) { hasPicture = true }
                output += data[position..<end]
                if end - position < 8 + padded { output.append(0) }
            }
            position = end
        }
        guard hasPicture else { return nil }
        if let header = extendedHeaderAt {
            output[header + 8] &= ~UInt8(0x08 | 0x04)  // EXIF and XMP present: no longer
        }
        let size = output.count - 8
        output[4] = UInt8(size & 0xFF)
        output[5] = UInt8(size >> 8 & 0xFF)
        output[6] = UInt8(size >> 16 & 0xFF)
        output[7] = UInt8(size >> 24 & 0xFF)
        return output
    }
}
