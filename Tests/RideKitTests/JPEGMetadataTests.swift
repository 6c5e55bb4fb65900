import Foundation
@testable import RideKit
import TestSupport
import Testing

/// A shared photo loses its metadata but not its picture (issue 20, finding 8): EXIF's GPS position and camera
/// serial, XMP, IPTC and comments go; the orientation stays; every byte from the start of scan on is the same.
@Suite struct JPEGMetadataTests {
    /// SOI, APP0 JFIF, APP1 EXIF (big-endian: IFD0 with Orientation 6, Make "SERIAL-4711", a GPS IFD pointer; the GPS
    /// IFD with a latitude reference), APP1 XMP, APP13 IPTC, a comment, DQT, then the scan and EOI.
    static func photo(orientation: UInt16 = 6) -> (bytes: [UInt8], scan: [UInt8]) {
        func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) -> [UInt8] { u16(value >> 16) + u16(value & 0xFFFF) }
        func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] { [0xFF, marker] + u16(body.count + 2) + body }
        // TIFF: header 8; IFD0 at 8 with 3 entries (2 + 36 + 4 = 42) → 50; the Make text at 50 (12); GPS IFD at 62.
        var tiff: [UInt8] = Array("MM".utf8) + u16(42) + u32(8)
        tiff += u16(3)
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(Int(orientation)) + u16(0)
        tiff += u16(0x010F) + u16(2) + u32(12) + u32(50)
        tiff += u16(0x8825) + u16(4) + u32(1) + u32(62)
        tiff += u32(0)
        tiff += Array("SERIAL-4711\0".utf8)
        tiff += u16(1) + u16(0x0001) + u16(2) + u32(2) + Array("N\0".utf8) + u16(0) + u32(0)
        let exif = segment(0xE1, Array("Exif".utf8) + [0, 0] + tiff)
        let xmp = segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>GPSLatitude 46.5</x:xmpmeta>".utf8))
        let iptc = segment(0xED, Array("Photoshop 3.0\0 city Lausanne".utf8))
        let comment = segment(0xFE, Array("taken at home".utf8))
        let jfif = segment(0xE0, Array("JFIF\0".utf8) + [1, 1, 0, 0, 1, 0, 1, 0, 0])
        let dqt = segment(0xDB, [0x00] + Array(repeating: 1, count: 64))
        let scan: [UInt8] = [0xFF, 0xDA, 0x00, 0x02, 0x12, 0x34, 0xFF, 0x00, 0x56, 0xFF, 0xD9]
        return ([0xFF, 0xD8] + jfif + exif + xmp + iptc + comment + dqt + scan, scan)
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }

    @Test func positionSerialAndTextsGoTheOrientationAndThePictureStay() throws {
        let (original, scan) = Self.photo()
        let stripped = try #require(JPEGMetadata.stripped(original))
        for secret in ["SERIAL-4711", "GPSLatitude", "Lausanne", "taken at home", "xmpmeta"] {
            #expect(Self.contains(original, secret) && !Self.contains(stripped, secret), "\(secret)")
        }
        #expect(Array(stripped.suffix(scan.count)) == scan)
        #expect(Self.contains(stripped, "JFIF"))
        // The orientation, in an EXIF block of its own that holds nothing else.
        let orientation = JPEGMetadata.orientationSegment(6)
        #expect(stripped.firstRange(of: orientation) != nil)
        #expect(JPEGMetadata.exifOrientation(orientation, body: 4..<orientation.count) == 6)
        // What is left is still a JPEG that can be walked, and stripping it again changes nothing.
        #expect(JPEGMetadata.stripped(stripped) == stripped)
    }

    @Test func aPhotoWithoutOrientationKeepsNoEXIFAtAll() throws {
        let stripped = try #require(JPEGMetadata.stripped(EXIFJPEG.make()))
        #expect(!Self.contains(stripped, "Exif"))
        #expect(JPEGThumbnail.range(in: stripped) == nil)
    }

    /// Not a JPEG, cut before its scan, a segment longer than the file: nil (the caller serves nothing).
    @Test(arguments: [0, 1, 3, 20, 60])
    func aBrokenFileGivesNil(cut: Int) {
        let (original, scan) = Self.photo()
        let truncated = Array(original.prefix(cut))
        #expect(JPEGMetadata.stripped(truncated) == nil, "cut at \(cut) of \(original.count - scan.count)")
        #expect(JPEGMetadata.stripped(Array("not a jpeg at all".utf8)) == nil)
    }
}
