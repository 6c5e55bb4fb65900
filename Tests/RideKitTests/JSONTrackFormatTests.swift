import Foundation
import TestSupport
import Testing

@testable import RideKit

/// DESIGN 2.3's structs, verbatim: what the brief's own app reads and writes.
private enum Brief {
    struct GPXPoint: Codable {
        var latitude: Double
        var longitude: Double
        var altitude: Double
        var time: Date
    }
    struct GPXSegment: Codable { var coords: [GPXPoint] }
    struct GPXTrack: Codable {
        var name: String
        var link: String
        var time: String
        var segments: [GPXSegment] = []
        var distance = "-"
        var feetClimbed = "-"
    }
}

@Suite struct JSONTrackFormatTests {
    static let format = ".gpx436"

    private static let briefTrack = Brief.GPXTrack(
        name: "Cupertino loop", link: "https://example.com/ride/1", time: "2019-06-01T08:00:00Z",
        segments: [
            Brief.GPXSegment(coords: [
                Brief.GPXPoint(latitude: 37.33182, longitude: -122.03118, altitude: 71.5, time: Date(timeIntervalSinceReferenceDate: 581_155_200)),
                Brief.GPXPoint(latitude: 37.33190, longitude: -122.03100, altitude: 72, time: Date(timeIntervalSinceReferenceDate: 581_155_201.25)),
                Brief.GPXPoint(latitude: 0.000091697, longitude: 179.9, altitude: -3, time: Date(timeIntervalSinceReferenceDate: 581_155_202.123)),
            ]),
            Brief.GPXSegment(coords: []),
            Brief.GPXSegment(coords: [
                Brief.GPXPoint(
                    latitude: -33.5, longitude: 151.25, altitude: 12.345678, time: Date(timeIntervalSinceReferenceDate: 700_000_000.987654321))
            ]),
        ],
        distance: "1.23 mi", feetClimbed: "45 ft")

    @Test func readsAFileThatSwiftsDefaultEncoderWrote() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bikeride-\(UUID().uuidString).gpx436")
        defer { try? FileManager.default.removeItem(at: url) }
        try JSONEncoder().encode(Self.briefTrack).write(to: url)

