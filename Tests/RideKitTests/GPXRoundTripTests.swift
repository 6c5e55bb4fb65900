import Foundation
import Testing

@testable import RideKit
import TestSupport

/// Reading a fixture, writing it and reading it again gives the same data; the output is valid GPX 1.1.
@Suite struct GPXRoundTripTests {
    @Test(arguments: Fixtures.wellFormedGPX)
    func writingAndReadingAgainKeepsEverything(_ path: String) throws {
        let first = try GPXReader.read(contentsOf: Fixtures.url(path))
        let written = GPXWriter.write(first)
        let second = try GPXReader.read(bytes: written)
        // The writer always writes GPX 1.1 and its creator; everything else must come back unchanged.
        var expected = first
        expected.version = second.version
        expected.creator = second.creator
        #expect(second.metadata == expected.metadata)
        #expect(second.waypoints == expected.waypoints)
        #expect(second.routes == expected.routes)
        #expect(second.tracks.count == expected.tracks.count)
        for (secondTrack, firstTrack) in zip(second.tracks, expected.tracks) {
            #expect(secondTrack.segments.count == firstTrack.segments.count)
            for (secondSegment, firstSegment) in zip(secondTrack.segments, firstTrack.segments) {
                #expect(secondSegment.points.count == firstSegment.points.count)
                for (index, (a, b)) in zip(secondSegment.points, firstSegment.points).enumerated() where a != b {
                    Issue.record("point \(index) differs:\n  read:    \(b)\n  re-read: \(a)")
                    break
                }
                #expect(secondSegment.extensions == firstSegment.extensions)
            }
            var a = secondTrack
            var b = firstTrack
            a.segments = []
            b.segments = []
            #expect(a == b)
        }
        #expect(second.extensions == expected.extensions)
        // Writing again gives the same bytes: the output is a fixed point.
        #expect(GPXWriter.write(second) == written)
    }

    @Test(arguments: Fixtures.wellFormedGPX)
    func writtenFixturesAreValidGPX11(_ path: String) throws {
        try #require(WriterTestXML.canValidate, "xmllint is not installed (the test command installs libxml2-utils)")
        let document = try GPXReader.read(contentsOf: Fixtures.url(path))
        let errors = try WriterTestXML.schemaErrors(GPXWriter.write(document))
        #expect(errors == nil, "\(errors ?? "")")
    }

    @Test func timeOffsetsAreWrittenAsTheyWereRead() throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url("gpx/opentracks/gpx_timezone.gpx"))
        let written = String(decoding: GPXWriter.write(document), as: UTF8.self)
        #expect(written.contains("<time>2021-01-07T21:51:59.179+01:15</time>"))
    }
}
