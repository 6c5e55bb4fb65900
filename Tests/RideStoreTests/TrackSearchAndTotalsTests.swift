import Foundation
import Testing

import RideKit
@testable import RideStore

/// Issue 11's Tracks list: search by name, file name, date and kind; totals from the list's own figures; a file's
/// empty `trk` and `rte` are no phantom 0 m tracks; lenient imports say what they left out.
@Suite struct TrackSearchAndTotalsTests {
    /// A straight ride north, `meters` long in 10 m steps at 5 m/s, starting at `start` (RFC 3339).
    static func gpx(name: String, start: String, meters: Int = 1000, type: String? = nil) throws -> Data {
        let startTime = try GPXTime(parsing: start)
        let origin = Coordinate(latitude: 46.5, longitude: 6.6)
        let points = (0...(meters / 10)).map { index -> String in
            let position = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: startTime.secondsSince1970 + Int64(index) * 2).rfc3339
            return #"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)"><ele>400</ele><time>\#(time)</time></trkpt>"#
        }
        let typeElement = type.map { "<type>\($0)</type>" } ?? ""
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name>\(typeElement)<trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
            </gpx>
            """.utf8)
    }

    @Test(arguments: StoreKind.allCases) func searchFindsNameFileNameDateAndKind(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            _ = try await library.importData(try Self.gpx(name: "Lake loop", start: "2024-05-04T08:00:00Z"), fileName: "saturday-commute.gpx")
            _ = try await library.importData(try Self.gpx(name: "Hill repeats", start: "2023-11-02T17:00:00Z", type: "running"), fileName: "garmin-123.gpx")
            _ = try await library.importData(try Self.gpx(name: "50%_off ride", start: "2024-06-01T07:00:00Z"), fileName: "x.gpx")
            func names(_ search: String?, kinds: Set<TrackKind>? = nil) async throws -> [String] {
                try await library.store.tracks(TrackQuery(search: search, kinds: kinds), userID: library.userID).tracks.map(\.name)
            }
            #expect(try await names("lake") == ["Lake loop"])
            #expect(try await names("COMMUTE") == ["Lake loop"])              // the file's name
            #expect(try await names("garmin") == ["Hill repeats"])
            #expect(try await names("2024-05") == ["Lake loop"])             // the date
            #expect(try await names("2023") == ["Hill repeats"])
            #expect(try await names("runs") == ["Hill repeats"])            // the kind, plural too
            #expect(try await names("ride") == ["50%_off ride", "Lake loop"])  // kind or name; newest first
            #expect(try await names("lake 2024") == ["Lake loop"])           // every word must match
            #expect(try await names("lake 2023").isEmpty)
            #expect(try await names("%").count == 1)                          // LIKE's wildcards are plain characters
            #expect(try await names("_off") == ["50%_off ride"])
            #expect(try await names("hill", kinds: [.ride]).isEmpty)
            #expect(try await names(String(repeating: "lake ", count: 500)) == ["Lake loop"])  // 8 words count, no more
            #expect(try await names("LAKE Loop") == ["Lake loop"])
        }
    }

    @Test(arguments: StoreKind.allCases) func totalsSumTheListsFiguresSinceEachStart(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let a = try await library.importData(try Self.gpx(name: "A", start: "2024-05-06T08:00:00Z", meters: 1000), fileName: "a.gpx")
            let b = try await library.importData(try Self.gpx(name: "B", start: "2024-05-02T08:00:00Z", meters: 2000), fileName: "b.gpx")
            _ = try await library.importData(try Self.gpx(name: "C", start: "2024-03-10T08:00:00Z", meters: 500), fileName: "c.gpx")
            _ = try await library.importData(try Self.gpx(name: "Old", start: "2023-12-31T08:00:00Z", meters: 700), fileName: "d.gpx")
            let plan = try await library.importData(try Self.gpx(name: "Plan", start: "2024-05-07T08:00:00Z", meters: 900), fileName: "e.gpx")
            _ = try await library.setKind(plan.tracks[0].id, to: .route)
            // Without times: no day it was ridden, so in no period (its import day is not one).
            let untimed = String(decoding: try Self.gpx(name: "Untimed", start: "2024-05-07T08:00:00Z"), as: UTF8.self)
                .replacingOccurrences(of: #"<time>[^<]*</time>"#, with: "", options: .regularExpression)
            _ = try await library.importData(Data(untimed.utf8), fileName: "f.gpx")
            let now = try GPXTime(parsing: "2024-05-08T12:00:00Z").date  // a Wednesday
            let starts = CalendarPeriod.allCases.map { $0.start(containing: now, utcOffsetMinutes: 0) }
            let totals = try await library.store.trackTotals(since: starts, userID: library.userID)
            let listed = try await library.store.tracks(TrackQuery(), userID: library.userID).tracks
            func sum(_ names: Set<String>) -> Double { listed.filter { names.contains($0.name) }.reduce(0) { $0 + $1.distanceMeters } }
            #expect(totals.map(\.trackCount) == [1, 2, 3])
            #expect(totals[0].distanceMeters == sum(["A"]))
            #expect(totals[1].distanceMeters == sum(["A", "B"]))
            #expect(totals[2].distanceMeters == sum(["A", "B", "C"]))
            #expect(abs(totals[1].distanceMeters - 3000) < 3)  // 1 km and 2 km due north
            #expect(totals[1].movingSeconds == listed.filter { ["A", "B"].contains($0.name) }.reduce(0) { $0 + $1.movingSeconds })
            // A deleted track no longer counts.
            _ = try await library.delete([b.tracks[0].id, a.tracks[0].id], permanently: false)
            #expect(try await library.store.trackTotals(since: starts, userID: library.userID).map(\.trackCount) == [0, 0, 1])
        }
    }

    @Test(arguments: StoreKind.allCases) func emptyTrksAndRtesAreNoTracksButExportGivesTheFileBack(_ kind: StoreKind) async throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <rte><name>Nothing planned</name></rte>
            <rte><name>Plan</name><rtept lat="46.5" lon="6.6"/><rtept lat="46.51" lon="6.6"/></rte>
            <trk><name>Empty</name><trkseg></trkseg></trk>
            <trk><name>Ride</name><trkseg><trkpt lat="46.5" lon="6.6"><time>2024-05-04T08:00:00Z</time></trkpt><trkpt lat="46.501" lon="6.6"><time>2024-05-04T08:00:30Z</time></trkpt></trkseg></trk>
            <trk><name>Also empty</name></trk>
            </gpx>
            """
        try await withLibrary(kind) { library in
            let outcome = try await library.importData(Data(text.utf8), fileName: "mixed.gpx")
            #expect(outcome.tracks.map(\.name) == ["Ride", "Plan"])
            #expect(outcome.tracks.map(\.kind) == [.ride, .route])
            #expect(outcome.tracks.allSatisfy { $0.distanceMeters > 100 })
            let original = try GPXReader.read(bytes: Array(text.utf8))
            expectSameDocument(try await library.document(for: outcome.tracks.map(\.id)), original, "mixed")

            // Nothing but empty elements: no 0 m track (issue 24), refused with its reason and nothing stored.
            let empty = #"<gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><rte/><trk><trkseg/></trk></gpx>"#
            await #expect(throws: RideStoreError.self) { _ = try await library.importData(Data(empty.utf8), fileName: "empty.gpx") }
            #expect(try await library.store.tracks(TrackQuery(), userID: library.userID).tracks.count == 2)
        }
    }

    @Test(arguments: StoreKind.allCases) func aLenientImportCarriesItsWarnings(_ kind: StoreKind) async throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <wpt lat="95" lon="6.6"><name>Bad</name></wpt>
            <trk><trkseg><trkpt lat="46.5" lon="6.6"/><trkpt lat="46.501" lon="6.6"/></trkseg></trk>
            </gpx>
            """
        try await withLibrary(kind) { library in
            await #expect(throws: RideStoreError.self) { try await library.importData(Data(text.utf8), fileName: "strict.gpx") }
            let outcome = try await library.importData(Data(text.utf8), fileName: "lenient.gpx", options: ImportOptions(lenient: true))
            #expect(outcome.tracks.count == 1)
            #expect(outcome.readReport.sentences == ["1 waypoint skipped: latitude 95 is out of range"])
            #expect(outcome.readReport.warnings.first?.line == 3)
        }
    }

    @Test func groupsKeepEachEmptyBesideItsNeighbour() {
        let groups = TrackLibrary.groupsAroundNonEmpty([false, true, false, true, false])
        #expect(groups.map(\.owner) == [1, 3])
        #expect(groups.map(\.members) == [[0, 1], [2, 3, 4]])
        #expect(TrackLibrary.groupsAroundNonEmpty([false, false]).isEmpty)
        #expect(TrackLibrary.groupsAroundNonEmpty([]).isEmpty)
    }
}
