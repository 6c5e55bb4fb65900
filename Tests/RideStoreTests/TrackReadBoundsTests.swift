import Foundation
import RideKit
import Testing

@testable import RideStore
import TestSupport

/// Reading a long track in bounded memory (issue 20, finding 5): the GPX download written one packed block at a
/// time, and the lines of the page and the profile taken from every n-th point of a longer track.
@Suite struct TrackReadBoundsTests {
    /// The streamed file reads back as the same document as the whole-document writer's: every point, field and
    /// extension, with the track's kind as each `trk`'s type and the extra waypoints after the stored ones.
    @Test(arguments: [
        "gpx/gpxpy/gpx1.1_with_all_fields.gpx", "gpx/gpxpy/gpx1.0_with_all_fields.gpx",
        "gpx/georust-gpx/garmin-activity.gpx", "gpx/togeojson/blue_hills.gpx", "gpx/ruby-gpx/tracks.gpx",
    ])
    func theStreamedGPXReadsBackAsTheWholeDocument(_ fixture: String) async throws {
        let original = try GPXReader.read(contentsOf: Fixtures.url(fixture))
        let content = TrackContent(document: original)
        var cue = TrackPoint(latitude: 46.5, longitude: 6.6)
        cue.name = "Turn right"
        var streamed: [UInt8] = []
        var chunks = 0
        try await content.writeGPX(kind: .run, extraWaypoints: [cue]) { bytes in
            streamed += bytes
            chunks += 1
        }
        var expected = try content.document()
        expected.setActivityType(.run)
        expected.waypoints.append(cue)
        let wholeRead = try GPXReader.read(bytes: GPXWriter.write(expected, creator: expected.creator))
        let streamedRead = try GPXReader.read(bytes: streamed)
        #expect(streamedRead.tracks == wholeRead.tracks)
        #expect(streamedRead.routes == wholeRead.routes)
        #expect(streamedRead.waypoints == wholeRead.waypoints)
        #expect(streamedRead.metadata == wholeRead.metadata)
        #expect(streamedRead.creator == wholeRead.creator)
        #expect(chunks >= 1)
    }

    /// A 5,000-point segment comes out in several chunks, each well under the whole file: the writer hands the
    /// file over as it goes.
    @Test func aLongSegmentIsWrittenInChunks() async throws {
        let points = (0..<5_000).map { index in
            var point = TrackPoint(latitude: 47 + Double(index) * 1e-5, longitude: 8)
            point.elevation = Double(index)
            return point
        }
        let content = TrackContent(tracks: [PackedTrack(Track(segments: [TrackSegment(points: points)]))])
        var sizes: [Int] = []
        try await content.writeGPX(kind: .ride) { sizes.append($0.count) }
        let total = sizes.reduce(0, +)
        #expect(sizes.count >= 3)
        #expect(sizes.max()! < total / 2)
        let read = try GPXReader.read(bytes: try await collected(content))
        #expect(read.tracks[0].segments[0].points.map(\.coordinate) == points.map(\.coordinate))
    }

    private func collected(_ content: TrackContent) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        try await content.writeGPX(kind: .ride) { bytes += $0 }
        return bytes
    }

    /// Up to the limit every point; beyond it every n-th point of each line (n the smallest that brings the
    /// whole track under the limit) and each line's last, checked against indices computed here.
    @Test(arguments: [(0, 10), (1, 10), (10, 10), (11, 10), (3_000, 1_000), (2_500, 1_000), (4_097, 100)])
    func boundedLinesKeepEveryNthPointAndTheLast(_ count: Int, _ limit: Int) throws {
        let first = (0..<count).map { TrackPoint(latitude: Double($0) * 1e-4, longitude: 1) }
        let second = (0..<(count / 2)).map { TrackPoint(latitude: -Double($0) * 1e-4, longitude: 2) }
        let track = StoredTrack(
            summary: TrackSummary(
                id: try #require(TrackID("AB3DEF7H")), name: "t", kind: .ride, source: .file, createdAt: Date(), updatedAt: Date()),
            stats: TrackStats(),
            content: TrackContent(tracks: [PackedTrack(Track(segments: [TrackSegment(points: first), TrackSegment(points: second)]))]))
        let lines = try track.boundedLineSegments(maximumPoints: limit)
        let total = count + count / 2
        var stride = 1
        while (total + stride - 1) / stride > limit { stride += 1 }
        for (line, points) in zip(lines, [first, second]) {
            var indices = Array(Swift.stride(from: 0, to: points.count, by: stride))
            if let last = points.indices.last, indices.last != last { indices.append(last) }
            #expect(line.points == indices.map { points[$0] })
        }
        // At most the limit, plus per line its rounding up and its last point where the stride does not land on it.
        #expect(lines.reduce(0) { $0 + $1.points.count } <= limit + 2 * lines.count)
    }
}
