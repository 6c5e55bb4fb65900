import Foundation
@testable import RideKit
import TestSupport
import Testing

/// FIT courses out (read back by bikeride's reader and by fitdecode), and device files found by their content,
/// gzipped or not.
@Suite struct DeviceFileTests {
    /// An L: 300 m north, a right turn, 300 m east, a point every 10 m, with heights.
    static let line: [TrackPoint] = {
        let start = Coordinate(latitude: 46.5, longitude: 6.6)
        let corner = start.destination(distanceMeters: 300, bearingDegrees: 0)
        var points = stride(from: 0.0, through: 300, by: 10).map { start.destination(distanceMeters: $0, bearingDegrees: 0) }
        points += stride(from: 10.0, through: 300, by: 10).map { corner.destination(distanceMeters: $0, bearingDegrees: 90) }
        return points.enumerated().map { TrackPoint(latitude: $1.latitude, longitude: $1.longitude, elevation: 400 + Double($0) / 10) }
    }()

    @Test func aCourseCarriesTheLineAndItsCuesAndReadsBack() throws {
        let cues = TurnDetector.cues(along: Self.line.map(\.coordinate))
        #expect(cues.count == 1 && cues[0].direction == .right)
        let bytes = FITCourseWriter.data(name: "Lake loop", points: Self.line, cues: cues, kind: .ride)
        let course = try FITReader.read(bytes)
        #expect(course.isCourse && course.kind == .route)
        let route = try #require(course.document.routes.first)
        #expect(route.name == "Lake loop")
        #expect(route.points.count == Self.line.count)
        for (written, read) in zip(Self.line, route.points) {
            // Semicircles hold about 1 cm; altitudes are stored in steps of 0.2 m.
            #expect(written.coordinate.distanceMeters(to: read.coordinate) < 0.02)
            #expect(abs((read.elevation ?? 0) - (written.elevation ?? 1)) <= 0.1 + 1e-9)
        }
        // Times laid out at 20 km/h from the start: 600 m in 108 s.
        let times = route.points.compactMap(\.time)
        #expect(times.count == route.points.count)
        #expect(times.last!.secondsSince1970 - times.first!.secondsSince1970 == 108)
        let point = try #require(course.document.waypoints.first)
        #expect(point.type == "Right" && point.name == "Turn right")
        #expect(point.coordinate.distanceMeters(to: cues[0].coordinate) < 0.02)
    }

    /// fitdecode (another reader, CRCs checked) reads the course bikeride writes: its records, and each cue as
    /// a course point of the right type.
    @Test func fitdecodeReadsTheCourse() throws {
        let line = Self.line + Self.line.dropFirst().map { point in
            // And back west again, then a sharp left: more than one kind of cue.
            TrackPoint(latitude: point.latitude - 0.0001, longitude: point.longitude)
        }
        let cues = TurnDetector.cues(along: line.map(\.coordinate))
        let bytes = FITCourseWriter.data(name: "Out and back with a long name that a unit cuts", points: Self.line, cues: cues)
        let file = FileManager.default.temporaryDirectory.appending(path: "bikeride-course-\(UUID().uuidString).fit")
        try Data(bytes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import fitdecode, json, sys
            out = {"records": 0, "points": []}
            with fitdecode.FitReader(sys.argv[1], check_crc=fitdecode.CrcCheck.RAISE) as reader:
                for frame in reader:
                    if frame.frame_type != fitdecode.FIT_FRAME_DATA: continue
                    if frame.name == "record": out["records"] += 1
                    if frame.name == "course_point": out["points"].append([frame.get_value("type"), frame.get_value("name")])
                    if frame.name == "file_id": out["type"] = frame.get_value("type")
            print(json.dumps(out))
            """
        let process = TestProcess()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "fitdecode could not read the course (run scripts/test.sh, which installs it)")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["type"] as? String == "course")
        #expect(object["records"] as? Int == Self.line.count)
        let points = try #require(object["points"] as? [[String]])
        #expect(points.count == cues.count)
        for (cue, point) in zip(cues, points) {
            // fitdecode names the types as the SDK's profile does: right, slight_left, sharp_right, u_turn …
            let expected = cue.coursePointType.replacing(/([a-z])([A-Z])/) { "\($0.output.1)_\($0.output.2)" }.lowercased()
            #expect(point[0] == expected)
            #expect(point[1] == CueText.instruction(direction: cue.direction, severity: cue.severity))
        }
    }

    /// The content decides: a FIT header, a TCX root, and either inside gzip, whatever the name says.
    @Test func deviceFilesAreFoundByTheirContentGzippedOrNot() throws {
        let fit = try Fixtures.bytes("fit/python-fitparse/garmin-fenix-5-walk.fit")
        let tcx = try Fixtures.bytes("tcx/tcxreader/sup_activity_1.tcx")
        let gpx = try Fixtures.bytes("gpx/gpxpy/cerknicko-jezero.gpx")
        #expect(TrackFileFormat(head: fit, fileName: "ride.gpx") == .fit)
        #expect(TrackFileFormat(head: tcx, fileName: nil) == .tcx)
        #expect(TrackFileFormat(head: gpx, fileName: "x.tcx") == .gpx)
        #expect(TrackFileFormat(head: Self.gzip(fit), fileName: nil) == .fit)
        #expect(TrackFileFormat(head: Self.gzip(tcx), fileName: nil) == .tcx)
        #expect(TrackFileFormat(head: Self.gzip(gpx), fileName: nil) == .gpx)
        #expect(TrackFileFormat(fileName: "Morning_Ride.fit.gz") == .fit)
        #expect(TrackFileFormat(fileName: "a.TCX") == .tcx)
        #expect(TrackFileFormat.isTrackFileName("x.fit") && TrackFileFormat.isTrackFileName("x.tcx.gz"))
        let unzipped = try DeviceFileReader.read(bytes: Self.gzip(fit), format: .fit)
        #expect(unzipped == (try FITReader.read(fit)))
        // A gzip that inflates past the cap is refused, not inflated.
        #expect(throws: DeviceFileReader.Failure.self) {
            try DeviceFileReader.read(bytes: Self.gzip(fit), format: .fit, maximumInflatedBytes: 1_000)
        }
    }

    static func gzip(_ bytes: [UInt8]) -> [UInt8] { StoredGzip.encode(bytes) }
}

/// The CSV of a Strava export: quotes, commas and line breaks in fields, CRLF, blank lines, columns named twice.
@Suite struct CSVTableTests {
    @Test func quotedFieldsHoldCommasQuotesAndLineBreaks() throws {
        let table = try CSVTable(text: "Name,Kind,Name\r\n\"Ride, \"\"long\"\"\nday\",Ride,second\r\n\r\nplain,,\n\"\",x,y")
        #expect(table.header == ["Name", "Kind", "Name"])
        #expect(table.rows == [["Ride, \"long\"\nday", "Ride", "second"], ["plain", "", ""], ["", "x", "y"]])
        #expect(table.column("name") == 0 && table.column(" Kind ") == nil && table.column("Kind") == 1)
    }

    @Test func anUnclosedQuoteIsAnErrorWithItsLine() {
        #expect(throws: CSVTable.Failure.unclosedQuote(line: 2)) { try CSVTable(text: "a,b\n\"open,x\ny\n") }
    }

    @Test func emptyTextIsAnEmptyTable() throws {
        let table = try CSVTable(text: "")
        #expect(table.header.isEmpty && table.rows.isEmpty)
    }
}
