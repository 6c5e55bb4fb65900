import Foundation
import Testing
import TestSupport

/// `bikeride heatmap`: the tiles a script gets, checked against the fixture's own fixes (their tiles by the Web
/// Mercator formula) and read back as PNG.
@Suite struct HeatmapCommandTests {
    @Test func writesTheNonEmptyTilesOfTheZoomAsFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-heatmap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        func run(_ arguments: [String]) throws -> CommandRun { try CommandRun.run(arguments + ["--data-dir", folder.appending(path: "data").path]) }
        let fixture = CommandRun.fixture("gpx/coregpx/GPXTest-TrackPointOnly.gpx")
        #expect(try run(["import", fixture]).status == 0)

        // The fixes' tiles at zoom 15, from the file's text.
        let text = try String(contentsOfFile: fixture, encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)""#)
        var expected = Set<String>()
        for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let lat = Double(text[Range(match.range(at: 1), in: text)!])! * .pi / 180
            let lon = Double(text[Range(match.range(at: 2), in: text)!])!
            let n = 32768.0  // 2^15 tiles across
            expected.insert("15/\(Int((lon + 180) / 360 * n))/\(Int((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n)).png")
        }
        #expect(expected.count > 3)

        let out = folder.appending(path: "tiles")
        let written = try run(["heatmap", "--zoom", "15", "--out", out.path])
        #expect(written.status == 0, "\(written.error)")
        let files = Set(try FileManager.default.subpathsOfDirectory(atPath: out.path).filter { $0.hasSuffix(".png") })
        // Every tile holding a fix is written (a line between fixes may cross a few more).
        #expect(expected.isSubset(of: files), "\(expected.subtracting(files))")
        #expect(written.output.contains("\(files.count) tile"))
        for file in files {
            let png = try DecodedPNG(Data(contentsOf: out.appending(path: file)))
            #expect(png.width == 256 && png.pixels.enumerated().contains { $0.offset % 4 == 3 && $0.element > 0 }, "\(file)")
        }
        // Filtered to nothing: no file; bad arguments: a message, no crash.
        let runs = try run(["heatmap", "--zoom", "15", "--out", folder.appending(path: "runs").path, "--kind", "run"])
        #expect(runs.status == 0 && runs.output.contains("0 tiles"))
        for bad in [["--zoom", "19"], ["--zoom", "3", "--kind", "bike"], ["--zoom", "3", "--year", "1800"]] {
            let refused = try run(["heatmap", "--out", out.path] + bad)
            #expect(refused.status != 0)
            #expect(!refused.error.isEmpty)
        }
    }
}
