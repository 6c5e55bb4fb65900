import Foundation
import Testing
@testable import RideKit
import TestSupport

/// The phone apps' payloads (OwnTracks, Overland, OsmAnd / Traccar Client, GPSLogger), parsed from the real
/// fixtures under `../shared/fixtures/clients`, with what upstream expects of each (SOURCES.md).
@Suite struct TrackerPayloadTests {
    /// A fixed "now" after every fixture's time, so that the future-time check is deterministic.
    static let now = Date(timeIntervalSince1970: 1_795_000_000)  // 2026-11-18

    static func data(_ path: String) throws -> Data { Data(try Fixtures.bytes("clients/" + path)) }

    // MARK: OwnTracks

    /// The fixtures upstream calls valid locations: one fix each.
    @Test(arguments: [
        "owntracks/json-schema__l.json", "owntracks/json-schema__l2.json", "owntracks/json-schema__location-5s.json",
        "owntracks/json-schema__location-short.json", "owntracks/json-schema__location-sk.json",
        "owntracks/traccar__owntracks_http_body_1.json", "owntracks/traccar__owntracks_http_body_2.json",
        "owntracks/traccar__owntracks_http_body_3.json", "owntracks/traccar__owntracks_http_body_4.json",
        "owntracks/traccar__owntracks_http_body_5.json", "owntracks/traccar__owntracks_http_body_6.json",
    ])
    func ownTracksLocationGivesOneFix(_ path: String) throws {
        let payload = try OwnTracksPayload.parse(try Self.data(path), now: Self.now)
        #expect(payload.fixes.count == 1, "\(payload.rejected)")
        #expect(payload.rejected.isEmpty)
        let fix = try #require(payload.fixes.first)
        #expect((-90...90).contains(fix.latitude) && (-180...180).contains(fix.longitude))
    }

