import Foundation
import GRDB
import RideKit

/// The heatmap index on SQLite (`HeatmapIndexRules` says what it holds): kept in the transaction of every change of a
/// track, read one tile at a time.
extension SQLiteRideStore {
    static func registerHeatmapMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9 heatmap index") { db in
            try db.create(table: "heatmapState") { t in
                t.primaryKey("userId", .text).references("user", onDelete: .cascade)
                t.column("version", .integer).notNull()
            }
            // No foreign key to track: a track leaves the index (its counts subtracted) before it is purged.
            try db.create(table: "heatmapTrack") { t in
                t.primaryKey("trackId", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("kind", .text).notNull()
                t.column("year", .integer).notNull()
                t.column("signature", .integer).notNull()
                t.column("line", .blob).notNull()
            }
            try db.create(table: "heatmapPiece") { t in
                t.belongsTo("user", onDelete: .cascade, indexed: false).notNull()
                t.column("tileX", .integer).notNull()
                t.column("tileY", .integer).notNull()
                t.column("trackId", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("year", .integer).notNull()
                t.column("data", .blob).notNull()
                t.primaryKey(["userId", "tileX", "tileY", "trackId"])
            }
            try db.create(index: "heatmapPiece_track", on: "heatmapPiece", columns: ["trackId"])
            try db.create(table: "heatmapRaster") { t in
                t.belongsTo("user", onDelete: .cascade, indexed: false).notNull()
                t.column("zoom", .integer).notNull()
                t.column("tileX", .integer).notNull()
                t.column("tileY", .integer).notNull()
                t.column("kind", .text).notNull()
                t.column("year", .integer).notNull()
                t.column("data", .blob).notNull()
                t.primaryKey(["userId", "zoom", "tileX", "tileY", "kind", "year"])
            }
        }
    }

