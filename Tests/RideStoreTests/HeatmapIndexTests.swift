import Foundation
import Testing

import RideKit
@testable import RideStore

/// Issue 22's heatmap index on both stores: tiles read from the index show the pixels a ride's fixes fall in (by the
/// Web Mercator formula here), filters by kind and year, deleting and restoring and changing a track keep the index in
/// step, and an index kept incrementally equals one built anew.
@Suite struct HeatmapIndexTests {
    /// A straight line north of `origin`, `meters` long in 10 m steps (1 s apart), as GPX.
    static func gpx(name: String, start: String, origin: Coordinate, meters: Int = 3000, type: String? = nil) throws -> Data {
        let startTime = try GPXTime(parsing: start)
        let points = (0...(meters / 10)).map { index -> String in
            let p = origin.destination(distanceMeters: Double(index) * 10, bearingDegrees: 0)
            let time = GPXTime(secondsSince1970: startTime.secondsSince1970 + Int64(index)).rfc3339
            return #"<trkpt lat="\#(p.latitude)" lon="\#(p.longitude)"><time>\#(time)</time></trkpt>"#
        }
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><name>\(name)</name>\(type.map { "<type>\($0)</type>" } ?? "")<trkseg>\(points.joined(separator: "\n"))</trkseg></trk>
            </gpx>
            """.utf8)
    }

    static let lausanne = Coordinate(latitude: 46.5, longitude: 6.6)
    static let geneva = Coordinate(latitude: 46.2, longitude: 6.14)

    /// The pixel (tile and x, y in it) of a coordinate, by the formula.
    static func pixel(_ c: Coordinate, zoom: Int) -> (tile: MapTile, x: Int, y: Int) {
        let n = pow(2.0, Double(zoom)) * 256
        let lat = c.latitude * .pi / 180
        let px = Int(((c.longitude + 180) / 360 * n).rounded(.down))
        let py = Int(((1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2 * n).rounded(.down))
        return (MapTile(x: px / 256, y: py / 256, zoom: zoom), px % 256, py % 256)
    }

    static func count(_ store: any RideStore, _ c: Coordinate, zoom: Int, userID: UserID, filter: HeatmapFilter = HeatmapFilter()) async throws -> UInt32 {
        let p = pixel(c, zoom: zoom)
        return try await store.heatmapTile(HeatmapRequest(tile: p.tile, filter: filter), userID: userID).counts[p.x, p.y]
    }

    @Test(arguments: StoreKind.allCases) func ridesAppearInTheirPixelsFilteredByKindAndYear(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let store = library.store, user = library.userID
            let ride = try await library.importData(Self.gpx(name: "Ride", start: "2023-05-04T08:00:00Z", origin: Self.lausanne), fileName: "a.gpx").tracks[0]
            _ = try await library.importData(
                Self.gpx(name: "Run", start: "2024-05-04T08:00:00Z", origin: Self.lausanne, type: "running"), fileName: "b.gpx")
            let middle = Self.lausanne.destination(distanceMeters: 1500, bearingDegrees: 0)
            for zoom in [5, 10, 13, 14, 16, 18] {
                #expect(try await Self.count(store, middle, zoom: zoom, userID: user) == 2, "zoom \(zoom)")
                #expect(try await Self.count(store, middle, zoom: zoom, userID: user, filter: HeatmapFilter(kind: .ride)) == 1)
                #expect(try await Self.count(store, middle, zoom: zoom, userID: user, filter: HeatmapFilter(kind: .walk)) == 0)
                #expect(try await Self.count(store, middle, zoom: zoom, userID: user, filter: HeatmapFilter(year: 2024)) == 1)
                #expect(try await Self.count(store, middle, zoom: zoom, userID: user, filter: HeatmapFilter(kind: .ride, year: 2024)) == 0)
            }
            // 200 m east of the line at zoom 16 (about 1.6 m a pixel): nothing; a tile away from every ride: empty.
            #expect(try await Self.count(store, middle.destination(distanceMeters: 200, bearingDegrees: 90), zoom: 16, userID: user) == 0)
            #expect(try await store.heatmapTile(HeatmapRequest(tile: Self.pixel(Self.geneva, zoom: 15).tile, filter: HeatmapFilter()), userID: user).counts.isEmpty)

            // Delete, restore, change the kind: each is in the tiles at once and raises the version.
            let v0 = try #require(try await store.heatmapVersion(userID: user))
            _ = try await store.deleteTracks(ids: [ride.id], userID: user)
            #expect(try await Self.count(store, middle, zoom: 15, userID: user) == 1)
            #expect(try await Self.count(store, middle, zoom: 8, userID: user, filter: HeatmapFilter(kind: .ride)) == 0)
            let v1 = try #require(try await store.heatmapVersion(userID: user))
            #expect(v1 > v0)
            _ = try await store.restoreTracks(ids: [ride.id], userID: user)
            #expect(try await Self.count(store, middle, zoom: 15, userID: user) == 2)
            // A rename changes no pixel: the index is left as it was.
            let beforeRename = try await store.heatmapVersion(userID: user)
            _ = try await store.updateTrack(id: ride.id, userID: user, TrackChanges(name: "Renamed"))
            #expect(try await store.heatmapVersion(userID: user) == beforeRename)
            _ = try await store.updateTrack(id: ride.id, userID: user, TrackChanges(kind: .walk))
            #expect(try await Self.count(store, middle, zoom: 17, userID: user, filter: HeatmapFilter(kind: .walk)) == 1)
            #expect(try await Self.count(store, middle, zoom: 9, userID: user, filter: HeatmapFilter(kind: .ride)) == 0)
            #expect(try await store.heatmapVersion(userID: user)! > v1)
            _ = try await store.purgeTracks(ids: [ride.id], userID: user)
            #expect(try await Self.count(store, middle, zoom: 12, userID: user) == 1)
            #expect(try await Self.count(store, middle, zoom: 16, userID: user) == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func explorerTilesAreTheTilesOfTheFixesAndTheIndexRebuildsTheSame(_ kind: StoreKind) async throws {
        try await withLibrary(kind) { library in
            let store = library.store, user = library.userID
            var expected = Set<TileXY>()
            for (i, origin) in [Self.lausanne, Self.geneva, Self.lausanne.destination(distanceMeters: 700, bearingDegrees: 80)].enumerated() {
                _ = try await library.importData(Self.gpx(name: "R\(i)", start: "2024-0\(i + 1)-04T08:00:00Z", origin: origin, meters: 6000), fileName: "\(i).gpx")
                // 10 m steps northwards: every zoom-14 tile crossed holds fixes.
                for step in 0...600 {
                    let t = Self.pixel(origin.destination(distanceMeters: Double(step) * 10, bearingDegrees: 0), zoom: 14).tile
                    expected.insert(TileXY(x: t.x, y: t.y))
                }
            }
            let explorer = try await store.explorerTiles(filter: HeatmapFilter(), userID: user)
            #expect(Set(explorer.tiles) == expected)
            #expect(try await store.explorerTiles(filter: HeatmapFilter(year: 2024), userID: user).tiles.count == expected.count)
            #expect(try await store.explorerTiles(filter: HeatmapFilter(year: 2023), userID: user).tiles.isEmpty)

            let probes = [Self.lausanne, Self.geneva].flatMap { o in [0, 8, 12, 14, 17].map { (o.destination(distanceMeters: 2000, bearingDegrees: 0), $0) } }
            var before: [HeatmapCounts] = []
            for (c, zoom) in probes { before.append(try await store.heatmapTile(HeatmapRequest(tile: Self.pixel(c, zoom: zoom).tile, filter: HeatmapFilter()), userID: user).counts) }
            let report = try await store.rebuildHeatmap(userID: user)
            #expect(report.trackCount == 3 && report.pointCount == 3 * 601)
            for (i, (c, zoom)) in probes.enumerated() {
                let after = try await store.heatmapTile(HeatmapRequest(tile: Self.pixel(c, zoom: zoom).tile, filter: HeatmapFilter()), userID: user)
                #expect(after.counts == before[i], "zoom \(zoom)")
                #expect(after.version == report.version)
            }
        }
    }
}
