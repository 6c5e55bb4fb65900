import Foundation
import Testing

@testable import RideKit
import TestSupport

/// What the fixtures' upstream projects expect of them (see `../shared/fixtures/SOURCES.md`).
@Suite struct GPXReaderExpectationTests {
    func read(_ path: String, lenient: Bool = false) throws(GPXError) -> GPXDocument {
        try GPXReader.read(contentsOf: Fixtures.url(path), options: GPXReadOptions(lenient: lenient))
    }

    @Test func coreGPXDualLinksKeepsBothLinksOfAPoint() throws {
        let document = try read("gpx/coregpx/GPXTest-DualLinks.gpx")
        let points = document.tracks[0].points
        #expect(points.count == 2)
        #expect(points[0].latitude == 35.675032 && points[0].longitude == 139.722148)
        #expect(points[0].links.count == 2)
        #expect(points[0].links.first?.text == "Vincent Site")
        #expect(points[0].links.last?.href == "https://sunlight.vincent-neo.com")
        #expect(points[0].time?.rfc3339 == "2018-11-29T01:48:58Z")
    }

    @Test func mojstrovkaKeepsSevenAndThreeFractionalDigits() throws {
        let points = try read("gpx/gpxpy/Mojstrovka.gpx").tracks[0].points
        #expect(points.count == 184)
        let nanoseconds = Set(points.compactMap { $0.time?.nanoseconds })
        // gpxpy: microseconds 207343 and 207000.
        #expect(nanoseconds == [207_343_700, 207_000_000])
        // 1901-12-13T20:45:52 is -2^31 seconds since 1970.
        #expect(points.allSatisfy { $0.time?.secondsSince1970 == -2_147_483_648 })
    }

    @Test func gpxWithoutNamespaceHasItsSpeed() throws {
        let points = try read("gpx/gpxpy/track_with_speed.gpx").tracks[0].points
        #expect(points.first?.speedMetersPerSecond == 1.2)
    }

    @Test func byteOrderMarkAndEmptyFix() throws {
        let document = try read("gpx/gpxpy/unicode_with_bom.gpx")
        #expect(document.waypoints.first?.name == "test" || document.metadata.name == "test")
    }

    @Test func cdataAndTrademarkSignInUnicode2() throws {
        let document = try read("gpx/gpxpy/unicode2.gpx")
        #expect(document.creator?.contains("™") == true)
        #expect(document.tracks.first?.name == "test™")
        #expect(document.tracks.first?.segments.count == 1)
        #expect(document.tracks.first?.points.isEmpty == true)
    }

    @Test func emptySegmentsAreKept() throws {
        let ruby = try read("gpx/ruby-gpx/with_empty_tracks.gpx")
        #expect(ruby.tracks.count == 1)
        #expect(ruby.tracks[0].segments.map { $0.points.isEmpty } == [false, true, true])
        let cerknica = try read("gpx/gpxpy/cerknicko-jezero.gpx")
        #expect(cerknica.tracks.count == 8)
        #expect(cerknica.tracks[0].segments.first?.points.isEmpty == true)
        #expect(cerknica.waypoints.count == 7)
    }

    @Test func iso8859EncodedFileReadsItsAccents() throws {
        let document = try read("gpx/gpxgo/iso8859-1encoded.gpx")
        #expect(document.waypoints.count == 8)
        let bytes = try Fixtures.bytes("gpx/gpxgo/iso8859-1encoded.gpx")
        let latin1Text = String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        for name in document.waypoints.compactMap(\.name) {
            #expect(latin1Text.contains(name))
        }
    }

    @Test func commentsHideElementsInISSUE51() throws {
        let document = try read("gpx/jpx/ISSUE-51.gpx")
        #expect(document.metadata.name == nil)
        #expect(document.metadata.links.isEmpty)
        #expect(document.waypoints.count == 3)
    }

    @Test func routeConverterCommentsEverywhere() throws {
        #expect(try read("gpx/jpx/ISSUE-77.gpx").tracks.first?.name == "09-OKT-18 15:12:08")
    }

    @Test func everyPointOfISSUE82HasItsCadence() throws {
        let points = try read("gpx/jpx/ISSUE-82.gpx").tracks[0].points
        #expect(points.count == 479)
        #expect(points.allSatisfy { $0.cadence != nil })
    }

    @Test func garminConnectPrefixNs3IsTrackPointExtension() throws {
        let document = try read("gpx/georust-gpx/garmin-activity.gpx")
        let points = document.tracks[0].points
        #expect(document.tracks[0].name == "casual stroll")
        #expect(points.count == 988)
        #expect(points.allSatisfy { ($0.elevation ?? 0) >= 90 && ($0.elevation ?? 0) <= 220 })
        #expect(points.contains { $0.heartRate != nil })
        // 30-decimal coordinates are read to the nearest double.
        #expect(points.contains { $0.latitude == 37.24173816852271556854248046875 })
    }

