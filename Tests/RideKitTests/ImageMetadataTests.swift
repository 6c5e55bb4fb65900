import Foundation
@testable import RideKit
import TestSupport
import Testing

/// A shared photo's copy loses its metadata in PNG and WebP as in JPEG (issue 20): checked with two independent
/// tools — ExifTool (Debian's libimage-exiftool-perl) writes the GPS position, serial number, XMP and texts into
/// real files made by Pillow (python3-pil) and must find none of them in the copy, and Pillow must decode the copy to
/// the same pixels. Hostile files (truncated, lengths past the end, flipped bytes, huge chunk counts) give nil or a
/// clean file, never a crash.
@Suite struct ImageMetadataTests {
    /// Runs a program; its standard output, or nil (with the reason recorded) when it cannot run or fails.
    static func run(_ executable: String, _ arguments: [String]) -> String? {
        let errorFile = FileManager.default.temporaryDirectory.appending(path: "bikeride-image-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: errorFile.path, contents: nil), let errorHandle = try? FileHandle(forWritingTo: errorFile)
        else { return nil }
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let process = TestProcess()
        process.executableURL = URL(filePath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = errorHandle
        do { try process.run() } catch {
            Issue.record("cannot start \(executable) (scripts/test.sh installs libimage-exiftool-perl and python3-pil): \(error)")
            return nil
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? errorHandle.close()
        guard process.terminationStatus == 0 else {
            Issue.record("\(executable) \(arguments.first ?? "") failed: \((try? String(contentsOf: errorFile, encoding: .utf8)) ?? "")")
            return nil
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A 64×48 picture with a gradient and some transparency, written by Pillow as `name` (PNG with two text chunks,
    /// or lossless WebP), then given a GPS position, a camera serial, an artist, an XMP creator and (PNG) a
    /// modification time by ExifTool.
    static func photoWithMetadata(_ name: String, in folder: URL) -> URL? {
        let url = folder.appending(path: name)
        let script = """
            import sys
            from PIL import Image
            from PIL.PngImagePlugin import PngInfo
            im = Image.new('RGBA', (64, 48))
            px = im.load()
            for y in range(48):
                for x in range(64):
                    px[x, y] = (x * 4 % 256, y * 5 % 256, (x * y) % 256, 255 if (x + y) % 7 else 128)
            path = sys.argv[1]
            if path.endswith('.png'):
                info = PngInfo()
                info.add_text('Comment', 'home is here')
                info.add_itxt('Description', 'at home', lang='en')
                im.save(path, pnginfo=info)
            else:
                im.save(path, 'WEBP', lossless=True)
            """
        guard run("/usr/bin/python3", ["-c", script, url.path]) != nil,
              run("/usr/bin/exiftool", [
                  "-q", "-overwrite_original", "-GPSLatitude=46.52", "-GPSLatitudeRef=N", "-GPSLongitude=6.63", "-GPSLongitudeRef=E",
                  "-SerialNumber=CAM12345", "-Artist=Rider", "-XMP-dc:Creator=RiderXMP", "-PNG:ModifyDate=2024:05:01 10:00:00", url.path,
              ]) != nil
        else { return nil }
        return url
    }

    /// What ExifTool reads of a file, `group:tag` → value.
    static func tags(_ url: URL) -> [String: String]? {
        guard let text = run("/usr/bin/exiftool", ["-j", "-G", "-a", url.path]),
              let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], let object = array.first
        else { return nil }
        return object.mapValues { "\($0)" }
    }

    /// What says where, who or when: every EXIF, XMP and GPS tag, and PNG's texts and time.
    static func revealing(_ tags: [String: String]) -> [String] {
        tags.keys.filter { key in
            key.hasPrefix("EXIF:") || key.hasPrefix("XMP:") || key.contains("GPS") || key.hasPrefix("MakerNotes:")
                || ["PNG:Comment", "PNG:Description-en", "PNG:ModifyDate"].contains(key)
        }.sorted() + tags.values.filter { $0.contains("CAM12345") || $0.contains("Rider") || $0.contains("home") }
    }

    /// The SHA-256 of the RGBA pixels and the size, as Pillow decodes the file.
    static func pixels(_ url: URL) -> String? {
        run("/usr/bin/python3", ["-c", """
            import sys, hashlib
            from PIL import Image
            im = Image.open(sys.argv[1]); im.load()
            print(im.size, hashlib.sha256(im.convert('RGBA').tobytes()).hexdigest())
            """, url.path])
    }

    @Test(arguments: [("photo.png", "image/png"), ("photo.webp", "image/webp")])
    func theCopyHasNoMetadataAndTheSamePixels(name: String, mediaType: String) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-metadata-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try #require(Self.photoWithMetadata(name, in: folder))
        let before = try #require(Self.tags(original))
        // The test can fail: the original says it all.
        #expect(Set(["EXIF:SerialNumber", "EXIF:Artist", "XMP:Creator", "Composite:GPSPosition"]).isSubset(of: Set(before.keys)), "\(before.keys.sorted())")
        let bytes = try Data(contentsOf: original)
        let stripped = try #require(ImageMetadata.stripped(bytes, mediaType: mediaType))
        let copy = folder.appending(path: "copy-" + name)
        try Data(stripped).write(to: copy)
        let after = try #require(Self.tags(copy))
        #expect(Self.revealing(after).isEmpty, "\(Self.revealing(after))")
        if mediaType == "image/webp" {
            #expect(after["RIFF:WebP_Flags"].map { !$0.contains("EXIF") && !$0.contains("XMP") } ?? true, "\(after["RIFF:WebP_Flags"] ?? "")")
        }
        #expect(after["File:Warning"] == nil, "\(after["File:Warning"] ?? "")")
        let decoded = try #require(Self.pixels(copy))
        #expect(decoded == Self.pixels(original))
        #expect(decoded.hasPrefix("(64, 48)"))
        // Cleaning a clean file changes nothing.
        #expect(ImageMetadata.stripped(stripped, mediaType: mediaType) == stripped)
    }

    /// HEIC (and anything else) cannot be cleaned: nil, so a share shows nothing rather than the original.
    @Test func heicIsNotCleaned() {
        let heic: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [UInt8](repeating: 3, count: 50)
        #expect(ImageMetadata.stripped(heic, mediaType: "image/heic") == nil)
    }

    // MARK: Hostile files

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let count = UInt32(data.count)
        let length: [UInt8] = [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)]
        let crc = PNGEncoder.crc32Checksum(Data(Array(type.utf8) + data))
        return length + Array(type.utf8) + data + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    /// A small PNG with every kind of metadata chunk, and a WebP (extended) with EXIF and XMP, built by hand.
    static var png: [UInt8] {
        ImageMetadata.pngSignature + chunk("IHDR", [0, 0, 0, 2, 0, 0, 0, 2, 8, 6, 0, 0, 0]) + chunk("tEXt", Array("Comment\0home".utf8))
            + chunk("eXIf", Array("MM\0*GPS".utf8)) + chunk("tIME", [7, 232, 5, 1, 10, 0, 0]) + chunk("IDAT", [0x78, 0x9C, 1, 2, 3])
            + chunk("iTXt", Array("XML:com.adobe.xmp\0\0\0\0\0<x/>".utf8)) + chunk("IEND", [])
    }

    static func riffChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let count = UInt32(data.count)
        return Array(type.utf8) + [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)] + data
            + (data.count % 2 == 1 ? [0] : [])
    }

    static var webp: [UInt8] {
        let body = Array("WEBP".utf8) + riffChunk("VP8X", [0x2C, 0, 0, 0, 1, 0, 0, 1, 0, 0]) + riffChunk("ICCP", [1, 2, 3])
            + riffChunk("VP8L", [0x2F, 1, 0, 0, 0]) + riffChunk("EXIF", Array("MM\0*GPS".utf8)) + riffChunk("XMP ", Array("<x/>".utf8))
        let count = UInt32(body.count)
        return Array("RIFF".utf8) + [UInt8(count & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count >> 16 & 0xFF), UInt8(count >> 24)] + body
    }

    /// The chunk types of a PNG or WebP as a reader independent of `ImageMetadata` walks them (nil: not walkable).
    static func chunkTypes(_ bytes: [UInt8], webp: Bool) -> [String]? {
        var types: [String] = []
        var position = webp ? 12 : 8
        while position + 8 <= bytes.count {
            let field = bytes[position..<position + 4]
            let length = webp
                ? Int(bytes[position + 4]) | Int(bytes[position + 5]) << 8 | Int(bytes[position + 6]) << 16 | Int(bytes[position + 7]) << 24
                : Int(field[field.startIndex]) << 24 | Int(bytes[position + 1]) << 16 | Int(bytes[position + 2]) << 8 | Int(bytes[position + 3])
            let type = String(decoding: webp ? bytes[position..<position + 4] : bytes[position + 4..<position + 8], as: UTF8.self)
            types.append(type)
            position += webp ? 8 + length + (length & 1) : 12 + length
        }
        return position == bytes.count ? types : nil
    }

    @Test func theBuiltFilesLoseTheirMetadataChunks() throws {
        let png = try #require(ImageMetadata.stripped(Self.png, mediaType: "image/png"))
        #expect(Self.chunkTypes(png, webp: false) == ["IHDR", "IDAT", "IEND"])
        let webp = try #require(ImageMetadata.stripped(Self.webp, mediaType: "image/webp"))
        #expect(Self.chunkTypes(webp, webp: true) == ["VP8X", "ICCP", "VP8L"])
        // VP8X keeps ICC (0x20) and alpha (0x10) and loses EXIF (0x08) and XMP (0x04); the RIFF size is the file's.
        #expect(webp[20] == 0x20)
        #expect(Int(webp[4]) | Int(webp[5]) << 8 == webp.count - 8)
    }

    /// 3,000 mutations of each (a flipped byte, a cut, a length set past the end, a repeated stretch): every
    /// answer is nil or a file whose chunks walk to its end and hold no metadata chunk.
    @Test(arguments: [false, true]) func mutatedFilesGiveNilOrACleanFile(webp: Bool) {
        var random = SeededGenerator(seed: webp ? 20 : 21)
        let original = webp ? Self.webp : Self.png
        let mediaType = webp ? "image/webp" : "image/png"
        let forbidden: Set<String> = webp ? ["EXIF", "XMP "] : ["tEXt", "zTXt", "iTXt", "eXIf", "tIME"]
        var cleaned = 0
        for round in 0..<3000 {
            var bytes = original
            switch round % 4 {
            case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1: bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &random)))
            case 2:
                let at = Int.random(in: 0..<(bytes.count - 4), using: &random)
                bytes.replaceSubrange(at..<at + 4, with: [0xFF, 0xFF, 0xFF, UInt8.random(in: 0...0x7F, using: &random)])
            default:
                let start = Int.random(in: 8..<bytes.count, using: &random)
                let end = min(bytes.count, start + Int.random(in: 1...40, using: &random))
                bytes.insert(contentsOf: bytes[start..<end], at: start)
            }
            guard let result = ImageMetadata.stripped(bytes, mediaType: mediaType) else { continue }
            cleaned += 1
            let types = Self.chunkTypes(result, webp: webp)
            #expect(types != nil, "round \(round): the result does not walk to its end")
            #expect(forbidden.isDisjoint(with: types ?? []), "round \(round): \(types ?? [])")
            #expect(result.count <= bytes.count + 1)
        }
        // Many mutations (a flipped pixel byte, a duplicated stretch inside a chunk …) still leave a readable file.
        #expect(cleaned > 100, "\(cleaned)")
    }

    /// 200,000 tiny text chunks: cleaned in one pass (linear), none left.
    @Test func hugeChunkCountsAreCleanedInOnePass() throws {
        let text = Self.chunk("tEXt", Array("a\0b".utf8))
        var bytes = Array(Self.png.prefix(8 + 25))
        bytes.reserveCapacity(200_000 * text.count + 100)
        for _ in 0..<200_000 { bytes += text }
        bytes += Self.chunk("IDAT", [0x78, 0x9C]) + Self.chunk("IEND", [])
        let result = try #require(ImageMetadata.stripped(bytes, mediaType: "image/png"))
        #expect(Self.chunkTypes(result, webp: false) == ["IHDR", "IDAT", "IEND"])
    }
}
