import Foundation
@testable import RideKit
import TestSupport
import Testing

/// The TCX reader on Garmin Connect and MapMyRide exports, against the upstream tcxreader suite's expectations
/// and counts taken from the files themselves.
@Suite struct TCXReaderTests {
    static func read(_ name: String) throws -> DeviceActivity {
        try TCXReader.read(bytes: try Fixtures.bytes("tcx/tcxreader/" + name))
    }

    static func points(_ activity: DeviceActivity) -> [TrackPoint] {
        activity.document.tracks.flatMap { $0.segments.flatMap(\.points) }
    }

    /// Upstream: two laps, the first with `ns3:LX` `AvgRunCadence` 38; 486 trackpoints, each with a position.
    @Test func lapsAndTheirExtensions() throws {
        let activity = try Self.read("cross-country-skiing_activity_1.tcx")
        #expect(activity.laps.count == 2)
        #expect(activity.laps[0].averageCadence == 38)
        #expect(activity.laps[0].timerSeconds == 2160.432)
        #expect(activity.laps[0].distanceMeters == 5000)
        #expect(activity.laps[0].averageHeartRate == 144 && activity.laps[0].maxHeartRate == 172)
        #expect(activity.laps[0].startTime?.rfc3339 == "2020-12-26T15:14:21.000Z")
        #expect(Self.points(activity).count == 486)
        // Sport "Other": no kind; the TPX speed and run cadence are on the points.
        #expect(activity.kind == nil)
        let first = try #require(Self.points(activity).first)
        #expect(first.speedMetersPerSecond != nil && first.cadence != nil)
        let totals = try #require(activity.totals)
        #expect(totals.timerSeconds == activity.laps.compactMap(\.timerSeconds).reduce(0, +))
    }

    /// Upstream: the first trackpoint with a position is at 15:58:31.4735 UTC (written `+00:00`); the calories
    /// add up to 458. Six trackpoints before it carry only a time: they add no point.
    @Test func mapMyRideTimesAndPointsWithoutPositions() throws {
        let activity = try Self.read("mapmyride_biking.tcx")
        let points = Self.points(activity)
        #expect(points.count == 3105)
        let first = try #require(points.first?.time)
        #expect(first.secondsSince1970 == 1_668_268_711 && first.nanoseconds == 473_500_000)
        #expect(first.offset == .minutes(0))
        #expect(activity.totals?.calories?.rounded() == 458)
        #expect(activity.kind == .ride)
        #expect(activity.document.tracks.first?.type == "cycling")
    }

    @Test func theCreatorIsTheDevice() throws {
        let activity = try Self.read("sup_activity_1.tcx")
        #expect(activity.document.creator == "vívoactive HR")
        #expect(activity.laps.count == 2)
        #expect(Self.points(activity).count == 111)
    }

    /// A course: its track is a route, its course points waypoints with their type.
    @Test func aCourseIsARouteWithItsCoursePoints() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">
              <Courses><Course><Name>Lake loop</Name>
                <Lap><TotalTimeSeconds>600</TotalTimeSeconds><DistanceMeters>2000</DistanceMeters></Lap>
                <Track>
                  <Trackpoint><Time>2024-05-01T10:00:00Z</Time><Position><LatitudeDegrees>46.5</LatitudeDegrees><LongitudeDegrees>6.6</LongitudeDegrees></Position></Trackpoint>
                  <Trackpoint><Time>2024-05-01T10:01:00Z</Time><Position><LatitudeDegrees>46.51</LatitudeDegrees><LongitudeDegrees>6.6</LongitudeDegrees></Position><AltitudeMeters>380</AltitudeMeters></Trackpoint>
                </Track>
                <CoursePoint><Name>Left</Name><Time>2024-05-01T10:01:00Z</Time><Position><LatitudeDegrees>46.51</LatitudeDegrees><LongitudeDegrees>6.6</LongitudeDegrees></Position><PointType>Left</PointType><Notes>Turn left at the lake</Notes></CoursePoint>
              </Course></Courses>
            </TrainingCenterDatabase>
            """
        let activity = try TCXReader.read(bytes: Array(text.utf8))
        #expect(activity.isCourse && activity.kind == .route)
        #expect(activity.document.routes.first?.name == "Lake loop")
        #expect(activity.document.routes.first?.points.count == 2)
        #expect(activity.document.routes.first?.points.last?.elevation == 380)
        let cue = try #require(activity.document.waypoints.first)
        #expect(cue.type == "Left" && cue.name == "Left" && cue.description == "Turn left at the lake")
    }

    @Test func notTCXOrHostileXMLIsRefusedWithItsPlace() throws {
        #expect(throws: GPXError.self) { try TCXReader.read(bytes: Array(#"<gpx version="1.1"/>"#.utf8)) }
        #expect(throws: GPXError.self) {
            try TCXReader.read(bytes: Array(#"<!DOCTYPE x [<!ENTITY a "b">]><TrainingCenterDatabase/>"#.utf8))
        }
        do {
            _ = try TCXReader.read(bytes: Array("<TrainingCenterDatabase><Activities><Activity>".utf8))
            Issue.record("a cut file was read")
        } catch {
            #expect(error.line == 1)
        }
    }
}
