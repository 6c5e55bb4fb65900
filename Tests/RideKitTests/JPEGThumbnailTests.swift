import Foundation
import Testing

@testable import RideKit
import TestSupport

@Suite struct JPEGThumbnailTests {
    @Test(arguments: [true, false])
    func findsTheEXIFThumbnailInEitherByteOrder(littleEndian: Bool) {
        let jpeg = EXIFJPEG.make(littleEndian: littleEndian)
        let range = JPEGThumbnail.range(in: jpeg)
        #expect(range == EXIFJPEG.thumbnailStart..<(EXIFJPEG.thumbnailStart + EXIFJPEG.thumbnail.count))
        #expect(range.map { Array(jpeg[$0]) } == EXIFJPEG.thumbnail)
    }

    @Test func aJPEGWithoutEXIFOrNotAJPEGHasNone() {
        let plain: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x06] + Array("JFIF".utf8) + [0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9]
        #expect(JPEGThumbnail.range(in: plain) == nil)
        #expect(JPEGThumbnail.range(in: [UInt8]()) == nil)
        #expect(JPEGThumbnail.range(in: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == nil)
    }

    /// Every prefix of a good file (a download cut anywhere) and every single-byte corruption: nil or a range
    /// inside the bytes, never a crash.
    @Test func truncatedOrCorruptedFilesGiveNilOrARangeInBounds() {
        let jpeg = EXIFJPEG.make()
        for length in 0..<jpeg.count {
            let range = JPEGThumbnail.range(in: jpeg.prefix(length))
            #expect(range == nil || range!.upperBound <= length)
        }
        for index in jpeg.indices {
            for value: UInt8 in [0x00, 0xFF, 0x7F] {
                var corrupted = jpeg
                corrupted[index] = value
                if let range = JPEGThumbnail.range(in: corrupted) { #expect(range.upperBound <= corrupted.count) }
            }
        }
    }

    @Test func offsetsOutsideTheEXIFBlockAreRefused() {
        #expect(JPEGThumbnail.range(in: EXIFJPEG.make(offsetShift: 1000)) == nil)
        #expect(JPEGThumbnail.range(in: EXIFJPEG.make(offsetShift: Int(Int32.max) - 44)) == nil)
        // An IFD claiming 65,535 entries runs past the block: nothing, quickly.
        #expect(JPEGThumbnail.range(in: EXIFJPEG.make(ifd1Entries: 0xFFFF)) == nil)
        // Bytes that do not begin as a JPEG are not taken for a thumbnail.
        #expect(JPEGThumbnail.range(in: EXIFJPEG.make(thumbnail: Array("not a jpeg".utf8))) == nil)
    }
}