        let document = try JSONTrackFormat.decode(try Data(contentsOf: url))
        #expect(document.tracks.count == 1)
        let track = try #require(document.tracks.first)
        #expect(track.name == "Cupertino loop")
        #expect(track.links == [GPXLink(href: "https://example.com/ride/1")])
        #expect(document.metadata.time?.rfc3339 == "2019-06-01T08:00:00Z")
        #expect(track.segments.map(\.points.count) == [3, 0, 1])
        for (segment, briefSegment) in zip(track.segments, Self.briefTrack.segments) {
            for (point, briefPoint) in zip(segment.points, briefSegment.coords) {
                #expect(point.latitude == briefPoint.latitude)
                #expect(point.longitude == briefPoint.longitude)
                #expect(point.elevation == briefPoint.altitude)
                let time = try #require(point.time)
                #expect(JSONTrackFormat.date(time) == briefPoint.time)
            }
        }
        // Times come back with the digits a person would write.
        #expect(
            track.segments[0].points.map { $0.time?.rfc3339 } == [
                "2019-06-02T08:00:00Z", "2019-06-02T08:00:01.25Z", "2019-06-02T08:00:02.123Z",
            ])
    }

    @Test func writesWhatTheBriefsStructsRead() throws {
        let document = try JSONTrackFormat.decode(try JSONEncoder().encode(Self.briefTrack))
        let data = try JSONTrackFormat.encode(document, distanceMeters: 1979.5, ascentMeters: 13.7)
        let decoded = try JSONDecoder().decode(Brief.GPXTrack.self, from: data)
        #expect(decoded.name == Self.briefTrack.name)
        #expect(decoded.link == Self.briefTrack.link)
        #expect(decoded.time == Self.briefTrack.time)
        #expect(decoded.distance == "1.23 mi")
        #expect(decoded.feetClimbed == "45 ft")
        #expect(decoded.segments.count == Self.briefTrack.segments.count)
        for (segment, original) in zip(decoded.segments, Self.briefTrack.segments) {
            #expect(segment.coords.count == original.coords.count)
            for (point, originalPoint) in zip(segment.coords, original.coords) {
                #expect(point.latitude == originalPoint.latitude)
                #expect(point.longitude == originalPoint.longitude)
                #expect(point.altitude == originalPoint.altitude)
                #expect(point.time == originalPoint.time)  // bit for bit
            }
        }
    }

    @Test func encodingIsDeterministicAndUsesTheBriefsKeys() throws {
        let document = try JSONTrackFormat.decode(try JSONEncoder().encode(Self.briefTrack))
        let first = try JSONTrackFormat.encode(document)
        for _ in 0..<3 { #expect(try JSONTrackFormat.encode(document) == first) }
        let object = try #require(try JSONSerialization.jsonObject(with: first) as? [String: Any])
        #expect(Set(object.keys) == ["name", "link", "time", "segments", "distance", "feetClimbed"])
        #expect(object["distance"] as? String == "-" && object["feetClimbed"] as? String == "-")
        let point = try #require(((object["segments"] as? [[String: Any]])?.first?["coords"] as? [[String: Any]])?.first)
        #expect(Set(point.keys) == ["latitude", "longitude", "altitude", "time"])
        #expect((point["time"] as? NSNumber)?.doubleValue == 581_155_200)
    }

    @Test func pointsWithoutTimeAreWrittenAsTheEpochAndReadBackWithoutTime() throws {
        let document = GPXDocument(tracks: [
            Track(segments: [
                TrackSegment(points: [
                    TrackPoint(latitude: 1, longitude: 2, elevation: 10, time: nil),
                    TrackPoint(latitude: 1.1, longitude: 2.1, elevation: 11, time: GPXTime(secondsSince1970: 1_600_000_000, offset: .minutes(120))),
                ])
            ])
        ])
        let data = try JSONTrackFormat.encode(document)
        let brief = try JSONDecoder().decode(Brief.GPXTrack.self, from: data)
        #expect(brief.segments[0].coords[0].time == Date(timeIntervalSinceReferenceDate: 0))
        let back = try JSONTrackFormat.decode(data)
        #expect(back.tracks[0].segments[0].points[0].time == nil)
        // The instant survives; the offset is not in the format.
        #expect(back.tracks[0].segments[0].points[1].time == GPXTime(secondsSince1970: 1_600_000_000))
        #expect(brief.time == "2020-09-13T14:26:40+02:00")  // no metadata time: the first point's
    }

    @Test func missingElevationsAreFilledFromNeighboursAndAllZeroMeansNone() throws {
        let points = [nil, 100, nil, 120, nil].enumerated().map { index, elevation in
            TrackPoint(latitude: Double(index), longitude: 0, elevation: elevation)
        }
        let data = try JSONTrackFormat.encode(GPXDocument(tracks: [Track(segments: [TrackSegment(points: points)])]))
        let brief = try JSONDecoder().decode(Brief.GPXTrack.self, from: data)
        #expect(brief.segments[0].coords.map(\.altitude) == [100, 100, 100, 120, 120])

        let flat = (0..<3).map { TrackPoint(latitude: Double($0), longitude: 0) }
        let flatData = try JSONTrackFormat.encode(GPXDocument(tracks: [Track(segments: [TrackSegment(points: flat)])]))
        #expect(try JSONDecoder().decode(Brief.GPXTrack.self, from: flatData).segments[0].coords.map(\.altitude) == [0, 0, 0])
        #expect(try JSONTrackFormat.decode(flatData).tracks[0].segments[0].points.allSatisfy { $0.elevation == nil })
    }

    @Test func allTracksGoIntoTheOneTrackAndRoutesStandInWhenThereAreNone() throws {
        let a = Track(name: "A", segments: [TrackSegment(points: [TrackPoint(latitude: 1, longitude: 1)]), TrackSegment()])
        let b = Track(name: "B", segments: [TrackSegment(points: [TrackPoint(latitude: 2, longitude: 2), TrackPoint(latitude: 91, longitude: 2)])])
        let file = JSONTrackFormat.file(from: GPXDocument(tracks: [a, b]))
        #expect(file.name == "A")
        #expect(file.segments.map(\.coords.count) == [1, 0, 1])
        let routes = JSONTrackFormat.file(
            from: GPXDocument(
                metadata: GPXMetadata(name: "Plan"),
                routes: [Route(name: "R", points: [TrackPoint(latitude: 3, longitude: 3)])]))
        #expect(routes.name == "Plan" && routes.segments.map(\.coords.count) == [1])
    }

    @Test func aTimeThatIsNotRFC3339IsKeptAsText() throws {
        var track = Self.briefTrack
        track.time = "June 1, 2019 at 8:00 AM"
        let document = try JSONTrackFormat.decode(try JSONEncoder().encode(track))
        #expect(document.metadata.time == nil)
        #expect(JSONTrackFormat.file(from: document).time == "June 1, 2019 at 8:00 AM")
        // …also through GPX: the writer keeps it as a bikeride extension.
        #expect(GPXWriter.string(document).contains("<bikeride:time>June 1, 2019 at 8:00 AM</bikeride:time>"))
    }

    @Test func randomTimesSurviveAReadAndAWriteBitForBit() throws {
        var generator = SeededGenerator(seed: 2001)
        let coords = (0..<2_000).map { index in
            // 1990–2040 with sub-microsecond noise, as CoreLocation timestamps have. Within 2^23 s (97 days)
            // of 2001-01-01 a Double is finer than a nanosecond and cannot survive; no recording is there.
            var interval = Double.random(in: -350_000_000...1_250_000_000, using: &generator)
            if abs(interval) < 8_388_608 { interval += 2 * 8_388_608 }
            return Brief.GPXPoint(
                latitude: 1, longitude: 2, altitude: Double(index), time: Date(timeIntervalSinceReferenceDate: interval))
        }
        let brief = Brief.GPXTrack(name: "t", link: "", time: "", segments: [Brief.GPXSegment(coords: coords)])
        let document = try JSONTrackFormat.decode(try JSONEncoder().encode(brief))
        let back = try JSONDecoder().decode(Brief.GPXTrack.self, from: try JSONTrackFormat.encode(document))
        let mismatches = zip(back.segments[0].coords, coords).filter { $0.time != $1.time }
            .map { "\($1.time.timeIntervalSinceReferenceDate) → \($0.time.timeIntervalSinceReferenceDate)" }
        #expect(mismatches.isEmpty, "\(mismatches.count) differ, e.g. \(mismatches.prefix(5))")
    }

    @Test func displayStrings() {
        #expect(JSONTrackFormat.distanceText(meters: 20_000) == "12.43 mi")
        #expect(JSONTrackFormat.distanceText(meters: 0) == "0.00 mi")
        #expect(JSONTrackFormat.distanceText(meters: 1609.344 * 1.05) == "1.05 mi")
        #expect(JSONTrackFormat.distanceText(meters: .nan) == nil)
        #expect(JSONTrackFormat.climbText(meters: 376) == "1234 ft")
        #expect(JSONTrackFormat.climbText(meters: -1) == nil)
    }

    @Test(arguments: [
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[],\"distance\":\"-\"}",
            TrackFormatError.missingKey(format: format, path: "feetClimbed")
        ),
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":1,\"longitude\":2,\"altitude\":3}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.missingKey(format: format, path: "segments[0].coords[0].time")
        ),
        (
            "{\"name\":5,\"link\":\"\",\"time\":\"\",\"segments\":[],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.wrongType(format: format, path: "name", expected: "a string")
        ),
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":\"1\",\"longitude\":2,\"altitude\":3,\"time\":0}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.wrongType(format: format, path: "segments[0].coords[0].latitude", expected: "a number")
        ),
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":1,\"longitude\":2,\"altitude\":3,\"time\":\"2020-01-01T00:00:00Z\"}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.wrongType(format: format, path: "segments[0].coords[0].time", expected: "a number")
        ),
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":{},\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.wrongType(format: format, path: "segments", expected: "an array")
        ),
        (
            "{\"name\":null,\"link\":\"\",\"time\":\"\",\"segments\":[],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.wrongType(format: format, path: "name", expected: "a string, not null")
        ),
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":91,\"longitude\":2,\"altitude\":3,\"time\":1}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.invalidCoordinate(format: format, path: "segments[0].coords[0]", latitude: 91, longitude: 2)
        ),
        (
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":1,\"longitude\":-180.5,\"altitude\":3,\"time\":1}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
            TrackFormatError.invalidCoordinate(format: format, path: "segments[0].coords[0]", latitude: 1, longitude: -180.5)
        ),
    ])
    func refusesBadFilesWithTheKeyPath(json: String, expected: TrackFormatError) {
        #expect(throws: expected) { try JSONTrackFormat.decode(Data(json.utf8)) }
    }

    @Test(arguments: [
        "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":1e400,\"longitude\":2,\"altitude\":3,\"time\":1}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}",
        "", "[]", "{\"name\":", "\u{FEFF}nonsense",
    ])
    func refusesInvalidJSONAndOverflowingNumbers(json: String) {
        #expect {
            try JSONTrackFormat.decode(Data(json.utf8))
        } throws: { error in
            guard let error = error as? TrackFormatError else { return false }
            switch error {
            case .invalidJSON, .wrongType: return true
            default: return false
            }
        }
    }

    @Test func refusesTimesOutsideTheYearsRFC3339CanWrite() {
        let json =
            "{\"name\":\"x\",\"link\":\"\",\"time\":\"\",\"segments\":[{\"coords\":[{\"latitude\":1,\"longitude\":2,\"altitude\":3,\"time\":1e300}]}],\"distance\":\"-\",\"feetClimbed\":\"-\"}"
        #expect {
            try JSONTrackFormat.decode(Data(json.utf8))
        } throws: { error in
            guard case .invalidValue(_, let path, _) = error as? TrackFormatError else { return false }
            return path == "segments[0].coords[0].time"
        }
    }

    @Test func errorMessagesNameTheFormatAndThePlace() {
        let error = TrackFormatError.invalidCoordinate(format: Self.format, path: "segments[0].coords[4]", latitude: 91, longitude: 2)
        #expect(error.description.hasPrefix(".gpx436: 'segments[0].coords[4]' has latitude 91.0"))
        #expect(TrackFormatError.missingKey(format: Self.format, path: "name").description == ".gpx436: missing required key 'name'")
    }
}
