import Foundation
import Testing

@testable import RideKit

@Suite struct GPXSummaryTests {
    /// A ride long enough that the figures are computed on the background thread (several chunks).
    static func longRide(points: Int) -> [UInt8] {
        var text = "<gpx version=\"1.1\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        var latitude = 46.0
        for index in 0..<points {
            if index == points / 2 { text += "</trkseg><trkseg>\n" }
            latitude += 0.00004
            let seconds = 1_700_000_000 + index
            let time = GPXTime(secondsSince1970: Int64(seconds)).rfc3339
            text += "<trkpt lat=\"\(latitude)\" lon=\"8.0\"><ele>\(400 + index % 50)</ele><time>\(time)</time></trkpt>\n"
        }
        return Array((text + "</trkseg></trk></gpx>").utf8)
    }

    @Test func backgroundFiguresEqualThePlainAccumulatorsFigures() throws {
        let bytes = Self.longRide(points: 50_000)
        var handler = GPXSummaryHandler(activity: .ride)
        _ = try GPXReader.parse(bytes: bytes, into: &handler)
        let summary = handler.summary()
        var plain = TrackStatsAccumulator(activity: .ride)
        for segment in try GPXReader.read(bytes: bytes).tracks[0].segments {
            plain.beginSegment()
            for point in segment.points {
                plain.add(latitude: point.latitude, longitude: point.longitude, elevation: point.elevation, time: point.time)
            }
        }
        #expect(summary.stats == plain.finish())
        #expect(summary.points == 50_000)
        #expect(summary.segments == 2)
        // 49,998 counted steps of 0.00004° of latitude (the one across the segment break does not count), on the
        // meridian from 46° to 48°N: the textbook WGS-84 series gives 111,170.8 m per degree at 47°.
        let metersPerDegree = 111_132.954 - 559.822 * cos(2 * 47 * Double.pi / 180) + 1.175 * cos(4 * 47 * Double.pi / 180)
        let expected = 49_998 * 0.00004 * metersPerDegree
        #expect(abs(summary.stats.distanceMeters - expected) / expected < 0.001)
    }

    @Test func readingAheadFromAFileGivesTheSameDocument() throws {
        let bytes = Self.longRide(points: 30_000)
        let url = FileManager.default.temporaryDirectory.appending(path: "bikeride-readahead-\(UUID().uuidString).gpx")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try GPXReader.read(contentsOf: url) == GPXReader.read(bytes: bytes))
        // A failure part-way stops the read-ahead thread cleanly, and the error is the same.
        var broken = bytes
        broken[broken.count / 2] = 0
        try Data(broken).write(to: url)
        #expect(throws: GPXError.self) { try GPXReader.read(contentsOf: url) }
    }

    @Test func timeBetweenTracksIsNotCountedButTimeBetweenSegmentsIsPaused() throws {
        func point(_ latitude: Double, _ time: String) -> String {
            "<trkpt lat=\"\(latitude)\" lon=\"8\"><time>\(time)</time></trkpt>"
        }
        // Track 1: 10 minutes, a 5-minute pause, 10 minutes. Track 2, a day later: 10 minutes.
        let text = "<gpx version=\"1.1\"><trk><trkseg>" + point(46, "2024-05-01T08:00:00Z") + point(46.01, "2024-05-01T08:10:00Z")
            + "</trkseg><trkseg>" + point(46.01, "2024-05-01T08:15:00Z") + point(46.02, "2024-05-01T08:25:00Z")
            + "</trkseg></trk><trk><trkseg>" + point(46.02, "2024-05-02T08:00:00Z") + point(46.03, "2024-05-02T08:10:00Z")
            + "</trkseg></trk></gpx>"
        let bytes = Array(text.utf8)
        var handler = GPXSummaryHandler(activity: .ride)
        _ = try GPXReader.parse(bytes: bytes, into: &handler)
        let stats = handler.summary().stats
        #expect(stats.pausedSeconds == 300)
        #expect(stats.elapsedSeconds == 35 * 60)
        #expect(try GPXReader.read(bytes: bytes).stats(activity: .ride).elapsedSeconds == 35 * 60)
    }
}
