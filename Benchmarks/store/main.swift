// The store benchmark's measuring program (Benchmarks/run-store.sh builds it in release and runs it).
//
//   ridestore-bench import FILE DB     import FILE into a new database DB; prints points, seconds, points/s, bytes
//   ridestore-bench csv FILE OUT       the same points as CSV (track, seq, lat, lon, ele, time) for the sqlite3 shell
//   ridestore-bench read FILE DB       import FILE, then read its track back whole (points decoded), best of runs
//   ridestore-bench list DB COUNT      save COUNT small tracks, then list pages of 50 (first, deep, search)
//   ridestore-bench seed FILE STORE    import FILE into STORE (a SQLite file, or postgres://… of a migrated
//                                      database) as `bikeride import` does, without the documents folder's copies
//   ridestore-bench across COUNT STORE  save COUNT tracks (4 years, best efforts measured), then time the records,
//                                      a track's ranks and the overview (issue 22); STORE a SQLite path or postgres://…
//   ridestore-bench bigtrack POINTS STORE  save one track of POINTS points (1,000 km north and back, 2 m and
//                                      1 s apart, in segments of 1M) for the local user of STORE, written as blocks
//                                      straight through the store, never as a file (issue 20: Benchmarks/run-track-read.sh)
//
// Each prints one line of JSON.
import Foundation
import RideKit
import RideStore
import RideStorePostgres

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("ridestore-bench: \(message)\n".utf8))
    exit(1)
}

func json(_ object: [String: Any]) {
    let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}

func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
}

func freshStore(_ path: String) throws -> SQLiteRideStore {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    return try SQLiteRideStore(path: path)
}

