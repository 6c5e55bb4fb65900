import Foundation
import Testing

@testable import RideKit
import TestSupport

/// Inputs built to hurt: each must end in a clear GPXError, without a crash.
@Suite struct GPXHostileInputTests {
    static let gpxOpen = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\">"

    static func point(lat: String, lon: String) -> [UInt8] {
        Array("\(gpxOpen)<trk><trkseg><trkpt lat=\"\(lat)\" lon=\"\(lon)\"/></trkseg></trk></gpx>".utf8)
    }

    static func deepNesting(_ depth: Int) -> [UInt8] {
        Array((gpxOpen + "<extensions>" + String(repeating: "<a>", count: depth) + String(repeating: "</a>", count: depth)
            + "</extensions></gpx>").utf8)
    }

    static let cases: [(String, [UInt8])] = [
        ("empty file", []),
        ("only white space", Array("  \n\t ".utf8)),
        ("internal DTD with entities", Array("<?xml version=\"1.0\"?><!DOCTYPE gpx [<!ENTITY a \"b\">]><gpx/>".utf8)),
        (
            "billion laughs",
            Array(
                ("<?xml version=\"1.0\"?><!DOCTYPE lolz [<!ENTITY lol \"lol\">"
                    + (1...9).map { "<!ENTITY lol\($0) \"" + String(repeating: "&lol\($0 - 1 == 0 ? "" : String($0 - 1));", count: 10) + "\">" }
                    .joined() + "]><gpx>&lol9;</gpx>").utf8)
        ),
        ("external entity", Array("<!DOCTYPE gpx [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><gpx>&x;</gpx>".utf8)),
        ("ATTLIST", Array("<!DOCTYPE gpx [<!ATTLIST gpx a CDATA #IMPLIED>]><gpx/>".utf8)),
        ("NOTATION", Array("<!DOCTYPE gpx [<!NOTATION n SYSTEM \"x\">]><gpx/>".utf8)),
        ("undefined entity without DTD", Array("\(gpxOpen)<metadata><name>&xxe;</name></metadata></gpx>".utf8)),
        ("invalid UTF-8 in a name", Array("\(gpxOpen)<tr".utf8) + [0xFF] + Array("k/></gpx>".utf8)),
        ("invalid UTF-8 in a comment", Array("\(gpxOpen)<!-- ".utf8) + [0xC3, 0x28] + Array(" --></gpx>".utf8)),
        ("UTF-16 without BOM", Array("<?xml version=\"1.0\"?><gpx/>".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
        ("truncated in a tag", Array("\(gpxOpen)<trk><trkseg><trkpt lat=\"1\" lo".utf8)),
        ("truncated after a tag", Array("\(gpxOpen)<trk><trkseg>".utf8)),
        ("100k-deep nesting", deepNesting(100_000)),
        ("NaN latitude", point(lat: "NaN", lon: "1")),
        ("inf longitude", point(lat: "1", lon: "inf")),
        ("1e400 latitude", point(lat: "1e400", lon: "1")),
        ("hex latitude", point(lat: "0x1p3", lon: "1")),
        ("latitude out of range", point(lat: "90.0000001", lon: "1")),
        ("longitude out of range", point(lat: "1", lon: "-180.5")),
        ("empty latitude", point(lat: "", lon: "1")),
        ("not GPX", Array("<kml xmlns=\"http://www.opengis.net/kml/2.2\"/>".utf8)),
        ("impossible date", Array("\(gpxOpen)<metadata><time>2024-02-30T00:00:00Z</time></metadata></gpx>".utf8)),
        ("processing instruction without data, then not GPX", Array("<?x?><x/>".utf8)),
        ("gzip bytes", [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0]),
        ("a NUL byte", Array("\(gpxOpen)".utf8) + [0] + Array("</gpx>".utf8)),
        ("second root", Array("\(gpxOpen)</gpx><gpx/>".utf8)),
    ]

    /// That it is quick is no wall-clock limit here: GPXReadingScalesLinearlyTests counts the work.
    @Test(arguments: cases.indices)
    func hostileInputGivesAClearError(_ index: Int) {
        let (name, bytes) = Self.cases[index]
        do {
            _ = try GPXReader.read(bytes: bytes)
            Issue.record("\(name): expected an error")
        } catch {
            #expect(!error.message.isEmpty, "\(name)")
            print("\(name): \(error)")
        }
    }

    @Test func processingInstructionWithoutDataIsFine() throws {
        // The input that crashes Foundation's XMLParser on Linux is well-formed XML.
        let document = try GPXReader.read(bytes: Array("<?x?><gpx version=\"1.1\"><?y?></gpx>".utf8))
        #expect(document.tracks.isEmpty)
    }

    @Test func truncatedFixtureIsReportedAsTruncated() throws {
        let bytes = try Fixtures.bytes("gpx/coregpx/GPXTest-TrackPointOnly.gpx")
        for cut in [bytes.count / 3, bytes.count / 2, bytes.count - 10] {
            do {
                _ = try GPXReader.read(bytes: Array(bytes[..<cut]))
                Issue.record("cut at \(cut): expected an error")
            } catch {
                guard case .truncated = error.reason else {
                    Issue.record("cut at \(cut): \(error)")
                    continue
                }
            }
        }
    }

    @Test func filesOverTenMegabytesAreRead() throws {
        // Foundation's XMLParser(data:) fails on anything over 10,000,000 bytes.
        var text = Self.gpxOpen + "<trk><trkseg>"
        let line = "<trkpt lat=\"47.1234567\" lon=\"8.1234567\"><ele>512.3</ele><time>2024-05-01T08:00:00Z</time></trkpt>\n"
        let count = 11_000_000 / line.utf8.count + 1
        text += String(repeating: line, count: count) + "</trkseg></trk></gpx>"
        let document = try GPXReader.read(bytes: Array(text.utf8))
        #expect(document.tracks[0].points.count == count)
    }

    @Test func lineAndColumnPointAtTheProblem() throws {
        let text = "\(Self.gpxOpen)\n<trk>\n  <trkseg>\n    <trkpt lat=\"95\" lon=\"1\"/>\n"
        do {
            _ = try GPXReader.read(bytes: Array(text.utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 4)
            #expect(error.column == 5)
            #expect(error.description.hasPrefix("line 4, column 5: invalid lat '95'"))
        }
    }

    @Test func lenientModeDropsAndCountsBadPoints() throws {
        let text = "\(Self.gpxOpen)<trk><trkseg><trkpt lat=\"1\" lon=\"1\"/><trkpt lat=\"nan\" lon=\"1\"/><trkpt lat=\"2\" lon=\"2\"><time>2024-13-01T00:00:00Z</time></trkpt></trkseg></trk></gpx>"
        let (document, report) = try GPXReader.readWithReport(bytes: Array(text.utf8), options: GPXReadOptions(lenient: true))
        #expect(document.tracks[0].points.map(\.latitude) == [1, 2])
        #expect(report.droppedPoints == 1)
        #expect(report.droppedValues == 1)
        #expect(document.tracks[0].points[1].time == nil)
    }

    @Test func brokenUTF16IsReportedWhereItBreaks() {
        func littleEndian(_ text: String) -> [UInt8] { text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
        var bytes: [UInt8] = [0xFF, 0xFE]
        bytes += littleEndian("<gpx version=\"1.1\">\n<trk>\n<name>a")
        bytes += [0x00, 0xD8]  // a high surrogate with no low half after it
        bytes += littleEndian("x</name></trk></gpx>")
        do {
            _ = try GPXReader.read(bytes: bytes)
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3 && error.column == 8, "\(error)")
            #expect(error.message.contains("surrogate"))
        }
    }

    @Test func lenientModeStillRefusesBrokenXML() {
        #expect(throws: GPXError.self) {
            try GPXReader.read(bytes: Array("\(Self.gpxOpen)<trk></gpx>".utf8), options: GPXReadOptions(lenient: true))
        }
    }
}