    @Test func emptyElevationsAreNoElevation() throws {
        #expect(try read("gpx/georust-gpx/wahoo_example.gpx").tracks[0].points.allSatisfy { $0.elevation == nil })
        let empty = try read("gpx/togeojson/empty_ele.gpx").tracks[0].points
        #expect(empty.count == 2 && empty.allSatisfy { $0.elevation == nil })
    }

    @Test func appleWatchExportHasCadenceHeartRateAndPower() throws {
        let track = try read("gpx/togeojson/Friday-Evening-Run.gpx").tracks[0]
        #expect(track.segments.count == 3)
        let points = track.points
        #expect(points.count == 17)
        #expect(points.prefix(4).allSatisfy { $0.cadence != nil && $0.heartRate == nil })
        #expect(points.dropFirst(4).allSatisfy { $0.cadence != nil && $0.heartRate != nil })
        #expect(points.allSatisfy { $0.powerWatts != nil })
    }

    @Test func stravaTemperatureAndBarePower() throws {
        let point = try read("gpx/togeojson/strava.gpx").tracks[0].points[0]
        #expect(point.heartRate == 117 && point.cadence == 85 && point.temperatureCelsius == 22 && point.powerWatts == 75)
    }

    @Test func appleHealthSpeedAndCourseInExtensions() throws {
        let point = try read("gpx/togeojson/apple_watch_route.gpx").tracks[0].points[0]
        #expect(point.speedMetersPerSecond != nil && point.courseDegrees != nil)
        // hAcc and vAcc are not typed: kept as extension trees.
        #expect(point.extensions.contains { $0.localName == "hAcc" })
    }

    @Test func openTracksMisplacedExtensionsAndOffsets() throws {
        let points = try read("gpx/opentracks/legacy_gpx_trackpointextensions_incorrect.gpx").tracks[0].points
        let second = points[1]
        #expect(second.heartRate == 69 && second.cadence == 3 && second.powerWatts == 50)
        // 03:02:03+01:00 is 02:02:03Z, and the offset is kept for writing.
        let first = try #require(points.first?.time)
        #expect(first.offsetMinutes == 60)
        #expect(first.inUTC.rfc3339.hasSuffix("02:02:03Z") || points.contains { $0.time?.inUTC.rfc3339.contains("02:02:03Z") == true })
    }

    @Test(arguments: ["100", "+100", "1e2", " 100", "0100", "100.000", "200", "2.0E2"])
    func aPauseMarkerIsOneHowEverItsLatitudeIsWritten(_ latitude: String) throws {
        let text = """
            <gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
            <trkpt lat="46.5" lon="7"/><trkpt lat="46.6" lon="7"/><trkpt lat="\(latitude)" lon="0"/><trkpt lat="36.7" lon="7"/>
            </trkseg></trk></gpx>
            """
        let track = try GPXReader.read(bytes: Array(text.utf8)).tracks[0]
        #expect(track.segments.map(\.points.count) == [2, 1])
    }

    @Test func openTracksPauseMarkersSplitSegments() throws {
        let track = try read("gpx/opentracks/legacy_gpx_pause_resume.gpx").tracks[0]
        // Upstream keeps 6 points, 2 of them the markers; bikeride keeps the 4 real ones in 2 segments.
        #expect(track.points.count == 4)
        #expect(track.segments.map(\.points.count) == [3, 1])
        #expect(track.points.allSatisfy { $0.latitude <= 90 })
    }

    @Test func nonHourTimeZoneOffset() throws {
        let time = try #require(read("gpx/opentracks/gpx_timezone.gpx").tracks[0].points.first?.time)
        #expect(time.rfc3339 == "2021-01-07T21:51:59.179+01:15")
        #expect(time.offsetMinutes == 75)
    }

    @Test func redeclaredDefaultNamespaceIsNotAGPXTime() throws {
        let document = try read("gpx/togeojson/style.gpx")
        #expect(document.tracks.count == 21)
        // `<time xmlns="…gpx_modified…">` in metadata extensions is an extension, not the metadata time.
        #expect(document.metadata.time == nil)
        #expect(document.metadata.extensions.contains { $0.localName == "time" })
    }

