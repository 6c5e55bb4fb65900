import Foundation
import Testing

import RideKit
@testable import RideStore

/// The store core's pure rules (RideStore's `Core/`), which both stores call: checked here without a database.
@Suite struct StoreCoreTests {
    static let trackID = TrackID("ABCDEFGH")!

    static func block(_ count: Int) -> PointBlock {
        let points = (0..<count).map { index in TrackPoint(latitude: 46.5 + Double(index) * 0.001, longitude: 6.6) }
        return PackedPoints(points[...]).packedBlocks[0]
    }

    @Test func pointRowsAreAssembledIntoTheirSegmentsRoutesAndWaypoints() throws {
        var content = TrackContent()
        var assembler = PointRunAssembler(trackID: Self.trackID)
        let two = Self.block(2), three = Self.block(3)
        try assembler.add(role: 0, part: 0, position: 0, pointCount: two.pointCount, data: two.data, into: &content)
        try assembler.add(role: 0, part: 0, position: 0, pointCount: three.pointCount, data: three.data, into: &content)
        try assembler.add(role: 0, part: 0, position: 1, pointCount: nil, data: nil, into: &content)
        try assembler.add(role: 1, part: 1, position: 0, pointCount: two.pointCount, data: two.data, into: &content)
        try assembler.add(role: 2, part: 0, position: 0, pointCount: three.pointCount, data: three.data, into: &content)
        try assembler.finish(into: &content)
        #expect(content.tracks.count == 1 && content.tracks[0].segments.map(\.points.count) == [5, 0])
        #expect(content.routes.map(\.points.count) == [0, 2])
        #expect(content.waypoints.count == 3)
    }

    @Test(arguments: [
        (0, 0, 0, PackedPoints.blockCapacity + 1), (0, PointRunAssembler.maximumIndex, 0, 1), (0, 0, -1, 1), (7, 0, 0, 1),
    ])
    func impossibleRowsAreDamage(role: Int, part: Int, position: Int, pointCount: Int) throws {
        var content = TrackContent()
        var assembler = PointRunAssembler(trackID: Self.trackID)
        #expect {
            try assembler.add(role: role, part: part, position: position, pointCount: pointCount, data: Self.block(1).data, into: &content)
            try assembler.finish(into: &content)
        } throws: { error in
            if case RideStoreError.damaged = error { return true }
            return false
        }
    }

    @Test func theListPlanChecksItsQueryAndFoldsItsWords() throws {
        let plan = try TrackListPlan(TrackQuery(search: "Ride 50%_Off", limit: 2, kinds: [.run, .ride]))
        #expect(plan.rowLimit == 3)
        #expect(plan.kinds == ["ride", "run"])
        #expect(plan.words.map(\.pattern) == ["%ride%", "%50\\%\\_off%"])
        #expect(plan.words.map(\.kind) == [.ride, nil])
        #expect(plan.completeOrDevice && !plan.deletedOnly && plan.after == nil)
        #expect(throws: RideStoreError.self) { try TrackListPlan(TrackQuery(limit: 0)) }
        #expect(throws: RideStoreError.self) { try TrackListPlan(TrackQuery(limit: 10, cursor: "not a cursor")) }
        #expect(throws: RideStoreError.self) { try TrackListPlan(TrackQuery(search: "a\u{0}b", limit: 10)) }
        #expect(try TrackListPlan(TrackQuery(limit: 10, cursor: "1700000000000.ABCDEFGH")).after?.sortKey == 1_700_000_000_000)
    }

    @Test func renamingATrackRenamesItsSingleTrkOrRoute() throws {
        func record(_ content: TrackContent) throws -> TrackRecord {
            var record = TrackRules.emptyRecord(id: Self.trackID, userID: .random(), name: "Old", kind: .ride, source: .file, now: Date())
            try TrackRules.fill(
                &record, with: NewTrack(name: "Old", kind: .ride, content: content, stats: TrackStats(activity: .ride), preview: []),
                importID: nil, position: 0, now: Date())
            return record
        }
        let oneTrk = TrackContent(tracks: [PackedTrack(header: Track(name: "Old"), segments: [PackedSegment()])])
        let twoTrks = TrackContent(tracks: [PackedTrack(header: Track(name: "A"), segments: []), PackedTrack(header: Track(name: "B"), segments: [])])
        let oneRoute = TrackContent(routes: [PackedRoute(header: Route(name: "Old"), points: PackedPoints())])
        for (content, names) in [(oneTrk, ["New"]), (twoTrks, ["A", "B"]), (oneRoute, ["New"])] {
            var changed = try record(content)
            try TrackRules.apply(TrackChanges(name: " New\n"), to: &changed, now: Date())
            #expect(changed.name == "New")
            let headers = try TrackHeaderCodec.decode(changed.gpxHeader, version: changed.gpxVersion, creator: changed.gpxCreator)
            #expect((headers.tracks.map(\.header.name) + headers.routes.map(\.header.name)).compactMap { $0 } == names)
        }
    }

    @Test func deviceFiguresAreDueAfterEnoughNewPointsOrAMinute() {
        // 60 new points on a fresh track: due; 59 within a minute: not yet; 59 a minute on: due.
        #expect(DeviceIngestRules.figuresAreDue(pointCount: 60, figuresPointCount: nil, figuresUntil: nil, lastFixTime: 0))
        #expect(!DeviceIngestRules.figuresAreDue(pointCount: 159, figuresPointCount: 100, figuresUntil: 1_000, lastFixTime: 30_000))
        #expect(DeviceIngestRules.figuresAreDue(pointCount: 159, figuresPointCount: 100, figuresUntil: 1_000, lastFixTime: 61_000))
        // Fewer than 1 % more points: never, however long.
        #expect(!DeviceIngestRules.figuresAreDue(pointCount: 10_050, figuresPointCount: 10_000, figuresUntil: 0, lastFixTime: 600_000))
        #expect(DeviceIngestRules.gapMilliseconds(10) == 60_000 && DeviceIngestRules.gapMilliseconds(1800) == 1_800_000)
    }
}

