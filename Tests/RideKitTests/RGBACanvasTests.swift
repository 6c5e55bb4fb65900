import Foundation
import Testing
import RideKit
import TestSupport

/// The canvas and PNG encoder a preview image is drawn with, read back by the tests' own PNG reader.
@Suite struct RGBACanvasTests {
    @Test(arguments: [false, true])
    func aLineOnAPreviewSizedCanvasReadsBackWhereItWasDrawn(antialiased: Bool) throws {
        var canvas = RGBACanvas(width: 1200, height: 630)
        canvas.fill(RGBAColor(red: 255, green: 255, blue: 255))
        let red = RGBAColor(red: 220, green: 0, blue: 0)
        canvas.drawLine(from: (100, 100), to: (1100, 500), color: red, width: 3, antialiased: antialiased)
        let png = try DecodedPNG(PNGEncoder.encode(canvas))
        #expect(png.width == 1200 && png.height == 630)
        // On the line (y = 100 + 0.4 (x − 100)), at pixel centres: red; far from it: white.
        for x in stride(from: 150, to: 1050, by: 50) {
            let y = Int(100 + 0.4 * (Double(x) + 0.5 - 100))
            let onLine = png.rgba(x: x, y: y)
            #expect(onLine[0] >= 220 && onLine[1] < 160, "pixel \(x),\(y): \(onLine)")
            #expect(png.rgba(x: x, y: y + 20) == [255, 255, 255, 255])
            #expect(png.rgba(x: x, y: y - 20) == [255, 255, 255, 255])
        }
    }

    @Test func anEmptyCanvasIsTransparentAndEveryChunkChecks() throws {
        let png = try DecodedPNG(PNGEncoder.encode(RGBACanvas(width: 256, height: 256)))
        #expect(png.pixels.allSatisfy { $0 == 0 })
        // The CRC of IEND alone, as every PNG ends: AE 42 60 82.
        #expect(PNGEncoder.crc32Checksum(Data("IEND".utf8)) == 0xAE42_6082)
    }
}
