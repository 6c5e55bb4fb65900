import Foundation
import PostgresNIO
import RideKit
import RideStore

/// The heatmap index on PostgreSQL (`HeatmapIndexRules` says what it holds), as on SQLite. Changes of one user's index
/// take turns on the user's `heatmap_states` row (`FOR UPDATE`), so that two instances saving rides at once never lose
/// a count; version 0 there means "not built yet".
extension PostgresRideStore {
    static let heatmapMigration = Migration(
        name: "v6 heatmap index",
        statements: [
            """
            CREATE TABLE heatmap_states (
                user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
                version BIGINT NOT NULL
            )
            """,
            """
            CREATE TABLE heatmap_tracks (
                track_id TEXT PRIMARY KEY,
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                year INTEGER NOT NULL,
                signature BIGINT NOT NULL,
                line BYTEA NOT NULL
            )
            """,
            "CREATE INDEX heatmap_tracks_user ON heatmap_tracks (user_id)",
            """
            CREATE TABLE heatmap_pieces (
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                tile_x INTEGER NOT NULL,
                tile_y INTEGER NOT NULL,
                track_id TEXT NOT NULL,
                kind TEXT NOT NULL,
                year INTEGER NOT NULL,
                data BYTEA NOT NULL,
                PRIMARY KEY (user_id, tile_x, tile_y, track_id)
            )
            """,
            "CREATE INDEX heatmap_pieces_track ON heatmap_pieces (track_id)",
            """
            CREATE TABLE heatmap_rasters (
                user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                zoom INTEGER NOT NULL,
                tile_x INTEGER NOT NULL,
                tile_y INTEGER NOT NULL,
                kind TEXT NOT NULL,
                year INTEGER NOT NULL,
                data BYTEA NOT NULL,
                PRIMARY KEY (user_id, zoom, tile_x, tile_y, kind, year)
            )
            """,
        ])

    public func heatmapTile(_ request: HeatmapRequest, userID: UserID) async throws -> HeatmapTile {
        if try await heatmapVersion(userID: userID) == nil { try await buildHeatmapIfNeeded(userID: userID) }
        let kind = request.filter.kind?.rawValue, year = request.filter.year.map(Int32.init)
        return try await transaction(readOnly: true) { [logger] connection in
            let version = try await Self.heatmapVersion(connection, userID: userID, logger: logger) ?? 0
            var rows: [Data] = []
            let counts: HeatmapCounts
            switch HeatmapIndexRules.source(of: request.tile) {
            case .pieces(let base):
                let result = try await connection.query(
                    """
                    SELECT data FROM heatmap_pieces WHERE user_id = \(userID.rawValue) AND tile_x = \(Int32(base.x)) AND tile_y = \(Int32(base.y))
                    AND (\(kind)::text IS NULL OR kind = \(kind)) AND (\(year)::integer IS NULL OR year = \(year))
                    """, logger: logger)
                for try await data in result.decode(Data.self) { rows.append(data) }
                counts = try HeatmapIndexRules.draw(pieces: rows, base: base, tile: request.tile)
            case .rasters(let key):
                let result = try await connection.query(
                    """
                    SELECT data FROM heatmap_rasters WHERE user_id = \(userID.rawValue) AND zoom = \(Int32(key.zoom))
                    AND tile_x = \(Int32(key.x)) AND tile_y = \(Int32(key.y))
                    AND (\(kind)::text IS NULL OR kind = \(kind)) AND (\(year)::integer IS NULL OR year = \(year))
                    """, logger: logger)
                for try await data in result.decode(Data.self) { rows.append(data) }
                counts = try HeatmapIndexRules.sum(rasters: rows)
            }
            return HeatmapTile(version: version, counts: counts)
        }
    }

    public func heatmapVersion(userID: UserID) async throws -> Int64? {
        try await transaction(readOnly: true) { [logger] connection in
            try await Self.heatmapVersion(connection, userID: userID, logger: logger)
        }
    }

