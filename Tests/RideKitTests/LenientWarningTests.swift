import Foundation
import RideKit
import Testing

/// Lenient reading says what it left out in words a rider reads ("1 waypoint skipped: latitude 95 is out of
/// range"), with the line and column of each (issue 11), and stays linear on a file of bad points.
@Suite struct LenientWarningTests {
    static let open = #"<?xml version="1.0"?>"# + "\n" + #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"#

    func read(_ text: String) throws -> (GPXDocument, GPXReadReport) {
        try GPXReader.readWithReport(bytes: Array(text.utf8), options: GPXReadOptions(lenient: true))
    }

    @Test func aWaypointAtLatitude95IsSkippedAndSaidWhere() throws {
        let text = Self.open + "\n<wpt lat=\"1\" lon=\"2\"/>\n  <wpt lat=\"95\" lon=\"2\"><name>North of the pole</name></wpt>\n</gpx>"
        let (document, report) = try read(text)
        #expect(document.waypoints.count == 1)
        #expect(report.counts[.waypointSkipped] == 1)
        let warning = try #require(report.warnings.first)
        #expect(warning.detail == "latitude 95 is out of range")
        // The `<` of the second `<wpt`: line 4 (the declaration, <gpx>, the first wpt before it), column 3.
        #expect(warning.line == 4 && warning.column == 3)
        #expect(report.sentences == ["1 waypoint skipped: latitude 95 is out of range"])
        // Read strictly, the same file is refused at the same place.
        #expect(throws: GPXError.self) { try GPXReader.read(bytes: Array(text.utf8)) }
    }

    @Test func badTrackPointsAreCountedWithTheFirstReason() throws {
        let points = [#"<trkpt lat="1" lon="1"/>"#, #"<trkpt lat="abc" lon="1"/>"#, #"<trkpt lat="2" lon="200"/>"#, #"<trkpt lon="3"/>"#]
        let (document, report) = try read(Self.open + "<trk><trkseg>" + points.joined() + "</trkseg></trk></gpx>")
        #expect(document.tracks[0].points.count == 1)
        #expect(report.counts[.trackPointSkipped] == 3 && report.droppedPoints == 3)
        #expect(report.warnings.map(\.detail) == ["latitude 'abc' is not a number", "longitude 200 is out of range", "it has no latitude"])
        #expect(report.sentences == ["3 track points skipped, the first because latitude 'abc' is not a number"])
    }

    @Test func anUndeclaredGarminPrefixIsReadAndSaid() throws {
        let text = Self.open + "\n<trk><trkseg><trkpt lat=\"1\" lon=\"1\"><extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>140</gpxtpx:hr>"
            + "</gpxtpx:TrackPointExtension></extensions></trkpt></trkseg></trk></gpx>"
        #expect(throws: GPXError.self) { try GPXReader.read(bytes: Array(text.utf8)) }
        let (document, report) = try read(text)
        #expect(document.tracks[0].points[0].heartRate == 140)
        #expect(report.counts[.undeclaredPrefix] == 1)
        #expect(report.sentences == ["1 undeclared extension prefix read as usual: 'gpxtpx:' is used without being declared"])
        #expect(report.warnings.first?.line == 3)
    }

    @Test func anUnknownElementAndABadValueAreSaid() throws {
        let text = Self.open + "<trk><trkseg><trkpt lat=\"1\" lon=\"1\"><ele>high</ele><colour>red</colour></trkpt></trkseg></trk></gpx>"
        let (document, report) = try read(text)
        #expect(document.tracks[0].points.count == 1 && document.tracks[0].points[0].elevation == nil)
        #expect(report.counts[.valueDropped] == 1 && report.counts[.elementSkipped] == 1)
        #expect(report.sentences.count == 2)
        #expect(report.sentences[1] == "1 unknown element skipped: <colour> is not part of GPX (in <trkpt>)")
        #expect(report.sentences[0].hasPrefix("1 value left out: <ele> 'high' is not "))
    }

    @Test func aCleanFileHasNoWarnings() throws {
        let (_, report) = try read(Self.open + #"<wpt lat="1" lon="2"/></gpx>"#)
        #expect(report.isClean && report.warnings.isEmpty && report.sentences.isEmpty)
    }

    /// 20,000 bad points: every one counted, only the first ones located (a line costs a pass over the buffer).
    @Test func manyBadPointsStayCountedAndCapped() throws {
        let bad = String(repeating: #"<trkpt lat="95" lon="1"/>"# + "\n", count: 20_000)
        let started = Date()
        let (_, report) = try read(Self.open + "<trk><trkseg>" + bad + "</trkseg></trk></gpx>")
        #expect(report.counts[.trackPointSkipped] == 20_000)
        #expect(report.warnings.count == GPXReadReport.maximumLocatedWarnings)
        #expect(report.warnings.last?.line == 1 + GPXReadReport.maximumLocatedWarnings)  // the first on line 2
        #expect(Date().timeIntervalSince(started) < 5)
    }
}

// The ride's start in its own time zone (`LocalStartTime`): TimeZoneTests.

/// This week (from Monday), this month, this year in a fixed offset, checked against Foundation's Gregorian
/// calendar (an independent implementation) over four years of days and several offsets.
@Suite struct CalendarPeriodTests {
    func date(_ text: String) throws -> Date { try GPXTime(parsing: text).date }

    @Test func aWednesdayInMay() throws {
        let now = try date("2024-05-01T15:00:00Z")  // a Wednesday
        #expect(CalendarPeriod.week.start(containing: now, utcOffsetMinutes: 0) == (try date("2024-04-29T00:00:00Z")))
        #expect(CalendarPeriod.month.start(containing: now, utcOffsetMinutes: 0) == (try date("2024-05-01T00:00:00Z")))
        #expect(CalendarPeriod.year.start(containing: now, utcOffsetMinutes: 0) == (try date("2024-01-01T00:00:00Z")))
    }

    @Test func theRidersMidnightNotUTCs() throws {
        // Sunday 23:30 UTC is Monday 01:30 at UTC+2: a new week, which began at 22:00 UTC.
        let now = try date("2024-04-28T23:30:00Z")
        #expect(CalendarPeriod.week.start(containing: now, utcOffsetMinutes: 120) == (try date("2024-04-28T22:00:00Z")))
        #expect(CalendarPeriod.week.start(containing: now, utcOffsetMinutes: 0) == (try date("2024-04-22T00:00:00Z")))
        // New Year's Eve 20:00 in Cupertino (UTC−8) is already 2025 in UTC.
        let eve = try date("2025-01-01T04:00:00Z")
        #expect(CalendarPeriod.year.start(containing: eve, utcOffsetMinutes: -480) == (try date("2024-01-01T08:00:00Z")))
    }

    @Test(arguments: [0, 60, -480, 345, 840, -720])
    func agreesWithFoundationsCalendar(offsetMinutes: Int) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: offsetMinutes * 60))
        calendar.firstWeekday = 2  // Monday
        calendar.minimumDaysInFirstWeek = 4
        var now = try date("1999-12-25T13:17:00Z")
        for _ in 0..<(4 * 366) {
            #expect(CalendarPeriod.week.start(containing: now, utcOffsetMinutes: offsetMinutes) == calendar.dateInterval(of: .weekOfYear, for: now)?.start)
            #expect(CalendarPeriod.month.start(containing: now, utcOffsetMinutes: offsetMinutes) == calendar.dateInterval(of: .month, for: now)?.start)
            #expect(CalendarPeriod.year.start(containing: now, utcOffsetMinutes: offsetMinutes) == calendar.dateInterval(of: .year, for: now)?.start)
            now += 86_400 + 3_607
        }
    }
}