    @Test func gzipFixtureReadsAfterGunzip() throws {
        let process = TestProcess()
        process.executableURL = URL(filePath: "/bin/gzip")
        process.arguments = ["-dc", Fixtures.url("gpx/gpxgo/graphhopper.gpx.gz").path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let document = try GPXReader.read(data: data)
        #expect(document.tracks.count == 1)
        #expect(document.tracks[0].points.count == 171)
        #expect(document.routes.first?.points.count == 22)
        // Read compressed as it is, it is the same document.
        #expect(try GPXReader.read(contentsOf: Fixtures.url("gpx/gpxgo/graphhopper.gpx.gz")) == document)
    }

    @Test func gpx10AllFields() throws {
        let document = try read("gpx/gpxpy/gpx1.0_with_all_fields.gpx")
        let waypoint = try #require(document.waypoints.first)
        #expect(waypoint.magneticVariation == 1.1)
        #expect(waypoint.geoidHeight == 2.0)
        #expect(waypoint.fix == "2d")
        #expect(waypoint.satellites == 5)
        #expect(waypoint.ageOfDGPSDataSeconds == 9)
        #expect(waypoint.dgpsStationID == 45)
    }

    // MARK: The malformed folder

    @Test func mismatchedTagNamesLineAndColumn() throws {
        do {
            _ = try read("gpx/malformed/jpx__GPX_invalid_extensions.gpx")
            Issue.record("expected an error")
        } catch {
            guard case .notWellFormed(let message) = error.reason else { Issue.record("\(error)"); return }
            #expect(message.contains("mismatched"))
            #expect(error.line == 39 || error.line == 40)
        }
    }

    @Test(arguments: [
        "gpx/malformed/georust-gpx__badcharacter.xml", "gpx/malformed/jpx__empty-waypoint.xml",
        "gpx/malformed/jpx__invalid-latlon.xml", "gpx/malformed/jpx__ISSUE-49.gpx", "gpx/malformed/jpx__ISSUE-170.gpx",
        "gpx/malformed/coregpx__wptError.gpx", "gpx/malformed/togeojson__bad.gpx", "gpx/malformed/gpxstudio__with_power_2.gpx",
        "gpx/malformed/jpx__GPX_invalid_extensions.gpx",
    ])
    func strictReadingRefusesMalformedFixtures(_ path: String) throws {
        #expect(throws: GPXError.self) { try read(path) }
    }

    @Test func lenientReadingOfInvalidLatLonKeepsFourPoints() throws {
        let (document, report) = try GPXReader.readWithReport(
            contentsOf: Fixtures.url("gpx/malformed/jpx__invalid-latlon.xml"), options: GPXReadOptions(lenient: true))
        #expect(document.tracks[0].points.count == 4)
        #expect(document.metadata.bounds == nil)
        #expect(report.droppedPoints == 4)
    }

    @Test func lenientReadingSkipsUnknownRootElement() throws {
        let document = try read("gpx/malformed/jpx__ISSUE-49.gpx", lenient: true)
        #expect(document.waypoints.count == 1)
        #expect(document.tracks.flatMap(\.points).count == 26)
    }

    @Test func lenientReadingOfZeppVersion() throws {
        let document = try read("gpx/malformed/jpx__ISSUE-170.gpx", lenient: true)
        #expect(document.version == "1.1")
        #expect(document.creator == "Zepp App")
        #expect(document.tracks.count == 1 && document.tracks[0].segments.count == 1)
        #expect(document.tracks[0].points.count == 2)
    }

    @Test func lenientReadingDropsEveryBadPointOfTogeojsonBad() throws {
        let (document, report) = try GPXReader.readWithReport(
            contentsOf: Fixtures.url("gpx/malformed/togeojson__bad.gpx"), options: GPXReadOptions(lenient: true))
        let bytes = try Fixtures.bytes("gpx/malformed/togeojson__bad.gpx")
        let pointElements = String(decoding: bytes, as: UTF8.self).components(separatedBy: "lat=").count - 1
        #expect(document.tracks.flatMap(\.points).isEmpty && document.waypoints.isEmpty && document.routes.flatMap(\.points).isEmpty)
        #expect(report.droppedPoints == pointElements)
    }

    @Test func lenientReadingOfUndeclaredPowerPrefix() throws {
        let points = try read("gpx/malformed/gpxstudio__with_power_2.gpx", lenient: true).tracks.flatMap(\.points)
        #expect(points.count == 80)
        #expect(points.contains { $0.powerWatts != nil })
    }

    @Test func outOfRangeCoordinatesNameTheValue() throws {
        do {
            _ = try read("gpx/malformed/coregpx__wptError.gpx")
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("91.38389") || error.description.contains("180.87702"))
            #expect(error.line > 0 && error.column > 0)
        }
    }
}
