import Foundation
import Testing

@testable import RideKit
import TestSupport

/// `GeoJSONWriter.stream`, which writes a track too long to hold a block of points at a time (issue 20, finding 5),
/// writes the same bytes as the whole-document writer.
@Suite struct GeoJSONStreamTests {
    /// The stream of a document whose points are handed over `blockSize` at a time, in chunks.
    static func streamed(_ document: GPXDocument, blockSize: Int, extraWaypoints: [TrackPoint] = []) async throws -> (bytes: [UInt8], chunks: Int) {
        var bytes: [UInt8] = []
        var chunks = 0
        try await GeoJSONWriter.stream(
            tracks: document.tracks, segmentCounts: document.tracks.map(\.segments.count), routes: document.routes,
            extraWaypoints: extraWaypoints,
            points: { part, body in
                let points: [TrackPoint] = switch part {
                case .trackSegment(let track, let segment): document.tracks[track].segments[segment].points
                case .route(let route): document.routes[route].points
                case .waypoints: document.waypoints
                }
                var start = 0
                while start < points.count {
                    try await body(Array(points[start..<min(points.count, start + blockSize)]))
                    start += blockSize
                }
            },
            write: { chunk in
                bytes += chunk
                chunks += 1
            })
        return (bytes, chunks)
    }

    @Test(arguments: [
        "gpx/gpxpy/gpx1.1_with_all_fields.gpx", "gpx/gpxpy/gpx1.0_with_all_fields.gpx", "gpx/georust-gpx/garmin-activity.gpx",
        "gpx/togeojson/blue_hills.gpx", "gpx/ruby-gpx/tracks.gpx",
    ])
    func aFixtureStreamsAsTheWholeWriterWritesIt(_ fixture: String) async throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url(fixture))
        for blockSize in [1, 3, 1024] {
            #expect(try await Self.streamed(document, blockSize: blockSize).bytes == GeoJSONWriter.write(document), "blocks of \(blockSize)")
        }
    }

    /// The edges of the format: an empty segment and an empty track (no geometry), a lone point (doubled), a point out
    /// of range (left out), values on some points only (null on the others), a route, and extra waypoints.
    @Test func edgeCasesStreamAsTheWholeWriterWritesThem() async throws {
        func point(_ index: Int) -> TrackPoint {
            var point = TrackPoint(latitude: 47 + Double(index) * 1e-4, longitude: 8)
            if index % 2 == 0 { point.time = GPXTime(date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index))) }
            if index % 3 == 0 { point.heartRate = 120 }
            if index % 5 == 0 { point.elevation = 500 }
            return point
        }
        let bad = TrackPoint(latitude: 95, longitude: 8)
        var cue = TrackPoint(latitude: 47.5, longitude: 8.1)
        cue.name = "Turn \"right\""
        let document = GPXDocument(
            waypoints: [point(1), bad],
            routes: [Route(name: "r", points: [point(2), point(3), bad]), Route(name: "empty")],
            tracks: [
                Track(name: "a", type: "cycling", segments: [
                    TrackSegment(points: (0..<2_500).map(point)), TrackSegment(points: []), TrackSegment(points: [bad, point(7)]),
                ]),
                Track(name: "none"),
                Track(name: "bad only", segments: [TrackSegment(points: [bad])]),
            ])
        var expected = document
        expected.waypoints.append(cue)
        let (bytes, chunks) = try await Self.streamed(document, blockSize: 100, extraWaypoints: [cue])
        #expect(bytes == GeoJSONWriter.write(expected))
        #expect(chunks >= 2, "handed over in chunks, not whole")
        // An empty document too.
        #expect(try await Self.streamed(GPXDocument(), blockSize: 10).bytes == GeoJSONWriter.write(GPXDocument()))
    }
}