    @Test func ownTracksFieldsAndUnits() throws {
        let fix = try #require(try OwnTracksPayload.parse(try Self.data("owntracks/json-schema__l.json"), now: Self.now).fixes.first)
        #expect(fix.latitude == 52.195913 && fix.longitude == 7.688245)
        #expect(fix.time == Date(timeIntervalSince1970: 1_699_882_482))
        #expect(fix.accuracyMeters == 35 && fix.elevationMeters == 0 && fix.batteryPercent == 75)
        // vel is km/h in OwnTracks: 36 km/h is 10 m/s.
        let moving = try OwnTracksPayload.parse(Data(#"{"_type":"location","lat":1,"lon":2,"tst":1700000000,"vel":36}"#.utf8), now: Self.now)
        #expect(moving.fixes.first?.speedMetersPerSecond == 10)
        // Traccar's #5: integer coordinates and a topic naming the device.
        let five = try OwnTracksPayload.parse(try Self.data("owntracks/traccar__owntracks_http_body_5.json"), now: Self.now)
        #expect(five.fixes.first?.latitude == 37 && five.fixes.first?.longitude == -122)
        #expect(five.deviceHint == "owntracks/ckrey/22A67880-15C3-41A6-9157-25545C7993AC")
    }

    /// Upstream's `.mfail` cases are refused with a reason, never a fix and never a thrown error (the server
    /// answers 2xx to them so the app's queue moves on).
    @Test(arguments: [
        ("owntracks/json-schema__location-lat-missing.json", "missing"),
        ("owntracks/json-schema__transition-illegal-lat.json", "none"),
        ("owntracks/json-schema__lwt-notst.json", "none"),
    ])
    func ownTracksInvalidMessagesAreRefusedNotStored(_ path: String, _ code: String) throws {
        let payload = try OwnTracksPayload.parse(try Self.data(path), now: Self.now)
        #expect(payload.fixes.isEmpty)
        if code == "none" {
            // A transition or an lwt is not a position whatever its fields: understood and not stored.
            #expect(payload.ignoredTypes.count == 1)
        } else {
            #expect(payload.rejected.map(\.reason.code) == [code])
        }
    }

    @Test func ownTracksOtherTypesAreIgnoredAndEncryptedRefused() throws {
        let transition = try OwnTracksPayload.parse(try Self.data("owntracks/json-schema__transition.json"), now: Self.now)
        #expect(transition.fixes.isEmpty && transition.ignoredTypes == ["transition"])
        let lwt = try OwnTracksPayload.parse(try Self.data("owntracks/json-schema__lwt.json"), now: Self.now)
        #expect(lwt.fixes.isEmpty && lwt.ignoredTypes == ["lwt"])
        let encrypted = try OwnTracksPayload.parse(try Self.data("owntracks/json-schema__e.json"), now: Self.now)
        #expect(encrypted.fixes.isEmpty && encrypted.rejected.map(\.reason) == [.encrypted])
        // An array: a location with tst 1000 (1970: a clock never set) is refused; the lwt is ignored.
        let array = try OwnTracksPayload.parse(try Self.data("owntracks/json-schema__array.json"), now: Self.now)
        #expect(array.fixes.isEmpty && array.rejected.map(\.reason.code) == ["out_of_range"] && array.ignoredTypes == ["lwt"])
    }

    @Test func ownTracksEmptyBodyIsNothing() throws {
        #expect(try OwnTracksPayload.parse(Data(), now: Self.now) == TrackerPayload())
        #expect(try OwnTracksPayload.parse(Data(" \n".utf8), now: Self.now) == TrackerPayload())
    }

    /// Overland in OwnTracks mode counts tst from 2001: read as such when that lands within a day of now.
    @Test func ownTracksTimeCountedFrom2001IsCorrected() throws {
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        let tst = 1_795_000_000 - 978_307_200 - 60
        let payload = try OwnTracksPayload.parse(Data(#"{"_type":"location","lat":1,"lon":2,"tst":\#(tst)}"#.utf8), now: now)
        #expect(payload.fixes.first?.time == now.addingTimeInterval(-60))
    }

    // MARK: Overland

    @Test func overlandReadmeBatch() throws {
        let payload = try OverlandPayload.parse(try Self.data("overland/readme_request_body.derived.json"), now: Self.now)
        let fix = try #require(payload.fixes.first)
        #expect(payload.fixes.count == 1 && payload.rejected.isEmpty)
        // [lon, lat], and the offset without a colon (-0700).
        #expect(fix.latitude == 37.3318 && fix.longitude == -122.030581)
        #expect(fix.time == Date(timeIntervalSince1970: 1_443_711_600))
        #expect(fix.speedMetersPerSecond == 4 && fix.accuracyMeters == 30 && fix.batteryPercent == 80)
    }

    @Test func overlandVisitsAndTripsAreNotPositions() throws {
        let body = #"""
            {"locations":[
              {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"action":"visit","arrival_date":null}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"type":"trip","mode":"bicycle"}},
              {"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"timestamp":"2024-05-01T10:00:00Z","speed":-1}}
            ]}
            """#
        let payload = try OverlandPayload.parse(Data(body.utf8), now: Self.now)
        #expect(payload.fixes.count == 1 && payload.ignoredTypes == ["visit", "trip"])
        #expect(payload.fixes.first?.speedMetersPerSecond == nil)  // -1: unknown
    }

    /// The README's example as shown (with its "{ ... }" placeholders) is not JSON: refused whole.
    @Test func overlandReadmeExampleAsShownIsNotJSON() throws {
        let text = String(decoding: try Self.data("overland/readme_request_example.http.txt"), as: UTF8.self)
        let body = try #require(text.range(of: "{").map { String(text[$0.lowerBound...]) })
        #expect(throws: TrackerPayloadError.self) { try OverlandPayload.parse(Data(body.utf8), now: Self.now) }
    }

    @Test func overlandThousandPointBatch() throws {
        let feature = #"{"type":"Feature","geometry":{"type":"Point","coordinates":[-122.03,37.33]},"properties":{"timestamp":"2024-05-01T10:%02d:%02dZ","altitude":12,"speed":4,"horizontal_accuracy":5,"battery_level":0.5}}"#
        let features = (0..<1000).map { String(format: feature, $0 / 60 % 60, $0 % 60) }
        let payload = try OverlandPayload.parse(Data((#"{"locations":["# + features.joined(separator: ",") + "]}").utf8), now: Self.now)
        #expect(payload.fixes.count == 1000)
    }

    // MARK: OsmAnd / Traccar Client

    @Test func osmandQueryStringsAsTraccarExpects() throws {
        let lines = String(decoding: try Self.data("traccar-osmand/osmand_query_strings.txt"), as: UTF8.self)
            .split(whereSeparator: \.isNewline)
        #expect(lines.count == 11)
        let results = try lines.map { line in
            let query = line.split(separator: "?", maxSplits: 1)[1]
            let parameters = try FormParameters(query)
            return (OsmAndPayload.deviceID(parameters), OsmAndPayload.parse(parameters, now: Self.now))
        }
        // 1: no position (cells and wifi only): refused with a reason; 2: no id (the server answers 401).
        #expect(results[0].1.fixes.isEmpty && results[0].1.rejected.count == 1)
        #expect(results[1].0 == nil)
        for (index, result) in results.enumerated() where index >= 2 {
            #expect(result.1.fixes.count == 1, "line \(index + 1): \(result.1.rejected)")
            #expect(result.0 != nil)
        }
        #expect(results[2].1.fixes.first?.time == Date(timeIntervalSince1970: 1_453_920_947))  // ISO, percent-encoded
        #expect(results[3].1.fixes.first?.time == Date(timeIntervalSince1970: 1_442_068_686.579))  // milliseconds
        #expect(results[4].1.fixes.first?.time == Date(timeIntervalSince1970: 1_401_873_011))  // yyyy-MM-dd HH:mm:ss
        #expect(results[7].0 == "123456")  // deviceid=
        #expect(results[8].1.fixes.first?.batteryPercent == 87)
        #expect(results[9].1.fixes.first?.latitude == 60 && results[9].1.fixes.first?.longitude == 30)  // location=
        // speed=40 knots is 20.58 m/s.
        let speed = try #require(results[10].1.fixes.first?.speedMetersPerSecond)
        #expect(abs(speed - 40 * 1852 / 3600) < 1e-9)
    }

    @Test(arguments: [
        "traccar-osmand/osmand_json_android_moving.json", "traccar-osmand/osmand_json_ios_mock_no_batt.json",
        "traccar-osmand/osmand_json_traccar_client_basic.json", "traccar-osmand/osmand_json_traccar_client_typed_extras.json",
    ])
    func traccarClientJSONGivesOneFix(_ path: String) throws {
        let payload = try OsmAndPayload.parse(json: try Self.data(path), now: Self.now)
        #expect(payload.fixes.count == 1, "\(payload.rejected)")
        #expect(payload.deviceHint != nil)
    }

    @Test func traccarClientJSONUnits() throws {
        let moving = try #require(try OsmAndPayload.parse(json: try Self.data("traccar-osmand/osmand_json_android_moving.json"), now: Self.now).fixes.first)
        #expect(moving.speedMetersPerSecond == 18.67)  // m/s in the JSON form, not knots
        #expect(moving.latitude < 0)
        let mock = try #require(try OsmAndPayload.parse(json: try Self.data("traccar-osmand/osmand_json_ios_mock_no_batt.json"), now: Self.now).fixes.first)
        #expect(mock.batteryPercent == nil && mock.speedMetersPerSecond == nil)  // -1: unknown
        let basic = try #require(try OsmAndPayload.parse(json: try Self.data("traccar-osmand/osmand_json_traccar_client_basic.json"), now: Self.now).fixes.first)
        #expect(basic.batteryPercent == 100 && basic.courseDegrees == nil)  // heading -1: unknown
    }

    // MARK: GPSLogger

    @Test func gpsLoggerCustomURL() throws {
        let parameters = try FormParameters("token=x&lat=51.5&lon=-0.12&time=2024-05-01T10:00:00.000Z&alt=%ALT&spd=5.5&dir=90&acc=4&batt=55")
        let fix = try #require(GPSLoggerPayload.parse(parameters, now: Self.now).fixes.first)
        #expect(fix.latitude == 51.5 && fix.speedMetersPerSecond == 5.5 && fix.batteryPercent == 55 && fix.elevationMeters == nil)
        let epoch = try FormParameters("lat=1&lon=2&timestamp=1714557600")
        #expect(GPSLoggerPayload.parse(epoch, now: Self.now).fixes.first?.time == Date(timeIntervalSince1970: 1_714_557_600))
    }

    // MARK: Hostile input

    @Test(arguments: [
        #"{"_type":"location","lat":"nan","lon":2,"tst":1700000000}"#,
        #"{"_type":"location","lat":91,"lon":2,"tst":1700000000}"#,
        #"{"_type":"location","lat":1,"lon":181,"tst":1700000000}"#,
        #"{"_type":"location","lat":1,"lon":2,"tst":0}"#,
        #"{"_type":"location","lat":1,"lon":2,"tst":4102444800}"#,
        #"{"_type":"location","lat":1,"lon":2,"tst":1e300}"#,
        #"{"_type":"location","lat":1,"lon":2,"tst":"1700000000"}"#,
        #"{"_type":"location","lat":[1],"lon":2,"tst":1700000000}"#,
        #"{"_type":"location","lat":true,"lon":2,"tst":1700000000}"#,
        #"{"_type":"location","lon":2,"tst":1700000000}"#,
        #"[1, "two", null]"#,
    ])
    func badValuesAreRefusedWithAReason(_ body: String) throws {
        let payload = try OwnTracksPayload.parse(Data(body.utf8), now: Self.now)
        #expect(payload.fixes.isEmpty)
        #expect(!payload.rejected.isEmpty)
    }

    @Test func malformedBodiesThrowNotCrash() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let nested = String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40)
        for body in ["{", "not json", deep, nested, "\u{FEFF}{]", #"{"locations":{}}"#] {
            #expect(throws: TrackerPayloadError.self) { try OverlandPayload.parse(Data(body.utf8), now: Self.now) }
        }
        #expect(throws: TrackerPayloadError.self) { try OwnTracksPayload.parse(Data([0xFF, 0xFE, 0x00]), now: Self.now) }
        // A huge string is cut, not kept whole.
        let long = String(repeating: "x", count: 1 << 20)
        let payload = try OwnTracksPayload.parse(Data(#"{"_type":"location","lat":1,"lon":2,"tst":1700000000,"tid":"\#(long)"}"#.utf8), now: Self.now)
        #expect(payload.fixes.count == 1 && (payload.deviceHint?.count ?? 0) <= 256)
    }

    @Test func formParametersAreBoundedAndDecoded() throws {
        #expect(try FormParameters("a=1+2&b=%2B&a=3&c=%FF")["a"] == "1 2")
        #expect(try FormParameters("b=%2B")["b"] == "+")
        #expect(try FormParameters("c=%FF")["c"] == nil)  // not UTF-8: dropped
        #expect(throws: TrackerPayloadError.self) { try FormParameters(Array(repeating: "a=1", count: 300).joined(separator: "&")) }
        let nan = OsmAndPayload.parse(try FormParameters("id=x&lat=nan&lon=1"), now: Self.now)
        #expect(nan.fixes.isEmpty && nan.rejected.map(\.reason.code) == ["wrong_type"])
        let hex = OsmAndPayload.parse(try FormParameters("id=x&lat=0x1p3&lon=1"), now: Self.now)
        #expect(hex.fixes.isEmpty)
    }
}
