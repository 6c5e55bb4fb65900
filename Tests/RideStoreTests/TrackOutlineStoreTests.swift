import Foundation
import RideKit
import Testing

@testable import RideStore
import TestSupport

/// A track read a page of blocks at a time (`trackOutline` and `forEachPointBlock`, issue 20, finding 5) gives the
/// same points, in the same order, as the whole read (`track(id:userID:)`), on both stores.
@Suite struct TrackOutlineStoreTests {
    static let start = Date(timeIntervalSince1970: 1_714_543_200)

    static func points(_ count: Int, from first: Int, latitude: Double = 46.5) -> [TrackPoint] {
        (first..<first + count).map { index in
            var point = TrackPoint(latitude: latitude + Double(index) * 1e-5, longitude: 6.6 + Double(index % 7) * 1e-6)
            point.elevation = 400 + Double(index % 300) * 0.5
            point.time = GPXTime(date: start.addingTimeInterval(Double(index)))
            if index % 11 == 0 { point.heartRate = Double(100 + index % 50) }
            return point
        }
    }

    /// Two `trk`s (a segment of 70,000 points: 69 blocks, more than a page; an empty one; a short one), a route
    /// and waypoints.
    static func document() -> GPXDocument {
        var first = Track(name: "first", segments: [
            TrackSegment(points: points(70_000, from: 0)), TrackSegment(points: []), TrackSegment(points: points(5, from: 70_000)),
        ])
        first.type = "cycling"
        let second = Track(name: "second", segments: [TrackSegment(points: points(3, from: 80_000, latitude: 47))])
        var route = Route()
        route.name = "planned"
        route.points = points(2_100, from: 90_000, latitude: 45)
        var waypoints = points(4, from: 100_000, latitude: 44)
        waypoints[0].name = "Col"
        return GPXDocument(waypoints: waypoints, routes: [route], tracks: [first, second])
    }

    /// The content rebuilt from the outline and the walk, run by run.
    static func walked(_ store: any RideStore, _ outline: TrackOutline, userID: UserID) async throws -> (content: TrackContent, order: [TrackPointRun]) {
        var content = outline.track.content
        var collected: [TrackPointRun: [TrackPoint]] = [:]
        var order: [TrackPointRun] = []
        try await store.forEachPointBlock(of: outline, userID: userID) { run, points in
            if order.last != run { order.append(run) }
            collected[run, default: []] += points
        }
        for run in outline.runs {
            PointRunAssembler.place(
                PackedPoints(collected[run] ?? []), role: run.role, part: run.part, position: run.position, into: &content)
        }
        return (content, order)
    }

    @Test(arguments: StoreKind.allCases)
    func theWalkGivesTheWholeReadsPointsInOrder(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let document = Self.document()
            let batch = TrackImport(
                source: ImportSource(fileName: "walk.gpx", format: .gpx, contentHash: UUID().uuidString, byteCount: 1),
                tracks: [NewTrack(name: "walk", kind: .ride, content: TrackContent(document: document), stats: document.tracks[0].stats(activity: .ride))])
            guard case .imported(_, let tracks, _) = try await store.saveImport(batch, userID: user.id) else {
                Issue.record("not imported")
                return
            }
            let id = tracks[0].id
            let whole = try #require(try await store.track(id: id, userID: user.id))
            let outline = try #require(try await store.trackOutline(id: id, userID: user.id))
            #expect(outline.summary == whole.summary)
            #expect(outline.track.stats == whole.stats)
            // Runs in the whole read's order: trk segments (the empty one too), the route, the waypoints.
            #expect(outline.runs.map { "\($0.role.rawValue).\($0.part).\($0.position)" } == ["0.0.0", "0.0.1", "0.0.2", "0.1.0", "1.0.0", "2.0.0"])
            #expect(outline.pointCount == whole.storedPointCount)
            let expectedCount = 70_000 + 5 + 3 + 2_100 + 4
            #expect(outline.pointCount == expectedCount)
            let (content, order) = try await Self.walked(store, outline, userID: user.id)
            #expect(order == outline.runs.filter { outline.pointCount(of: $0) > 0 })
            #expect(content == whole.content)
            // Point by point, against the file's own points (independent of both reads).
            #expect(try content.tracks[0].segments[0].points.points() == document.tracks[0].segments[0].points)
            #expect(try content.routes[0].points.points() == document.routes[0].points)
            #expect(try content.waypoints.points() == document.waypoints)
            #expect(content.tracks[0].header.name == "first" && content.tracks[1].header.name == "second")

            // The same bounded line as the whole read's (every n-th point, first and last of each line).
            let library = TrackLibrary(store: store, userID: user.id)
            for limit in [10, 1_000, 1_000_000] {
                let streamed = try await library.boundedLines(outline, maximumPoints: limit)
                let held = try whole.boundedLineSegments(maximumPoints: limit)
                #expect(streamed == held, "limit \(limit)")
            }
            #expect(try await library.boundedWaypoints(outline, maximumPoints: 2) == (try whole.boundedWaypoints(maximumPoints: 2)))

            // Another user sees neither the outline nor a block.
            let other = try await store.createUser(name: "other-\(kind.rawValue)", passwordHash: nil)
            #expect(try await store.trackOutline(id: id, userID: other.id) == nil)
            let segmentID = try #require(outline.runs[0].segmentID)
            #expect(try await store.pointBlockPage(segmentID: segmentID, trackID: id, userID: other.id, after: nil, limit: 64).isEmpty)
            #expect(try await store.pointBlockPage(segmentID: segmentID, trackID: id, userID: user.id, after: nil, limit: 64).count == 64)
        }
    }

    /// A device's live track: the fixes not in its blocks yet end its segment, in the walk as in the whole read.
    @Test(arguments: StoreKind.allCases)
    func aLiveDeviceTracksWaitingFixesEndItsWalk(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let device = try await store.createDevice(NewDevice(name: "Phone", tokenHash: SecretToken.hash(SecretToken.make()), protocolName: "any"), userID: user.id)
            var trackID: TrackID?
            let count = 150
            for index in 0..<count {
                let fix = TrackerFix(
                    time: Self.start.addingTimeInterval(Double(index)), latitude: 46.5 + Double(index) * 1e-5, longitude: 6.6,
                    speedMetersPerSecond: 1.1)
                trackID = try await store.ingest([fix], deviceID: device.id, userID: user.id, gapSeconds: 1800).liveTrackID
            }
            let id = try #require(trackID)
            let whole = try #require(try await store.track(id: id, userID: user.id))
            let outline = try #require(try await store.trackOutline(id: id, userID: user.id))
            let (content, _) = try await Self.walked(store, outline, userID: user.id)
            #expect(content == whole.content)
            let latitudes = try content.tracks[0].segments[0].points.points().map(\.latitude)
            #expect(latitudes.count == count)
            #expect(latitudes == (0..<count).map { 46.5 + Double($0) * 1e-5 })
            #expect(outline.pointCount == count)
        }
    }
}