/// Heart rate, cadence and power along a track, for its charts, and the place of each sample for the map.
@Suite struct TrackProfileSensorTests {
    @Test func heartRateAndPowerAreMeanPerSampleAndCadenceAbsent() throws {
        let start = Coordinate(latitude: 45, longitude: 7)
        // 1,000 m north in 101 points; heart rate 120 on the first half, 160 on the second; power 200 W throughout.
        let points = (0...100).map { index -> TrackPoint in
            let position = start.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            var point = TrackPoint(latitude: position.latitude, longitude: position.longitude, time: GPXTime(secondsSince1970: 1_700_000_000 + Int64(index) * 2))
            point.heartRate = index <= 50 ? 120 : 160
            point.powerWatts = 200
            return point
        }
        let profile = TrackProfile(track: Track(segments: [TrackSegment(points: points)]), maximumSamples: 10)
        #expect(profile.hasHeartRate && profile.hasPower && !profile.hasCadence)
        #expect(profile.heartRate.count == 10 && profile.powerWatts.allSatisfy { $0 == 200 })
        #expect(profile.heartRate.first == 120 && profile.heartRate.last == 160)
        #expect(profile.positions.count == 10)
        let last = try #require(profile.positions.last)
        #expect(last.distanceMeters(to: points[100].coordinate) < 0.01)
    }
}

@Suite struct ActivityTypeTests {
    @Test func theKindIsWrittenAsTheTrksType() {
        var document = GPXDocument()
        document.tracks = [Track(), Track(), Track()]
        document.tracks[1].type = "Road biking"
        document.tracks[2].type = "running"
        document.setActivityType(.ride)
        #expect(document.tracks.map(\.type) == ["cycling", "Road biking", "cycling"])
        document.setActivityType(.route)
        #expect(document.tracks.map(\.type) == ["cycling", "Road biking", "cycling"])
    }
}