    public func explorerTiles(filter: HeatmapFilter, userID: UserID) async throws -> ExplorerTileList {
        if try await heatmapVersion(userID: userID) == nil { try await buildHeatmapIfNeeded(userID: userID) }
        let kind = filter.kind?.rawValue, year = filter.year.map(Int32.init)
        return try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT DISTINCT tile_x, tile_y FROM heatmap_pieces WHERE user_id = \(userID.rawValue)
                AND (\(kind)::text IS NULL OR kind = \(kind)) AND (\(year)::integer IS NULL OR year = \(year))
                """, logger: logger)
            var tiles: [TileXY] = []
            for try await (x, y) in rows.decode((Int32, Int32).self) { tiles.append(TileXY(x: Int(x), y: Int(y))) }
            let version = try await Self.heatmapVersion(connection, userID: userID, logger: logger) ?? 0
            return ExplorerTileList(version: version, tiles: tiles.sorted())
        }
    }

    public func explorerTileYears(kind: TrackKind?, userID: UserID) async throws -> [(tile: TileXY, year: Int)] {
        if try await heatmapVersion(userID: userID) == nil { try await buildHeatmapIfNeeded(userID: userID) }
        let kind = kind?.rawValue
        return try await transaction(readOnly: true) { [logger] connection in
            let rows = try await connection.query(
                """
                SELECT DISTINCT tile_x, tile_y, year FROM heatmap_pieces WHERE user_id = \(userID.rawValue)
                AND (\(kind)::text IS NULL OR kind = \(kind))
                """, logger: logger)
            var visits: [(tile: TileXY, year: Int)] = []
            for try await (x, y, year) in rows.decode((Int32, Int32, Int32).self) { visits.append((TileXY(x: Int(x), y: Int(y)), Int(year))) }
            return visits
        }
    }

    public func rebuildHeatmap(userID: UserID) async throws -> HeatmapBuildReport {
        try await transaction(long: true) { [logger] connection in
            try await Self.requireUser(connection, userID, logger: logger)
            guard try await Self.tryHeatmapBuildLock(connection, userID: userID, logger: logger) else { throw HeatmapIndexRules.buildUnderWay() }
            _ = try await Self.lockHeatmap(connection, userID: userID, logger: logger)
            return try await Self.rebuildHeatmap(connection, userID: userID, logger: logger)
        }
    }

    func buildHeatmapIfNeeded(userID: UserID) async throws {
        try await transaction(long: true) { [logger] connection in
            let users = try await connection.query("SELECT 1 FROM users WHERE id = \(userID.rawValue)", logger: logger).collect()
            guard !users.isEmpty else { return }
            // Another request is building (here or on another instance): answered at once, not after its build. A
            // request that comes once it has committed finds the index built and never gets here.
            guard try await Self.tryHeatmapBuildLock(connection, userID: userID, logger: logger) else { throw HeatmapIndexRules.buildUnderWay() }
            if try await Self.lockHeatmap(connection, userID: userID, logger: logger) == 0 {
                _ = try await Self.rebuildHeatmap(connection, userID: userID, logger: logger)
            }
        }
    }

    // MARK: Inside transactions

    /// The user's turn at building the index (`HeatmapIndexRules.buildUnderWay`): an advisory lock that the building
    /// transaction holds until it ends (or its connection drops, as when the instance stops); false when taken.
    static func tryHeatmapBuildLock(_ connection: PostgresConnection, userID: UserID, logger: Logger) async throws -> Bool {
        let key = "bikeride heatmap build " + userID.rawValue
        let rows = try await connection.query("SELECT pg_try_advisory_xact_lock(hashtextextended(\(key), 0))", logger: logger)
        for try await taken in rows.decode(Bool.self) { return taken }
        return false
    }

    /// The built index's version, nil before it is built.
    static func heatmapVersion(_ connection: PostgresConnection, userID: UserID, logger: Logger) async throws -> Int64? {
        let rows = try await connection.query("SELECT version FROM heatmap_states WHERE user_id = \(userID.rawValue)", logger: logger)
        for try await version in rows.decode(Int64.self) { return version > 0 ? version : nil }
        return nil
    }

    /// Takes the user's turn at changing the index (its state row, made at version 0 if missing); returns the version.
    static func lockHeatmap(_ connection: PostgresConnection, userID: UserID, logger: Logger) async throws -> Int64 {
        try await connection.query(
            "INSERT INTO heatmap_states (user_id, version) VALUES (\(userID.rawValue), 0) ON CONFLICT (user_id) DO NOTHING", logger: logger)
        let rows = try await connection.query(
            "SELECT version FROM heatmap_states WHERE user_id = \(userID.rawValue) FOR UPDATE", logger: logger)
        for try await version in rows.decode(Int64.self) { return version }
        return 0
    }

    /// The heatmap index brought up to date for these tracks in this transaction (the SQLite store does the same in its own);
    /// `removing` takes them out.
    static func syncHeatmap(
        _ connection: PostgresConnection, trackIDs: [TrackID], userID: UserID, removing: Bool = false, logger: Logger
    ) async throws {
        // Taking the turn waits for a first build under way elsewhere, which cannot see this transaction's track: once
        // it has committed, the track is added here. Not built yet (version 0): the first read builds it whole.
        let version = try await lockHeatmap(connection, userID: userID, logger: logger)
        guard version > 0 else { return }
        var changed = false
        for id in trackIDs {
            var indexed: (entry: HeatmapIndexRules.Entry, line: Data)?
            let rows = try await connection.query(
                "SELECT kind, year, signature, line FROM heatmap_tracks WHERE track_id = \(id.rawValue) AND user_id = \(userID.rawValue)",
                logger: logger)
            for try await (kind, year, signature, line) in rows.decode((String, Int32, Int64, Data).self) {
                indexed = (HeatmapIndexRules.Entry(kind: kind, year: Int(year), signature: signature), line)
            }
            let record = removing ? nil : try await trackRecord(connection, id: id, userID: userID, logger: logger)
            let wanted = record.flatMap(HeatmapIndexRules.entry(for:))
            if let indexed {
                if indexed.entry == wanted { continue }
                for (tile, pixels) in try HeatmapIndexRules.pixels(ofStoredLine: indexed.line) {
                    try await applyRaster(
                        connection, userID: userID, kind: indexed.entry.kind, year: indexed.entry.year, tile: tile, pixels: pixels, delta: -1,
                        logger: logger)
                }
                try await connection.query("DELETE FROM heatmap_pieces WHERE track_id = \(id.rawValue)", logger: logger)
                try await connection.query("DELETE FROM heatmap_tracks WHERE track_id = \(id.rawValue)", logger: logger)
                changed = true
            }
            if let record, let wanted {
                let index = try await trackIndex(connection, record: record, entry: wanted, logger: logger)
                try await insert(connection, index, trackID: id, userID: userID, logger: logger)
                for (tile, pixels) in index.pixels {
                    try await applyRaster(
                        connection, userID: userID, kind: wanted.kind, year: wanted.year, tile: tile, pixels: pixels, delta: 1, logger: logger)
                }
                changed = true
            }
        }
        if changed {
            try await connection.query(
                "UPDATE heatmap_states SET version = \(version + 1) WHERE user_id = \(userID.rawValue)", logger: logger)
        }
    }

    static func trackIndex(
        _ connection: PostgresConnection, record: TrackRecord, entry: HeatmapIndexRules.Entry, logger: Logger
    ) async throws -> HeatmapIndexRules.TrackIndex {
        var content = try TrackFigures.emptyContent(of: record, readingHeaders: true)
        try await loadPoints(into: &content, trackID: record.id, connection, logger: logger)
        return HeatmapIndexRules.index(try HeatmapIndexRules.line(of: content), entry: entry)
    }

    static func insert(
        _ connection: PostgresConnection, _ index: HeatmapIndexRules.TrackIndex, trackID: TrackID, userID: UserID, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO heatmap_tracks (track_id, user_id, kind, year, signature, line)
            VALUES (\(trackID.rawValue), \(userID.rawValue), \(index.entry.kind), \(Int32(index.entry.year)), \(index.entry.signature), \(index.line))
            """, logger: logger)
        guard !index.pieces.isEmpty else { return }
        // One statement for all of a track's pieces: arrays, unnested.
        let xs = index.pieces.map { Int32($0.tile.x) }, ys = index.pieces.map { Int32($0.tile.y) }
        let data = index.pieces.map { ByteBuffer(bytes: $0.data) }
        try await connection.query(
            """
            INSERT INTO heatmap_pieces (user_id, tile_x, tile_y, track_id, kind, year, data)
            SELECT \(userID.rawValue), x, y, \(trackID.rawValue), \(index.entry.kind), \(Int32(index.entry.year)), d
            FROM unnest(\(xs)::integer[], \(ys)::integer[], \(data)::bytea[]) AS p(x, y, d)
            """, logger: logger)
    }

    static func applyRaster(
        _ connection: PostgresConnection, userID: UserID, kind: String, year: Int, tile: HeatmapTileKey, pixels: [UInt16], delta: Int,
        logger: Logger
    ) async throws {
        let zoom = Int32(tile.zoom), x = Int32(tile.x), y = Int32(tile.y), year = Int32(year)
        var stored: Data?
        let rows = try await connection.query(
            """
            SELECT data FROM heatmap_rasters WHERE user_id = \(userID.rawValue) AND zoom = \(zoom) AND tile_x = \(x) AND tile_y = \(y)
            AND kind = \(kind) AND year = \(year)
            """, logger: logger)
        for try await data in rows.decode(Data.self) { stored = data }
        if let data = try HeatmapIndexRules.applying(pixels, delta: delta, to: stored) {
            try await connection.query(
                """
                INSERT INTO heatmap_rasters (user_id, zoom, tile_x, tile_y, kind, year, data)
                VALUES (\(userID.rawValue), \(zoom), \(x), \(y), \(kind), \(year), \(data))
                ON CONFLICT (user_id, zoom, tile_x, tile_y, kind, year) DO UPDATE SET data = excluded.data
                """, logger: logger)
        } else if stored != nil {
            try await connection.query(
                """
                DELETE FROM heatmap_rasters WHERE user_id = \(userID.rawValue) AND zoom = \(zoom) AND tile_x = \(x) AND tile_y = \(y)
                AND kind = \(kind) AND year = \(year)
                """, logger: logger)
        }
    }

    /// The user's index made anew (the caller holds the user's turn).
    static func rebuildHeatmap(_ connection: PostgresConnection, userID: UserID, logger: Logger) async throws -> HeatmapBuildReport {
        for table in ["heatmap_tracks", "heatmap_pieces", "heatmap_rasters"] {
            try await connection.query("DELETE FROM \(unescaped: table) WHERE user_id = \(userID.rawValue)", logger: logger)
        }
        var ids: [TrackID] = []
        let rows = try await connection.query(
            "SELECT id FROM tracks WHERE user_id = \(userID.rawValue) AND deleted_at IS NULL ORDER BY id", logger: logger)
        for try await id in rows.decode(String.self) { ids.append(try shortID(id, column: "tracks.id")) }
        var rasters = HeatmapIndexRules.RasterAccumulator()
        var trackCount = 0, pointCount = 0
        for id in ids {
            guard let record = try await trackRecord(connection, id: id, userID: userID, logger: logger),
                  let entry = HeatmapIndexRules.entry(for: record) else { continue }
            let index = try await trackIndex(connection, record: record, entry: entry, logger: logger)
            try await insert(connection, index, trackID: id, userID: userID, logger: logger)
            rasters.add(index)
            trackCount += 1
            pointCount += record.pointCount
        }
        let entries = Array(rasters.tiles)
        for start in stride(from: 0, to: entries.count, by: 1_000) {
            let batch = entries[start..<min(entries.count, start + 1_000)]
            try await connection.query(
                """
                INSERT INTO heatmap_rasters (user_id, zoom, tile_x, tile_y, kind, year, data)
                SELECT \(userID.rawValue), z, x, y, k, yr, d
                FROM unnest(\(batch.map { Int32($0.key.tile.zoom) })::integer[], \(batch.map { Int32($0.key.tile.x) })::integer[],
                            \(batch.map { Int32($0.key.tile.y) })::integer[], \(batch.map { $0.key.kind })::text[],
                            \(batch.map { Int32($0.key.year) })::integer[], \(batch.map { ByteBuffer(bytes: $0.value.encoded()) })::bytea[])
                     AS r(z, x, y, k, yr, d)
                """, logger: logger)
        }
        let old = try await connection.query("SELECT version FROM heatmap_states WHERE user_id = \(userID.rawValue)", logger: logger)
        var version: Int64 = 0
        for try await value in old.decode(Int64.self) { version = value }
        version += 1
        try await connection.query(
            """
            INSERT INTO heatmap_states (user_id, version) VALUES (\(userID.rawValue), \(version))
            ON CONFLICT (user_id) DO UPDATE SET version = excluded.version
            """, logger: logger)
        return HeatmapBuildReport(trackCount: trackCount, pointCount: pointCount, version: version)
    }
}
