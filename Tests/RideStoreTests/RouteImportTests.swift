import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// Issue 24's "setting up a route": a file whose tracks have no times, or that has `rte`, imports as a route; a file
/// with times stays a ride; an empty or waypoints-only file makes no 0 m track (refused, or its waypoints made
/// places when asked) - on both stores.
@Suite struct RouteImportTests {
    /// A GPX file of `version` with one `trk` of `points` points going north in 100 m steps; `timed` says which
    /// carry a time (one a minute), `extra` goes before the `trk`.
    static func gpx(version: String = "1.1", points: Int = 10, timed: (Int) -> Bool, type: String? = nil, extra: String = "") -> Data {
        let origin = Coordinate(latitude: 46.5, longitude: 6.6)
        let trkpts = (0..<points).map { index -> String in
            let position = origin.destination(distanceMeters: Double(index) * 100, bearingDegrees: 0)
            let time = timed(index) ? "<time>2024-05-04T08:\(String(format: "%02d", index)):00Z</time>" : ""
            return #"<trkpt lat="\#(position.latitude)" lon="\#(position.longitude)">\#(time)</trkpt>"#
        }.joined()
        let namespace = version == "1.0" ? "http://www.topografix.com/GPX/1/0" : "http://www.topografix.com/GPX/1/1"
        let typeElement = type.map { "<type>\($0)</type>" } ?? ""
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="\(version)" creator="test" xmlns="\(namespace)">\(extra)
            <trk><name>T</name>\(typeElement)<trkseg>\(trkpts)</trkseg></trk>
            </gpx>
            """.utf8)
    }

    static let waypoints = """
        <wpt lat="46.51" lon="6.61"><name>Bakery</name></wpt><wpt lat="46.52" lon="6.62"><name>Post office</name></wpt>
        """

    @Test(arguments: StoreKind.allCases) func untimedTracksAreRoutesAndTimedOnesRides(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            func kinds(_ data: Data, _ name: String) async throws -> [TrackKind] {
                try await library.importData(data, fileName: name).tracks.map(\.kind)
            }
            #expect(try await kinds(Self.gpx(timed: { _ in false }), "plan-1.1.gpx") == [.route])
            #expect(try await kinds(Self.gpx(version: "1.0", timed: { _ in false }), "plan-1.0.gpx") == [.route])
            // A planner's "cycling" is still a plan: no time, no ride.
            #expect(try await kinds(Self.gpx(timed: { _ in false }, type: "cycling"), "typed-plan.gpx") == [.route])
            #expect(try await kinds(Self.gpx(timed: { _ in true }), "ride.gpx") == [.ride])
            #expect(try await kinds(Self.gpx(version: "1.0", timed: { _ in true }), "ride-1.0.gpx") == [.ride])
            #expect(try await kinds(Self.gpx(timed: { _ in true }, type: "running"), "run.gpx") == [.run])
            // Two timed points of ten (a logger that lost its clock for a stretch) are a recording.
            #expect(try await kinds(Self.gpx(timed: { $0 == 0 || $0 == 9 }), "few-times.gpx") == [.ride])
            // The user's kind wins.
            let forced = try await library.importData(
                Self.gpx(timed: { _ in false }), fileName: "forced.gpx", options: ImportOptions(kind: .walk, allowsDuplicates: true))
            #expect(forced.tracks.map(\.kind) == [.walk])
            // One track per file: the same rule over the whole file.
            let whole = try await library.importData(
                Self.gpx(timed: { _ in false }), fileName: "whole.gpx", options: ImportOptions(oneTrackPerFile: true, allowsDuplicates: true))
            #expect(whole.tracks.map(\.kind) == [.route])
        }
    }

    /// Real files: each `trk` with no time, and each `rte`, is a route; each `trk` with a time is not. The truth is
    /// the file's own points as the reader gives them (times counted per `trk`).
    @Test(arguments: [
        "gpx/georust-gpx/strava_route_example.gpx", "gpx/georust-gpx/outdooractive-export.gpx", "gpx/jpx/ISSUE-151.gpx",
        "gpx/togeojson/style.gpx", "gpx/gpxpy/route.gpx", "gpx/ruby-gpx/routes.gpx", "gpx/georust-gpx/ecology-trail-and-lovers-lane-loop.gpx",
        "gpx/gpxgo/graphhopper.gpx.gz", "gpx/gpxpy/cerknicko-jezero.gpx",
    ])
    func realFilesWithoutTimesAreRoutes(_ path: String) async throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url(path))
        var expected: [TrackKind] = []
        for track in document.tracks {
            let points = track.segments.flatMap(\.points)
            guard !points.isEmpty else { continue }
            expected.append(points.contains { $0.time != nil } ? .ride : .route)
        }
        for route in document.routes where !route.points.isEmpty { expected.append(.route) }
        #expect(!expected.isEmpty)
        for kind in StoreKind.allCases {
            try await withLibrary(kind) { library in
                let outcome = try await library.importFile(at: Fixtures.url(path))
                #expect(outcome.tracks.map(\.kind) == expected, "\(path) on \(kind)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func emptyAndWaypointsOnlyFilesMakeNoTrack(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let empty = Data(#"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg/></trk></gpx>"#.utf8)
            await #expect(throws: RideStoreError.self) { _ = try await library.importData(empty, fileName: "empty.gpx") }
            do {
                _ = try await library.importData(empty, fileName: "empty.gpx")
            } catch let error as RideStoreError {
                guard case .nothingToImport(let reason) = error else { Issue.record("\(error)"); return }
                #expect(reason.contains("no track or route points"))
            }
            let waypointsOnly = Data("""
                <?xml version="1.0"?><gpx version="1.0" creator="t" xmlns="http://www.topografix.com/GPX/1/0">\(Self.waypoints)</gpx>
                """.utf8)
            for options in [ImportOptions(), ImportOptions(oneTrackPerFile: true)] {
                do {
                    _ = try await library.importData(waypointsOnly, fileName: "errands.gpx", options: options)
                    Issue.record("a waypoints-only file was imported")
                } catch let error as RideStoreError {
                    guard case .nothingToImport(let reason) = error else { Issue.record("\(error)"); return }
                    #expect(reason.contains("only waypoints (2 wpt)"))
                    #expect(reason.contains("--waypoints-as-places"))
                }
            }
            #expect(try await library.store.tracks(TrackQuery(), userID: library.userID).tracks.isEmpty)
            #expect(try await library.store.places(PlaceQuery(), userID: library.userID).isEmpty)

            // Asked to: the waypoints become places, and still no track.
            let outcome = try await library.importData(waypointsOnly, fileName: "errands.gpx", options: ImportOptions(waypointsAsPlaces: true))
            guard case .imported(_, let tracks, let placeIDs) = outcome.result else { Issue.record("\(outcome.result)"); return }
            #expect(tracks.isEmpty)
            #expect(placeIDs.count == 2)
            let places = try await library.store.places(PlaceQuery(), userID: library.userID)
            #expect(Set(places.map(\.name)) == ["Bakery", "Post office"])
            #expect(try await library.store.tracks(TrackQuery(), userID: library.userID).tracks.isEmpty)
        }
    }

    /// The real waypoints-only and empty fixtures: refused with a reason, nothing stored; as places, one a waypoint.
    @Test(arguments: ["gpx/gpxgo/iso8859-1encoded.gpx", "gpx/jpx/ISSUE-51.gpx", "gpx/gpxpy/unicode2.gpx"])
    func realWaypointsOnlyFilesMakeNoTrack(_ path: String) async throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url(path))
        #expect(document.tracks.allSatisfy { $0.segments.allSatisfy(\.points.isEmpty) } && document.routes.allSatisfy(\.points.isEmpty))
        for kind in StoreKind.allCases {
            try await withLibrary(kind) { library in
                await #expect(throws: RideStoreError.self) { _ = try await library.importFile(at: Fixtures.url(path)) }
                #expect(try await library.store.tracks(TrackQuery(), userID: library.userID).tracks.isEmpty)
                if document.waypoints.isEmpty { return }
                let outcome = try await library.importFile(at: Fixtures.url(path), options: ImportOptions(waypointsAsPlaces: true))
                #expect(outcome.tracks.isEmpty)
                #expect(try await library.store.places(PlaceQuery(), userID: library.userID).count == document.waypoints.count)
            }
        }
    }
}