extension StoreCoreTests {
    @Test func aDevicesFixesArePlacedByTheGap() {
        let minute: Int64 = 60_000, gap = 30 * minute
        var placement = DeviceTrackPlacement(hasLiveTrack: true, bounds: (10 * minute, 20 * minute), gapMilliseconds: gap)
        #expect(placement.place(21 * minute) == .append(finishesLive: false, startsTrack: false))
        #expect(placement.place(15 * minute) == .rebuild)
        #expect(placement.place(21 * minute - 1) == .rebuild)
        // Before the first fix by more than the gap: late; within it: part of the track.
        #expect(placement.place(10 * minute - gap - 1) == .late)
        #expect(placement.place(10 * minute - gap) == .rebuild)
        #expect(placement.bounds?.first == 10 * minute - gap && placement.bounds?.last == 21 * minute)
        // After the last fix by more than the gap: the live track ends, a new one starts.
        #expect(placement.place(51 * minute + 1) == .append(finishesLive: true, startsTrack: true))
        #expect(placement.bounds?.first == 51 * minute + 1)
        #expect(placement.place(52 * minute) == .append(finishesLive: false, startsTrack: false))

        var fresh = DeviceTrackPlacement(hasLiveTrack: false, bounds: nil, gapMilliseconds: gap)
        #expect(fresh.place(0) == .append(finishesLive: false, startsTrack: true))
        #expect(fresh.place(0 - 1) == .rebuild)
        // A live track without fixes yet takes the first one as its start.
        var empty = DeviceTrackPlacement(hasLiveTrack: true, bounds: nil, gapMilliseconds: gap)
        #expect(empty.place(5) == .append(finishesLive: false, startsTrack: false))
    }
}