    /// A claim on building a user's index (`HeatmapIndexRules.buildUnderWay`), committed before the build starts so
    /// that other requests (readers, not queued behind the writer) see it.
    static func registerHeatmapBuildMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12 heatmap build claims") { db in
            try db.create(table: "heatmapBuild") { t in
                t.primaryKey("userId", .text).references("user", onDelete: .cascade)
                t.column("claimedAt", .integer).notNull()
            }
        }
    }

    public func heatmapTile(_ request: HeatmapRequest, userID: UserID) async throws -> HeatmapTile {
        if try await heatmapVersion(userID: userID) == nil { _ = try await rebuildHeatmapIfNeeded(userID: userID) }
        return try await read { db in
            let version = try Self.heatmapVersion(db, userID: userID) ?? 0
            var conditions = "userId = ? AND tileX = ? AND tileY = ?"
            var arguments: StatementArguments
            let table: String
            switch HeatmapIndexRules.source(of: request.tile) {
            case .pieces(let base):
                table = "heatmapPiece"
                arguments = [userID, base.x, base.y]
            case .rasters(let key):
                table = "heatmapRaster"
                conditions += " AND zoom = ?"
                arguments = [userID, key.x, key.y, key.zoom]
            }
            if let kind = request.filter.kind {
                conditions += " AND kind = ?"
                _ = arguments.append(contentsOf: [kind.rawValue])
            }
            if let year = request.filter.year {
                conditions += " AND year = ?"
                _ = arguments.append(contentsOf: [year])
            }
            let rows = try Data.fetchAll(db, sql: "SELECT data FROM \(table) WHERE \(conditions)", arguments: arguments)
            let counts: HeatmapCounts
            switch HeatmapIndexRules.source(of: request.tile) {
            case .pieces(let base): counts = try HeatmapIndexRules.draw(pieces: rows, base: base, tile: request.tile)
            case .rasters: counts = try HeatmapIndexRules.sum(rasters: rows)
            }
            return HeatmapTile(version: version, counts: counts)
        }
    }

    public func heatmapVersion(userID: UserID) async throws -> Int64? {
        try await read { db in try Self.heatmapVersion(db, userID: userID) }
    }

    public func explorerTiles(filter: HeatmapFilter, userID: UserID) async throws -> ExplorerTileList {
        if try await heatmapVersion(userID: userID) == nil { _ = try await rebuildHeatmapIfNeeded(userID: userID) }
        return try await read { db in
            var sql = "SELECT DISTINCT tileX, tileY FROM heatmapPiece WHERE userId = ?"
            var arguments: StatementArguments = [userID]
            if let kind = filter.kind {
                sql += " AND kind = ?"
                _ = arguments.append(contentsOf: [kind.rawValue])
            }
            if let year = filter.year {
                sql += " AND year = ?"
                _ = arguments.append(contentsOf: [year])
            }
            let tiles = try Row.fetchAll(db, sql: sql, arguments: arguments).map { TileXY(x: $0[0], y: $0[1]) }
            return ExplorerTileList(version: try Self.heatmapVersion(db, userID: userID) ?? 0, tiles: tiles.sorted())
        }
    }

    public func explorerTileYears(kind: TrackKind?, userID: UserID) async throws -> [(tile: TileXY, year: Int)] {
        if try await heatmapVersion(userID: userID) == nil { _ = try await rebuildHeatmapIfNeeded(userID: userID) }
        return try await read { db in
            var sql = "SELECT DISTINCT tileX, tileY, year FROM heatmapPiece WHERE userId = ?"
            var arguments: StatementArguments = [userID]
            if let kind {
                sql += " AND kind = ?"
                _ = arguments.append(contentsOf: [kind.rawValue])
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { (tile: TileXY(x: $0[0], y: $0[1]), year: $0[2]) }
        }
    }

    public func rebuildHeatmap(userID: UserID) async throws -> HeatmapBuildReport {
        guard let report = try await buildHeatmapOnce(userID: userID, onlyIfUnbuilt: false) else {
            throw RideStoreError.notFound(kind: "user", id: userID.rawValue)
        }
        return report
    }

    func rebuildHeatmapIfNeeded(userID: UserID) async throws -> HeatmapBuildReport? {
        try await buildHeatmapOnce(userID: userID, onlyIfUnbuilt: true)
    }

    /// Builds the user's index under a claim, or throws `buildUnderWay` at once when another request holds a fresh one.
    /// Nil when there was nothing to do (built meanwhile, with `onlyIfUnbuilt`; no such user).
    func buildHeatmapOnce(userID: UserID, onlyIfUnbuilt: Bool) async throws -> HeatmapBuildReport? {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        @Sendable func isFresh(_ claimedAt: Int64?) -> Bool { claimedAt.map { now - $0 < HeatmapIndexRules.buildClaimSeconds * 1000 } ?? false }
        // First a read: a build under way holds the writer, and a write here would wait behind it.
        let seen = try await read { db in
            (built: try Self.heatmapVersion(db, userID: userID) != nil,
             claimedAt: try Int64.fetchOne(db, sql: "SELECT claimedAt FROM heatmapBuild WHERE userId = ?", arguments: [userID]))
        }
        if onlyIfUnbuilt && seen.built { return nil }
        if isFresh(seen.claimedAt) { throw HeatmapIndexRules.buildUnderWay() }
        let claimed = try await write { db -> Bool in
            if onlyIfUnbuilt, try Self.heatmapVersion(db, userID: userID) != nil { return false }
            guard try Row.fetchOne(db, sql: "SELECT 1 FROM user WHERE id = ?", arguments: [userID]) != nil else { return false }
            if isFresh(try Int64.fetchOne(db, sql: "SELECT claimedAt FROM heatmapBuild WHERE userId = ?", arguments: [userID])) {
                throw HeatmapIndexRules.buildUnderWay()
            }
            try db.execute(sql: "INSERT OR REPLACE INTO heatmapBuild (userId, claimedAt) VALUES (?, ?)", arguments: [userID, now])
            return true
        }
        guard claimed else { return nil }
        do {
            // The claim goes in the build's own transaction: nobody sees the index built and the claim still held.
            return try await write { db in
                try db.execute(sql: "DELETE FROM heatmapBuild WHERE userId = ?", arguments: [userID])
                if onlyIfUnbuilt, try Self.heatmapVersion(db, userID: userID) != nil { return nil }
                return try Self.rebuildHeatmap(db, userID: userID)
            }
        } catch {
            _ = try? await write { db in try db.execute(sql: "DELETE FROM heatmapBuild WHERE userId = ?", arguments: [userID]) }
            throw error
        }
    }

    // MARK: Inside transactions

    static func heatmapVersion(_ db: Database, userID: UserID) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT version FROM heatmapState WHERE userId = ?", arguments: [userID])
    }

    /// Brings the index up to date for these tracks (saved, changed, deleted, restored); `removing` takes them out
    /// whatever they are (before they are purged). A user whose index was never built is left alone: the first
    /// read builds it whole (a bulk import is not slowed by it).
    static func syncHeatmap(_ db: Database, trackIDs: [TrackID], userID: UserID, removing: Bool = false) throws {
        guard let version = try heatmapVersion(db, userID: userID) else { return }
        var changed = false
        for id in trackIDs {
            let indexed = try Row.fetchOne(
                db, sql: "SELECT kind, year, signature, line FROM heatmapTrack WHERE trackId = ? AND userId = ?", arguments: [id, userID])
            let record = removing ? nil : try TrackRecord.filter(key: id).filter(TrackRecord.Columns.userId == userID).fetchOne(db)
            let wanted = record.flatMap(HeatmapIndexRules.entry(for:))
            if let indexed {
                let entry = HeatmapIndexRules.Entry(kind: indexed[0], year: indexed[1], signature: indexed[2])
                if entry == wanted { continue }
                for (tile, pixels) in try HeatmapIndexRules.pixels(ofStoredLine: indexed[3]) {
                    try applyRaster(db, userID: userID, kind: entry.kind, year: entry.year, tile: tile, pixels: pixels, delta: -1)
                }
                try db.execute(sql: "DELETE FROM heatmapPiece WHERE trackId = ?", arguments: [id])
                try db.execute(sql: "DELETE FROM heatmapTrack WHERE trackId = ?", arguments: [id])
                changed = true
            }
            if let record, let wanted {
                let index = try trackIndex(db, record: record, entry: wanted)
                try insert(db, index, trackID: id, userID: userID)
                for (tile, pixels) in index.pixels {
                    try applyRaster(db, userID: userID, kind: wanted.kind, year: wanted.year, tile: tile, pixels: pixels, delta: 1)
                }
                changed = true
            }
        }
        if changed { try db.execute(sql: "UPDATE heatmapState SET version = ? WHERE userId = ?", arguments: [version + 1, userID]) }
    }

    static func trackIndex(_ db: Database, record: TrackRecord, entry: HeatmapIndexRules.Entry) throws -> HeatmapIndexRules.TrackIndex {
        var content = try TrackFigures.emptyContent(of: record, readingHeaders: true)
        try loadPoints(into: &content, trackID: record.id, db)
        return HeatmapIndexRules.index(try HeatmapIndexRules.line(of: content), entry: entry)
    }

    static func insert(_ db: Database, _ index: HeatmapIndexRules.TrackIndex, trackID: TrackID, userID: UserID) throws {
        try db.execute(
            sql: "INSERT INTO heatmapTrack (trackId, userId, kind, year, signature, line) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [trackID, userID, index.entry.kind, index.entry.year, index.entry.signature, index.line])
        let piece = try db.cachedStatement(
            sql: "INSERT INTO heatmapPiece (userId, tileX, tileY, trackId, kind, year, data) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for (tile, data) in index.pieces {
            try piece.execute(arguments: [userID, tile.x, tile.y, trackID, index.entry.kind, index.entry.year, data])
        }
    }

    static func applyRaster(
        _ db: Database, userID: UserID, kind: String, year: Int, tile: HeatmapTileKey, pixels: [UInt16], delta: Int
    ) throws {
        let key: StatementArguments = [userID, tile.zoom, tile.x, tile.y, kind, year]
        let stored = try Data.fetchOne(
            db, sql: "SELECT data FROM heatmapRaster WHERE userId = ? AND zoom = ? AND tileX = ? AND tileY = ? AND kind = ? AND year = ?",
            arguments: key)
        if let data = try HeatmapIndexRules.applying(pixels, delta: delta, to: stored) {
            try db.execute(
                sql: "INSERT OR REPLACE INTO heatmapRaster (userId, zoom, tileX, tileY, kind, year, data) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: key + [data])
        } else if stored != nil {
            try db.execute(
                sql: "DELETE FROM heatmapRaster WHERE userId = ? AND zoom = ? AND tileX = ? AND tileY = ? AND kind = ? AND year = ?",
                arguments: key)
        }
    }

    /// The user's index made anew: every counted track's line and pieces, the rasters summed in memory and written once.
    static func rebuildHeatmap(_ db: Database, userID: UserID) throws -> HeatmapBuildReport {
        for table in ["heatmapTrack", "heatmapPiece", "heatmapRaster"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE userId = ?", arguments: [userID])
        }
        var rasters = HeatmapIndexRules.RasterAccumulator()
        var trackCount = 0, pointCount = 0
        let records = try TrackRecord.filter(TrackRecord.Columns.userId == userID && TrackRecord.Columns.deletedAt == nil).fetchCursor(db)
        while let record = try records.next() {
            guard let entry = HeatmapIndexRules.entry(for: record) else { continue }
            let index = try trackIndex(db, record: record, entry: entry)
            try insert(db, index, trackID: record.id, userID: userID)
            rasters.add(index)
            trackCount += 1
            pointCount += record.pointCount
        }
        let insert = try db.cachedStatement(
            sql: "INSERT INTO heatmapRaster (userId, zoom, tileX, tileY, kind, year, data) VALUES (?, ?, ?, ?, ?, ?, ?)")
        for (key, counts) in rasters.tiles {
            try insert.execute(arguments: [userID, key.tile.zoom, key.tile.x, key.tile.y, key.kind, key.year, counts.encoded()])
        }
        let version = (try heatmapVersion(db, userID: userID) ?? 0) + 1
        try db.execute(sql: "INSERT OR REPLACE INTO heatmapState (userId, version) VALUES (?, ?)", arguments: [userID, version])
        return HeatmapBuildReport(trackCount: trackCount, pointCount: pointCount, version: version)
    }
}
