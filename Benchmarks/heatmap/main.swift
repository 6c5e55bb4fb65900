// The heatmap benchmark (issue 22): Benchmarks/run-heatmap.sh builds it in release and runs it.
//
//   heatmap-bench [--rides 3000] [--points 10000] [--db PATH] [--postgres URL]
//
// Generates RIDES rides of POINTS fixes each (1 Hz, 6–9 m/s, on a street grid of 250 m around three homes in Zurich,
// with 3 m of GPS noise, so that streets near home are ridden by thousands of rides: the dense tiles), saves them
// (timed apart: that is the store, not the index), then measures in one run:
//   - building the index from every track's points (points/s),
//   - adding one more ride of POINTS fixes (its save, with the index kept in the same transaction, and the index's
//     share of it),
//   - tiles (read from the index, drawn, PNG-encoded, as the server does before caching): p50/p99/max over zoom 0–3
//     and over zoom 4–18 at the homes (the densest places), along rides, and at random places of the region.
// Prints one line of JSON per phase.
import Foundation
import RideKit
import RideStore
import RideStorePostgres

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("heatmap-bench: \(message)\n".utf8))
    exit(1)
}

func json(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

func seconds(since start: UInt64) -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func gaussian(_ sigma: Double) -> Double {
        sigma * (-2 * log(max(unit(), 1e-300))).squareRoot() * cos(2 * .pi * unit())
    }
}

let homes = [Coordinate(latitude: 47.3769, longitude: 8.5417), Coordinate(latitude: 47.4000, longitude: 8.5000), Coordinate(latitude: 47.3400, longitude: 8.6000)]

/// One ride: `count` fixes, 1 s apart, along a 250 m street grid from one of the homes.
func ride(_ index: Int, count: Int) -> NewTrack {
    var random = SplitMix(state: UInt64(index) &* 7919 &+ 1)
    let home = homes[index % homes.count]
    let metersPerDegreeLatitude = 111_320.0, metersPerDegreeLongitude = 111_320.0 * cos(home.latitude * .pi / 180)
    var east = 0.0, north = 0.0
    var direction = Int(random.next() % 4)
    let speed = 6 + 3 * random.unit()
    let start = Int64(1_704_067_200 + index * 9_000)  // from 2024-01-01, rides 2.5 h apart: 2024 and 2025
    var points: [TrackPoint] = []
    points.reserveCapacity(count)
    for step in 0..<count {
        let (dx, dy) = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)][direction]
        let before = (east, north)
        east += dx * speed
        north += dy * speed
        // At a crossing: turn left, right or go on.
        if Int((before.0 / 250).rounded(.down)) != Int((east / 250).rounded(.down)) || Int((before.1 / 250).rounded(.down)) != Int((north / 250).rounded(.down)) {
            let choice = random.next() % 3
            if choice == 1 { direction = (direction + 1) % 4 } else if choice == 2 { direction = (direction + 3) % 4 }
            // Snap to the street so that rides share it.
            if dx != 0 { east = (east / 250).rounded() * 250 } else { north = (north / 250).rounded() * 250 }
        }
        let latitude = home.latitude + (north + random.gaussian(3)) / metersPerDegreeLatitude
        let longitude = home.longitude + (east + random.gaussian(3)) / metersPerDegreeLongitude
        points.append(TrackPoint(latitude: latitude, longitude: longitude, elevation: 420, time: GPXTime(secondsSince1970: start + Int64(step))))
    }
    let document = GPXDocument(tracks: [Track(name: "Ride \(index)", segments: [TrackSegment(points: points)])])
    return NewTrack(name: "Ride \(index)", kind: .ride, content: TrackContent(document: document), stats: document.stats())
}

func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))] }

var rides = 3000, pointsPerRide = 10_000
var databasePath = "Benchmarks/data/heatmap.sqlite"
var postgresURL: String?
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let argument = iterator.next() {
    switch argument {
    case "--rides": rides = Int(iterator.next() ?? "") ?? rides
    case "--points": pointsPerRide = Int(iterator.next() ?? "") ?? pointsPerRide
    case "--db": databasePath = iterator.next() ?? databasePath
    case "--postgres": postgresURL = iterator.next()
    default: fail("unknown argument \(argument)")
    }
}