extension StoreCoreTests {
    @Test func thePlacesPlanFoldsItsSearchAndPagesTheNearestFirst() {
        let plan = PlaceListPlan(PlaceQuery(search: "  Café 10%\n", labelIDs: [LabelID("BBBBBBBB")!, LabelID("AAAAAAAA")!], order: .name, limit: -1, offset: -5))
        #expect(plan.searchPattern == "%café 10\\%%")
        #expect(plan.labelIDs == ["AAAAAAAA", "BBBBBBBB"])
        #expect(plan.limit == 0 && plan.offset == 0)
        #expect(PlaceListPlan(PlaceQuery(search: "   ")).searchPattern == nil)

        let origin = Coordinate(latitude: 46.5, longitude: 6.6)
        let rows = [("CCCCCCCC", 0.02), ("AAAAAAAA", 0.01), ("BBBBBBBB", 0.01), ("DDDDDDDD", 0.0)]
        let near = PlaceListPlan(PlaceQuery(order: .distance(from: origin), limit: 2, offset: 1))
        let arranged = near.nearestFirst(rows, id: { PlaceID($0.0)! }, coordinate: { Coordinate(latitude: 46.5 + $0.1, longitude: 6.6) })
        #expect(arranged.map(\.0) == ["AAAAAAAA", "BBBBBBBB"])
        // Another order leaves the rows as the store read them.
        #expect(plan.nearestFirst(rows, id: { PlaceID($0.0)! }, coordinate: { _ in origin }).map(\.0) == rows.map(\.0))
    }
}

extension StoreCoreTests {
    @Test func shareLinksShowWhileTheyAreNotRevokedExpiredOrOrphaned() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(ShareLinkRules.placeLinkShows(targetKind: "place", revokedAt: nil, placeIsTheOwners: true))
        #expect(!ShareLinkRules.placeLinkShows(targetKind: "place", revokedAt: now, placeIsTheOwners: true))
        #expect(!ShareLinkRules.placeLinkShows(targetKind: "place", revokedAt: nil, placeIsTheOwners: false))
        #expect(!ShareLinkRules.placeLinkShows(targetKind: "device", revokedAt: nil, placeIsTheOwners: true))

        func live(expiresIn seconds: Double = 60, revoked: Bool = false, device: Bool = true, ride: TrackID? = nil, recording: Bool = false) -> Bool {
            ShareLinkRules.liveShareShows(
                targetKind: "device", revokedAt: revoked ? now : nil, expiresAt: now.addingTimeInterval(seconds), now: now,
                deviceIsTheOwners: device, madeForRide: ride, rideIsRecording: recording)
        }
        #expect(live())
        #expect(!live(expiresIn: 0) && !live(expiresIn: -1) && live(expiresIn: 0.001))
        #expect(!live(revoked: true) && !live(device: false))
        #expect(!live(ride: Self.trackID) && live(ride: Self.trackID, recording: true))
        #expect(!ShareLinkRules.liveShareShows(
            targetKind: "place", revokedAt: nil, expiresAt: now.addingTimeInterval(60), now: now, deviceIsTheOwners: true, madeForRide: nil,
            rideIsRecording: false))
    }
}

extension StoreCoreTests {
    @Test func aTrackTailMergesLikeABinaryCounter() {
        #expect(PointTail.blocksToMerge(tailNewestFirst: [], adding: 7) == 0)
        #expect(PointTail.blocksToMerge(tailNewestFirst: [7], adding: 7) == 1)
        #expect(PointTail.blocksToMerge(tailNewestFirst: [7, 14], adding: 7) == 2)
        #expect(PointTail.blocksToMerge(tailNewestFirst: [7, 28], adding: 7) == 1)
        #expect(PointTail.blocksToMerge(tailNewestFirst: [1000], adding: 100) == 0)
        #expect(PointTail.blocksToMerge(tailNewestFirst: [10], adding: 1024) == 0)
        // Appending 7 at a time 1,500 times keeps the tail at a handful of blocks, each at most 1,024.
        var tail: [Int] = []
        for _ in 0..<1500 {
            let merged = PointTail.blocksToMerge(tailNewestFirst: tail, adding: 7)
            let run = 7 + tail.prefix(merged).reduce(0, +)
            tail = [run] + tail.dropFirst(merged)
        }
        #expect(tail.reduce(0, +) == 10_500 && tail.allSatisfy { $0 <= 1024 } && tail.count <= 24, "\(tail)")
        #expect(!PointTail.needsRepacking([1024, 1024, 3]) && !PointTail.needsRepacking([5]) && !PointTail.needsRepacking([]))
        #expect(PointTail.needsRepacking([1024, 7, 3]))
    }
}
