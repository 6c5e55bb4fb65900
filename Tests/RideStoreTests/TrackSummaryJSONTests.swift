import Foundation
import Testing

import RideKit
@testable import RideStore

/// `TrackSummary`'s one JSON form: the keys the web app reads, times as written, and a round trip.
@Suite struct TrackSummaryJSONTests {
    /// A summary with every field set, times on whole milliseconds (what the JSON keeps of a save time).
    static func summary(startTime: GPXTime?) throws -> TrackSummary {
        TrackSummary(
            id: try #require(TrackID("AB3DEF7H")), name: "Zürich \"loop\"", kind: .ride, source: .file, state: .complete,
            createdAt: Date(timeIntervalSince1970: 1_714_550_400.125), updatedAt: Date(timeIntervalSince1970: 1_714_550_500),
            startTime: startTime, endTime: try GPXTime(parsing: "2024-05-01T11:30:00+02:00"),
            distanceMeters: 12_345.5, ascentMeters: 120, descentMeters: 119.5, movingSeconds: 3000, elapsedSeconds: 5400,
            maxSpeedMetersPerSecond: 11.5, pointCount: 5401, segmentCount: 2,
            waypointCount: 3, routeCount: 1,
            bounds: GPXBounds(minLatitude: 47.3, minLongitude: 8.5, maxLatitude: 47.4, maxLongitude: 8.6),
            preview: [Coordinate(latitude: 47.3, longitude: 8.5), Coordinate(latitude: 47.4, longitude: 8.6)],
            importID: ImportID("ZZ9YXX8W"), documentName: "Zurich loop.gpx", deletedAt: nil)
    }

    static func object(_ summary: TrackSummary) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: try JSONEncoder().encode(summary)) as? [String: Any])
    }

    @Test func theKeysAreThoseTheWebAppReads() throws {
        let object = try Self.object(try Self.summary(startTime: try GPXTime(parsing: "2024-05-01T10:00:00+02:00")))
        // Web/js/tracks.js: the list's row and the track page.
        for key in ["id", "name", "kind", "startedAt", "distanceMeters", "ascentMeters", "elapsedSeconds", "shape"] {
            #expect(object[key] != nil, "missing \(key)")
        }
        #expect(object["id"] as? String == "AB3DEF7H")
        #expect(object["shape"] as? [[Double]] == [[47.3, 8.5], [47.4, 8.6]])
        #expect((object["bounds"] as? [String: Double])?["maxLongitude"] == 8.6)
        #expect(object["deletedAt"] == nil)
    }

    @Test func startedAtIsTheFirstTimeInUTCElseTheSaveTime() throws {
        let timed = try Self.object(try Self.summary(startTime: try GPXTime(parsing: "2024-05-01T10:00:00+02:00")))
        #expect(timed["startedAt"] as? String == "2024-05-01T08:00:00Z")
        #expect(timed["startTime"] as? String == "2024-05-01T10:00:00+02:00")
        let untimed = try Self.object(try Self.summary(startTime: nil))
        // 1_714_550_400.125 s after 1970 is 2024-05-01T08:00:00.125Z.
        #expect(untimed["startedAt"] as? String == "2024-05-01T08:00:00.125Z")
        #expect(untimed["createdAt"] as? String == "2024-05-01T08:00:00.125Z")
        #expect(untimed["startTime"] == nil)
    }

    @Test(arguments: [true, false])
    func aSummaryReadsBackUnchanged(timed: Bool) throws {
        let summary = try Self.summary(startTime: timed ? try GPXTime(parsing: "2024-05-01T10:00:00.5+02:00") : nil)
        let back = try JSONDecoder().decode(TrackSummary.self, from: try JSONEncoder().encode(summary))
        #expect(back == summary)
    }

    @Test func aPageCarriesItsCursorOnlyWhenThereIsMore() throws {
        let summary = try Self.summary(startTime: nil)
        let more = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(TrackPage(tracks: [summary], nextCursor: "c1"))) as? [String: Any]
        #expect(more?["nextCursor"] as? String == "c1" && (more?["tracks"] as? [Any])?.count == 1)
        let last = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(TrackPage(tracks: [], nextCursor: nil))) as? [String: Any]
        #expect(last?["nextCursor"] == nil)
    }

    @Test func aShapeOfBadPositionsIsRefused() throws {
        var object = try Self.object(try Self.summary(startTime: nil))
        object["shape"] = [[47.3]]
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(TrackSummary.self, from: data) }
    }
}