do {
    let store: any RideStore
    if let postgresURL {
        store = try await PostgresRideStore.open(.init(url: try PostgresDatabaseURL(parsing: postgresURL), maximumConnections: 4), logger: .init(label: "bench"))
    } else {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: databasePath + suffix) }
        try FileManager.default.createDirectory(atPath: (databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        store = try SQLiteRideStore(path: databasePath)
    }
    let user = try await store.localUser()

    // 1. The library (not the index: it is built on first use).
    var start = DispatchTime.now().uptimeNanoseconds
    let batch = 50
    for first in stride(from: 0, to: rides, by: batch) {
        let tracks = (first..<min(rides, first + batch)).map { ride($0, count: pointsPerRide) }
        _ = try await store.saveImport(
            TrackImport(source: ImportSource(fileName: nil, format: .gpx, contentHash: "bench-\(first)", byteCount: 0), tracks: tracks), userID: user.id)
    }
    json(["phase": "library", "rides": rides, "points": rides * pointsPerRide, "seconds": seconds(since: start)])

    // 2. The index, from every track's points.
    start = DispatchTime.now().uptimeNanoseconds
    let report = try await store.rebuildHeatmap(userID: user.id)
    let buildSeconds = seconds(since: start)
    json([
        "phase": "build index", "tracks": report.trackCount, "points": report.pointCount, "seconds": buildSeconds,
        "pointsPerSecond": Double(report.pointCount) / buildSeconds,
    ])

    // 3. One more ride, saved with the index kept in the same transaction; and the same save without an index.
    let extra = ride(rides, count: pointsPerRide)
    start = DispatchTime.now().uptimeNanoseconds
    _ = try await store.saveImport(
        TrackImport(source: ImportSource(fileName: nil, format: .gpx, contentHash: "bench-extra", byteCount: 0), tracks: [extra]), userID: user.id)
    let withIndex = seconds(since: start)
    let line = try HeatmapIndexRules.line(of: extra.content)
    start = DispatchTime.now().uptimeNanoseconds
    _ = HeatmapIndexRules.index(line, entry: .init(kind: "ride", year: 2025, signature: 0))
    let geometry = seconds(since: start)
    json(["phase": "add one ride", "points": pointsPerRide, "saveWithIndexSeconds": withIndex, "indexGeometrySeconds": geometry])

    // 4. Tiles.
    var random = SplitMix(state: 22)
    var requests: [(label: String, tile: MapTile)] = []
    for zoom in 0...3 {
        for home in homes { requests.append(("z0-3", MapTile(containing: home, zoom: zoom))) }
    }
    for zoom in 4...18 {
        for home in homes {
            for _ in 0..<4 {
                // At home: the street crossings every ride starts from.
                let c = Coordinate(latitude: home.latitude + random.gaussian(0.002), longitude: home.longitude + random.gaussian(0.003))
                requests.append(("home z\(zoom)", MapTile(containing: c, zoom: zoom)))
            }
        }
        for _ in 0..<8 {
            let home = homes[Int(random.next() % 3)]
            let c = Coordinate(latitude: home.latitude + random.gaussian(0.03), longitude: home.longitude + random.gaussian(0.045))
            requests.append(("region z\(zoom)", MapTile(containing: c, zoom: zoom)))
        }
    }
    var all: [Double] = [], byGroup: [String: [Double]] = [:], dense: [Double] = []
    var nonEmpty = 0
    var slowest = ("", 0.0)
    for request in requests {
        let z = request.tile.zoom
        start = DispatchTime.now().uptimeNanoseconds
        let tile = try await store.heatmapTile(HeatmapRequest(tile: request.tile, filter: HeatmapFilter()), userID: user.id)
        _ = HeatmapStyle.png(tile.counts)
        let ms = seconds(since: start) * 1000
        if !tile.counts.isEmpty { nonEmpty += 1 }
        all.append(ms)
        let group = z <= 3 ? "z0-3" : z <= 8 ? "z4-8" : z <= 13 ? "z9-13" : "z14-18"
        byGroup[group, default: []].append(ms)
        if request.label.hasPrefix("home"), z >= 14 { dense.append(ms) }
        if ms > slowest.1 { slowest = ("\(z)/\(request.tile.x)/\(request.tile.y)", ms) }
    }
    func summary(_ values: [Double]) -> [String: Double] {
        let sorted = values.sorted()
        return ["p50": percentile(sorted, 0.5), "p99": percentile(sorted, 0.99), "max": sorted.last ?? 0, "count": Double(sorted.count)]
    }
    var groups: [String: Any] = [:]
    for (group, values) in byGroup { groups[group] = summary(values) }
    json([
        "phase": "tiles", "tiles": all.count, "nonEmpty": nonEmpty, "allMilliseconds": summary(all), "byZoom": groups,
        "denseZ14to18Milliseconds": summary(dense), "slowest": slowest.0, "slowestMilliseconds": slowest.1,
    ])
    // Explorer tiles (the whole list and its square and cluster).
    start = DispatchTime.now().uptimeNanoseconds
    let explorer = ExplorerTiles(visited: try await store.explorerTiles(filter: HeatmapFilter(), userID: user.id).tiles)
    json([
        "phase": "explorer", "tiles": explorer.visited.count, "maxSquare": explorer.maximumSquare?.size ?? 0,
        "maxCluster": explorer.maximumCluster.count, "milliseconds": seconds(since: start) * 1000,
    ])
    if let postgres = store as? PostgresRideStore { await postgres.close() }
} catch {
    fail("\(error)")
}
