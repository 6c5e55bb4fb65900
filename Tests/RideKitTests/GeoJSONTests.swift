import Foundation
import Testing

@testable import RideKit

@Suite struct GeoJSONTests {
    static func time(_ text: String) -> GPXTime { try! GPXTime(parsing: text) }

    static let ride = GPXDocument(
        waypoints: [
            TrackPoint(
                latitude: 46.5, longitude: 8.25, elevation: 2000, time: time("2021-01-07T21:51:59.179+01:15"), name: "Pass",
                comment: "c", description: "Top of the \"pass\"\n", links: [GPXLink(href: "https://example.com/p", text: "P")], symbol: "Flag"),
            TrackPoint(latitude: 95, longitude: 0, name: "invalid, left out"),
        ],
        routes: [
            Route(
                name: "Plan", number: 2, points: [TrackPoint(latitude: 1, longitude: 2), TrackPoint(latitude: 1.5, longitude: 2.5, elevation: 10)]),
            Route(name: "Lone", points: [TrackPoint(latitude: 3, longitude: 4)]),
            Route(name: "Empty"),
        ],
        tracks: [
            Track(
                name: "Ride \\ one", description: "d", type: "cycling",
                segments: [
                    TrackSegment(points: [
                        TrackPoint(
                            latitude: 0.000091697, longitude: -122.5, elevation: 0.000005, time: time("2015-12-11T15:43:13.994+01:00"),
                            heartRate: 120, cadence: 80),
                        TrackPoint(
                            latitude: 37.25, longitude: -122.25, elevation: 12.5, time: time("2015-12-11T15:43:14.994+01:00"), heartRate: 121,
                            powerWatts: 250),
                    ]),
                    TrackSegment(),
                    TrackSegment(points: [TrackPoint(latitude: 37.5, longitude: -122, time: nil, temperatureCelsius: -2.5)]),
                ]),
            Track(name: "Nothing", segments: [TrackSegment()]),
        ])

    static let output = GeoJSONWriter.write(ride)
    static var text: String { String(decoding: output, as: UTF8.self) }