/// Median and minimum of `runs` timings of `body`, milliseconds.
func measure(runs: Int, _ body: () async throws -> Void) async throws -> (median: Double, best: Double) {
    var times: [Double] = []
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        try await body()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    times.sort()
    return (times[times.count / 2], times[0])
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: ridestore-bench import|csv|read|list …") }

do {
    switch arguments[1] {
    case "import":
        guard arguments.count == 4 else { fail("usage: ridestore-bench import FILE DB") }
        let store = try freshStore(arguments[3])
        let library = TrackLibrary(store: store, userID: try await store.localUser().id)
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome = try await library.importFile(at: URL(filePath: arguments[2]))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        // Bytes on disk once the WAL is folded into the database, as after any quiet moment.
        try await store.checkpoint()
        let bytes = fileSize(arguments[3]) + fileSize(arguments[3] + "-wal")
        json([
            "points": outcome.pointCount, "seconds": seconds, "pointsPerSecond": Double(outcome.pointCount) / seconds,
            "databaseBytes": bytes, "bytesPerPoint": Double(bytes) / Double(max(1, outcome.pointCount)),
            "tracks": outcome.tracks.count,
        ])

    case "csv":
        guard arguments.count == 4 else { fail("usage: ridestore-bench csv FILE OUT") }
        let document = try GPXReader.read(contentsOf: URL(filePath: arguments[2]))
        var text = ""
        text.reserveCapacity(80 << 20)
        var count = 0
        for (trackIndex, track) in document.tracks.enumerated() {
            for point in track.segments.flatMap(\.points) {
                text += "\(trackIndex + 1),\(count),\(point.latitude),\(point.longitude),\(point.elevation.map { "\($0)" } ?? ""),\(point.time?.rfc3339 ?? "")\n"
                count += 1
            }
        }
        try Data(text.utf8).write(to: URL(filePath: arguments[3]))
        json(["points": count])

    case "read":
        guard arguments.count == 4 else { fail("usage: ridestore-bench read FILE DB") }
        let store = try freshStore(arguments[3])
        let user = try await store.localUser()
        let library = TrackLibrary(store: store, userID: user.id)
        let outcome = try await library.importFile(at: URL(filePath: arguments[2]))
        guard let id = outcome.tracks.first?.id else { fail("nothing imported") }
        var points = 0
        let timing = try await measure(runs: 9) {
            guard let track = try await store.track(id: id, userID: user.id) else { fail("track gone") }
            points = try track.content.document().tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
        }
        json(["points": points, "medianMilliseconds": timing.median, "bestMilliseconds": timing.best])

    case "list":
        guard arguments.count == 4, let count = Int(arguments[3]) else { fail("usage: ridestore-bench list DB COUNT") }
        let store = try freshStore(arguments[2])
        let user = try await store.localUser()
        // COUNT tracks of 100 points each, a day apart, saved in one import.
        var tracks: [NewTrack] = []
        for index in 0..<count {
            let start = Int64(1_500_000_000 + index * 86_400)
            let base = 46 + Double(index % 1000) / 1000
            var points: [TrackPoint] = []
            for step in 0..<100 {
                let offset = Double(step) / 10_000
                points.append(
                    TrackPoint(latitude: base + offset, longitude: 7 + offset, elevation: 500, time: GPXTime(secondsSince1970: start + Int64(step))))
            }
            let document = GPXDocument(tracks: [Track(name: "Ride \(index) to \(["the lake", "work", "the hills", "town"][index % 4])", segments: [TrackSegment(points: points)])])
            tracks.append(NewTrack(name: document.tracks[0].name!, kind: .ride, content: TrackContent(document: document), stats: document.stats()))
        }
        _ = try await store.saveImport(
            TrackImport(source: ImportSource(fileName: nil, format: .gpx, contentHash: "bench", byteCount: 0), tracks: tracks), userID: user.id)
        var cursor: String?
        for _ in 0..<100 { cursor = try await store.tracks(TrackQuery(limit: 50, cursor: cursor), userID: user.id).nextCursor }
        let deepCursor = cursor
        var listed = 0
        let first = try await measure(runs: 51) { listed = try await store.tracks(TrackQuery(limit: 50), userID: user.id).tracks.count }
        let deep = try await measure(runs: 51) { _ = try await store.tracks(TrackQuery(limit: 50, cursor: deepCursor), userID: user.id) }
        let search = try await measure(runs: 51) { _ = try await store.tracks(TrackQuery(search: "lake", limit: 50), userID: user.id) }
        json([
            "tracks": count, "listed": listed, "firstPageMedianMilliseconds": first.median, "deepPageMedianMilliseconds": deep.median,
            "searchMedianMilliseconds": search.median,
        ])

    case "bigtrack":
        guard arguments.count == 4, let count = Int(arguments[2]), count > 0 else { fail("usage: ridestore-bench bigtrack POINTS STORE") }
        let store = try SQLiteRideStore(path: arguments[3])
        let user = try await store.localUser()
        let start = DispatchTime.now().uptimeNanoseconds
        let segmentSize = 1_000_000
        // Efforts measured as an import measures them: the server's start-up backfill then has nothing to read again.
        var stats = TrackStatsAccumulator(activity: .ride, measuringEfforts: true)
        stats.beginTrack()
        var segments: [PackedSegment] = []
        let origin = Date(timeIntervalSince1970: 1_714_543_200)  // 2024-05-01 06:00 UTC
        for index in 0..<count {
            if index % segmentSize == 0 {
                stats.beginSegment()
                segments.append(PackedSegment())
            }
            // 2 m a second, north for 500,000 points (1,000 km) then back south, and so on (never past a pole), climbing
            // 0.01 m a point.
            let leg = 500_000
            let along = (index / leg) % 2 == 0 ? index % leg : leg - index % leg
            var point = TrackPoint(latitude: 40 + Double(along) * (2 / 111_195), longitude: 8 + Double(index / leg) * 1e-4)
            point.elevation = 400 + Double(index) * 0.01
            point.time = GPXTime(date: origin.addingTimeInterval(Double(index)))
            stats.add(point)
            segments[segments.count - 1].points.append(point)
        }
        var header = Track()
        header.name = "\(count) points"
        let content = TrackContent(tracks: [PackedTrack(header: header, segments: segments)])
        let batch = TrackImport(
            source: ImportSource(fileName: "bigtrack.gpx", format: .gpx, contentHash: UUID().uuidString, byteCount: 0),
            tracks: [NewTrack(name: "\(count) points", kind: .ride, content: content, stats: stats.finish())], allowsDuplicate: true)
        guard case .imported(_, let tracks, _) = try await store.saveImport(batch, userID: user.id) else { fail("not saved") }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        json(["id": tracks[0].id.rawValue, "points": tracks[0].pointCount, "seconds": seconds])

    case "seed":
        // `bikeride import FILE` through the same `TrackLibrary.importFile` (one transaction: the tracks, their
        // blocks, figures and previews), but with no documents folder: the command would then write every track
        // as a file of its own, flushed, and record it in its own transaction, about 13 ms a track on this machine
        // (Benchmarks/README.md, "SQLite and PostgreSQL side by side"). PostgreSQL has no documents folder anyway.
        guard arguments.count == 4 else { fail("usage: ridestore-bench seed FILE STORE") }
        let target = arguments[3]
        let store: any RideStore
        var postgres: PostgresRideStore?
        if target.hasPrefix("postgres://") || target.hasPrefix("postgresql://") {
            guard let url = try PostgresDatabaseURL.configured(option: target, passwordFile: nil) else { fail("not a database URL: \(target)") }
            let opened = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2))
            postgres = opened
            store = opened
        } else {
            if FileManager.default.fileExists(atPath: target) { fail("\(target) exists: seed makes a new database") }
            store = try SQLiteRideStore(path: target)
        }
        let library = TrackLibrary(store: store, userID: try await store.localUser().id)
        let start = DispatchTime.now().uptimeNanoseconds
        let outcome = try await library.importFile(at: URL(filePath: arguments[2]))
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        await postgres?.close()
        json(["tracks": outcome.tracks.count, "points": outcome.pointCount, "seconds": seconds])

    case "across":
        guard arguments.count == 4, let count = Int(arguments[2]), count > 0 else { fail("usage: ridestore-bench across COUNT STORE") }
        let target = arguments[3]
        let store: any RideStore
        var postgres: PostgresRideStore?
        if target.hasPrefix("postgres://") || target.hasPrefix("postgresql://") {
            guard let url = try PostgresDatabaseURL.configured(option: target, passwordFile: nil) else { fail("not a database URL: \(target)") }
            let opened = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2))
            postgres = opened
            store = opened
        } else {
            store = try freshStore(target)
        }
        let user = try await store.localUser()
        // COUNT tracks over four years (2022–2025), 100 to 1,000 points 100 m and 8–14 s apart (10–100 km): every
        // fastest distance up to 100 km occurs, about a dozen efforts a track; 80 % rides, 15 % runs, 5 % walks.
        var generator = SystemRandomNumberGenerator()
        var saved = 0, points = 0
        let seedStart = DispatchTime.now().uptimeNanoseconds
        while saved < count {
            var batch: [NewTrack] = []
            for index in saved..<min(count, saved + 100) {
                let kind: TrackKind = index % 20 < 16 ? .ride : (index % 20 < 19 ? .run : .walk)
                var clock = Double(1_640_995_200 + Int64(index) * (4 * 365 * 86_400) / Int64(count)) + 7 * 3600
                let origin = Coordinate(latitude: 46 + Double(index % 50) / 100, longitude: 7 + Double(index % 37) / 100)
                let n = Int.random(in: 100...1000, using: &generator)
                var trackPoints: [TrackPoint] = []
                trackPoints.reserveCapacity(n)
                for step in 0..<n {
                    let position = origin.destination(distanceMeters: Double(step) * 100, bearingDegrees: 30)
                    trackPoints.append(
                        TrackPoint(latitude: position.latitude, longitude: position.longitude, elevation: 400 + Double(step % 50), time: GPXTime(secondsSince1970: Int64(clock))))
                    clock += Double.random(in: kind == .ride ? 8...14 : 25...40, using: &generator)
                }
                points += n
                let document = GPXDocument(tracks: [Track(name: "\(kind.rawValue) \(index)", segments: [TrackSegment(points: trackPoints)])])
                let stats = document.tracks[0].stats(activity: kind.activity, measuringEfforts: true)
                batch.append(NewTrack(name: "\(kind.rawValue) \(index)", kind: kind, content: TrackContent(document: document), stats: stats))
            }
            _ = try await store.saveImport(
                TrackImport(source: ImportSource(fileName: nil, format: .gpx, contentHash: "bench-\(saved)", byteCount: 0), tracks: batch),
                userID: user.id)
            saved += batch.count
        }
        let seedSeconds = Double(DispatchTime.now().uptimeNanoseconds - seedStart) / 1e9
        // As an archive import does after its last entry (`refreshPlannerStatistics`).
        try await store.refreshPlannerStatistics()
        let library = TrackLibrary(store: store, userID: user.id)
        var recordCount = 0
        let records = try await measure(runs: 21) { recordCount = try await store.personalRecords(kind: .ride, userID: user.id).count }
        let newest = try await store.tracks(TrackQuery(limit: 1), userID: user.id).tracks[0].id
        var rankCount = 0
        let ranks = try await measure(runs: 21) { rankCount = try await store.rankedEfforts(trackID: newest, userID: user.id).count }
        var days = 0
        let overview = try await measure(runs: 21) {
            days = try await library.overview(year: 2024, kind: nil, today: 19_900).calendar.count
        }
        await postgres?.close()
        json([
            "tracks": count, "points": points, "seedSeconds": seedSeconds, "records": recordCount, "recordsMedianMilliseconds": records.median,
            "trackRanks": rankCount, "trackRanksMedianMilliseconds": ranks.median, "overviewDays": days,
            "overviewMedianMilliseconds": overview.median,
        ])

    default:
        fail("unknown command \(arguments[1])")
    }
} catch {
    fail("\(error)")
}