    static func features() throws -> [[String: Any]] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any])
        #expect(root["type"] as? String == "FeatureCollection")
        return try #require(root["features"] as? [[String: Any]])
    }

    @Test func writesTracksRoutesAndWaypointsAsFeatures() throws {
        let features = try Self.features()
        let kinds = features.map { ($0["properties"] as? [String: Any])?["_gpxType"] as? String }
        #expect(kinds == ["trk", "trk", "rte", "rte", "rte", "wpt"])
        let geometryTypes = features.map { ($0["geometry"] as? [String: Any])?["type"] as? String }
        #expect(geometryTypes == ["MultiLineString", nil, "LineString", "LineString", nil, "Point"])
        #expect(features[1]["geometry"] is NSNull && features[4]["geometry"] is NSNull)
    }

    @Test func tracksAreMultiLineStringsWithoutEmptySegmentsAndWithLonLatEle() throws {
        #expect(
            Self.text.contains(
                "\"coordinates\":[[[-122.5,0.000091697,0.000005],[-122.25,37.25,12.5]],[[-122,37.5],[-122,37.5]]]"))
        #expect(Self.text.range(of: "[0-9][eE][-+]?[0-9]", options: .regularExpression) == nil)
    }

    @Test func perPointValuesAreParallelArrays() throws {
        let properties = try #require(try Self.features()[0]["properties"] as? [String: Any])
        #expect(properties["name"] as? String == "Ride \\ one")
        let times = try #require(properties["coordTimes"] as? [[Any]])
        #expect(times.map(\.count) == [2, 2])
        #expect(times[0][0] as? String == "2015-12-11T15:43:13.994+01:00")
        #expect(times[1][0] is NSNull)
        #expect(Self.text.contains("\"heartRates\":[[120,121],[null,null]]"))
        #expect(Self.text.contains("\"cadences\":[[80,null],[null,null]]"))
        #expect(Self.text.contains("\"powers\":[[null,250],[null,null]]"))
        #expect(Self.text.contains("\"temperatures\":[[null,null],[-2.5,-2.5]]"))
        // The route has no times: no coordTimes at all.
        let route = try #require(try Self.features()[2]["properties"] as? [String: Any])
        #expect(route["coordTimes"] == nil && route["number"] as? Int == 2)
    }

    @Test func waypointsArePointsWithTheirProperties() throws {
        let waypoint = try Self.features()[5]
        let properties = try #require(waypoint["properties"] as? [String: Any])
        #expect(properties["name"] as? String == "Pass")
        #expect(properties["desc"] as? String == "Top of the \"pass\"\n")
        #expect(properties["sym"] as? String == "Flag")
        #expect(properties["time"] as? String == "2021-01-07T21:51:59.179+01:15")
        #expect(Self.text.contains("\"geometry\":{\"type\":\"Point\",\"coordinates\":[8.25,46.5,2000]}"))
    }

    @Test func sameDocumentGivesSameBytes() {
        #expect(GeoJSONWriter.write(Self.ride) == Self.output)
        #expect(GeoJSONWriter.string(GPXDocument()) == "{\"type\":\"FeatureCollection\",\"features\":[]}\n")
    }

    @Test func controlCharactersAreEscaped() throws {
        let name = "tab\tquote\"back\\slash\u{1}\u{7F}é"
        let output = GeoJSONWriter.write(GPXDocument(waypoints: [TrackPoint(latitude: 1, longitude: 2, name: name)]))
        #expect(String(decoding: output, as: UTF8.self).contains("\\u0001"))
        let root = try #require(try JSONSerialization.jsonObject(with: Data(output)) as? [String: Any])
        let feature = try #require((root["features"] as? [[String: Any]])?.first)
        #expect((feature["properties"] as? [String: Any])?["name"] as? String == name)
    }

    @Test func whatTheWriterWritesTheReaderReadsBack() throws {
        let back = try GeoJSONReader.read(Data(Self.output))
        var expected = Self.ride
        expected.waypoints.removeLast()  // out of range: not written
        expected.routes.removeLast()  // no points: no geometry, skipped
        expected.tracks[0].segments.remove(at: 1)  // empty segment: no line
        expected.tracks.removeLast()  // no points
        #expect(back.waypoints == expected.waypoints)
        #expect(back.routes == expected.routes)
        #expect(back.tracks == expected.tracks)
    }

    @Test func readsTogeojsonStyleLineStrings() throws {
        let json = """
            {"type":"FeatureCollection","features":[
              {"type":"Feature","properties":{"name":"Morning","coordinateProperties":{"times":["2020-01-01T08:00:00Z","2020-01-01T08:00:01.5Z"],"heart":[100,null]}},
               "geometry":{"type":"LineString","coordinates":[[-122.1,37.1,10,999],[-122.2,37.2]]}},
              {"type":"Feature","properties":null,"geometry":{"type":"Polygon","coordinates":[]}},
              {"type":"Feature","properties":{},"geometry":null}
            ]}
            """
        let document = try GeoJSONReader.read(Data(json.utf8))
        #expect(document.tracks.count == 1)
        let points = document.tracks[0].segments[0].points
        #expect(document.tracks[0].name == "Morning")
        #expect(points.map(\.longitude) == [-122.1, -122.2])
        #expect(points.map(\.elevation) == [10, nil])
        #expect(points.map { $0.time?.rfc3339 } == ["2020-01-01T08:00:00Z", "2020-01-01T08:00:01.5Z"])
        #expect(points.map(\.heartRate) == [100, nil])
    }

    @Test func readsABareGeometry() throws {
        let document = try GeoJSONReader.read(Data(#"{"type":"MultiLineString","coordinates":[[[1,2],[3,4]],[[5,6],[7,8]]]}"#.utf8))
        #expect(document.tracks.first?.segments.map(\.points.count) == [2, 2])
    }

    @Test(arguments: [
        ("{\"type\":\"FeatureCollection\"}", TrackFormatError.missingKey(format: "GeoJSON", path: "features")),
        (
            "{\"type\":\"FeatureCollection\",\"features\":{}}",
            TrackFormatError.wrongType(format: "GeoJSON", path: "features", expected: "an array, not an object")
        ),
        (
            "{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,\"4\"]]}",
            TrackFormatError.wrongType(format: "GeoJSON", path: "coordinates[1][1]", expected: "a number, not a string")
        ),
        (
            "{\"type\":\"FeatureCollection\",\"features\":[{\"type\":\"Feature\",\"properties\":{},\"geometry\":{\"type\":\"MultiLineString\",\"coordinates\":[[[1,2],[181,4]]]}}]}",
            TrackFormatError.invalidCoordinate(format: "GeoJSON", path: "features[0].geometry.coordinates[0][1]", latitude: 4, longitude: 181)
        ),
        (
            "{\"type\":\"LineString\",\"coordinates\":[[1]]}",
            TrackFormatError.invalidValue(format: "GeoJSON", path: "coordinates[0]", reason: "needs at least longitude and latitude")
        ),
        (
            "{\"type\":\"Feature\",\"properties\":{\"coordTimes\":[\"2020-01-01T00:00:00Z\"]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,4]]}}",
            TrackFormatError.invalidValue(format: "GeoJSON", path: "properties.coordTimes", reason: "has 1 values for 2 positions")
        ),
        (
            "{\"type\":\"Feature\",\"properties\":{\"coordTimes\":[\"2024-02-30T00:00:00Z\",null]},\"geometry\":{\"type\":\"LineString\",\"coordinates\":[[1,2],[3,4]]}}",
            TrackFormatError.invalidValue(
                format: "GeoJSON", path: "properties.coordTimes[0]",
                reason: "is not a valid time: '2024-02-30T00:00:00Z' is not a real date or time of day")
        ),
        (
            "{\"type\":\"FeatureCollection\",\"features\":[]}",
            TrackFormatError.unsupported(format: "GeoJSON", reason: "no LineString, MultiLineString or Point geometry to import")
        ),
        ("[1,2]", TrackFormatError.wrongType(format: "GeoJSON", path: "", expected: "an object, not an array")),
        ("{\"type\":\"Feature\",\"properties\":{}}", TrackFormatError.missingKey(format: "GeoJSON", path: "geometry")),
    ])
    func refusesBadFilesWithThePlace(json: String, expected: TrackFormatError) {
        #expect(throws: expected) { try GeoJSONReader.read(Data(json.utf8)) }
    }

    @Test func refusesNumbersBeyondADouble() {
        let json = "{\"type\":\"LineString\",\"coordinates\":[[1e400,2],[3,4]]}"
        #expect(throws: TrackFormatError.invalidValue(format: "GeoJSON", path: "coordinates[0][0]", reason: "is a number beyond a Double's range")) {
            try GeoJSONReader.read(Data(json.utf8))
        }
    }

    @Test(arguments: ["", "{", "{\"type\":", String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)])
    func refusesInvalidJSON(json: String) {
        #expect {
            try GeoJSONReader.read(Data(json.utf8))
        } throws: { error in
            if case .invalidJSON? = error as? TrackFormatError { return true }
            return false
        }
    }
}
