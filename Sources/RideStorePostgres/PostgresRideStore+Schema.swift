import Foundation
import PostgresNIO
import RideKit
import RideStore

extension PostgresRideStore {
    /// One named step of the schema. A migration that shipped is never renamed or edited: a change is a new
    /// migration after the others. Each runs in its own transaction with the row that records it.
    struct Migration: Sendable {
        var name: String
        var statements: [String]
    }

    /// The schema, in order. The tables are the SQLite store's (snake_case, `users` for SQLite's `user`,
    /// a reserved word here); times are milliseconds since 1970 as BIGINT, as there; points are packed blocks
    /// of up to 1,024 (`PointBlockEncoder`) as BYTEA.
    static let migrations: [Migration] = [
        Migration(
            name: "v1 users, devices, tracks, points, recordings",
            statements: [
                """
                CREATE TABLE users (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE,
                    password_hash TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE devices (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    token_hash TEXT NOT NULL UNIQUE,
                    protocol TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_seen_at BIGINT
                )
                """,
                "CREATE INDEX devices_user ON devices (user_id)",
                """
                CREATE TABLE track_imports (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    content_hash TEXT NOT NULL,
                    file_name TEXT,
                    format TEXT NOT NULL,
                    byte_count BIGINT NOT NULL,
                    imported_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX track_imports_content_hash ON track_imports (user_id, content_hash)",
                """
                CREATE TABLE tracks (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    source TEXT NOT NULL,
                    state TEXT NOT NULL,
                    import_id TEXT REFERENCES track_imports (id) ON DELETE SET NULL,
                    import_position BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    start_time TEXT,
                    end_time TEXT,
                    sort_key BIGINT NOT NULL,
                    utc_offset_minutes BIGINT,
                    distance_meters DOUBLE PRECISION NOT NULL,
                    ascent_meters DOUBLE PRECISION NOT NULL,
                    descent_meters DOUBLE PRECISION NOT NULL,
                    moving_seconds DOUBLE PRECISION NOT NULL,
                    elapsed_seconds DOUBLE PRECISION NOT NULL,
                    max_speed_meters_per_second DOUBLE PRECISION NOT NULL,
                    average_speed_meters_per_second DOUBLE PRECISION NOT NULL,
                    point_count BIGINT NOT NULL,
                    segment_count BIGINT NOT NULL,
                    waypoint_count BIGINT NOT NULL,
                    route_count BIGINT NOT NULL,
                    min_latitude DOUBLE PRECISION,
                    min_longitude DOUBLE PRECISION,
                    max_latitude DOUBLE PRECISION,
                    max_longitude DOUBLE PRECISION,
                    preview BYTEA NOT NULL,
                    stats BYTEA NOT NULL,
                    gpx_version TEXT NOT NULL,
                    gpx_creator TEXT,
                    gpx_header BYTEA NOT NULL,
                    document_name TEXT,
                    deleted_at BIGINT
                )
                """,
                // The list: a user's tracks newest first, a page after a cursor (sort_key, id).
                "CREATE INDEX tracks_list ON tracks (user_id, sort_key DESC, id DESC)",
                "CREATE INDEX tracks_import ON tracks (import_id)",
                """
                CREATE TABLE segments (
                    id BIGSERIAL PRIMARY KEY,
                    track_id TEXT NOT NULL REFERENCES tracks (id) ON DELETE CASCADE,
                    role SMALLINT NOT NULL,
                    part BIGINT NOT NULL,
                    position BIGINT NOT NULL,
                    point_count BIGINT NOT NULL,
                    UNIQUE (track_id, role, part, position)
                )
                """,
                """
                CREATE TABLE point_blocks (
                    id BIGSERIAL PRIMARY KEY,
                    segment_id BIGINT NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
                    position BIGINT NOT NULL,
                    point_count BIGINT NOT NULL,
                    data BYTEA NOT NULL,
                    UNIQUE (segment_id, position)
                )
                """,
                """
                CREATE TABLE recordings (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    track_id TEXT NOT NULL REFERENCES tracks (id) ON DELETE CASCADE,
                    device_id TEXT REFERENCES devices (id) ON DELETE SET NULL,
                    state TEXT NOT NULL,
                    route_track_id TEXT REFERENCES tracks (id) ON DELETE SET NULL,
                    last_client_sequence BIGINT,
                    started_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    stopped_at BIGINT,
                    options TEXT,
                    client_id TEXT
                )
                """,
                "CREATE INDEX recordings_user ON recordings (user_id, started_at DESC)",
                "CREATE INDEX recordings_track ON recordings (track_id)",
                "CREATE INDEX recordings_route ON recordings (route_track_id)",
                // A start repeated by a client (offline, or sent to two instances at once) finds the first one.
                "CREATE UNIQUE INDEX recordings_client_id ON recordings (user_id, client_id) WHERE client_id IS NOT NULL",
            ]),
        // Issue 12's tables, as SQLite's "v6 accounts, sessions, devices, ingestion", with the share links (of a
        // place, or live of a device) that SQLite has had since its v3.
        Migration(
            name: "v2 sessions, device fixes, share links",
            statements: [
                // The hash of a session cookie's token, its user, when it expires.
                """
                CREATE TABLE sessions (
                    token_hash TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX sessions_user ON sessions (user_id)",
                "CREATE INDEX sessions_expires ON sessions (expires_at)",
                // Every position a device posted, once per (device, time): the unique key is what makes a replayed
                // post store nothing, on any instance. `id` orders the live feed.
                """
                CREATE TABLE device_fixes (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    device_id TEXT NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    time BIGINT NOT NULL,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    elevation DOUBLE PRECISION,
                    speed DOUBLE PRECISION,
                    course DOUBLE PRECISION,
                    accuracy DOUBLE PRECISION,
                    battery DOUBLE PRECISION,
                    track_id TEXT REFERENCES tracks (id) ON DELETE SET NULL,
                    received_at BIGINT NOT NULL,
                    UNIQUE (device_id, time)
                )
                """,
                "CREATE INDEX device_fixes_feed ON device_fixes (user_id, id)",
                "CREATE INDEX device_fixes_track ON device_fixes (track_id, time)",
                "CREATE INDEX recordings_device ON recordings (device_id) WHERE device_id IS NOT NULL",
                // A token, its user, what it shows (`place` or `device` and its id), when made, revoked and (live
                // links) until when, and the ride a live link is limited to. The target is no foreign key: a link
                // whose target is gone shows nothing.
                """
                CREATE TABLE share_links (
                    token TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    target_kind TEXT NOT NULL,
                    target_id TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    revoked_at BIGINT,
                    expires_at BIGINT,
                    track_id TEXT
                )
                """,
                "CREATE INDEX share_links_user ON share_links (user_id)",
                "CREATE INDEX share_links_target ON share_links (target_kind, target_id)",
            ]),
        // Places with their notes and labels, as SQLite's (its v1 and v4: `deleted_at` for undo). Photos are not
        // here yet: they need a storage every instance shares.
        Migration(
            name: "v3 places, notes, labels",
            statements: [
                """
                CREATE TABLE places (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    name TEXT NOT NULL,
                    address TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    deleted_at BIGINT
                )
                """,
                "CREATE INDEX places_user ON places (user_id, created_at DESC)",
                "CREATE INDEX places_deleted ON places (deleted_at) WHERE deleted_at IS NOT NULL",
                """
                CREATE TABLE notes (
                    id TEXT PRIMARY KEY,
                    place_id TEXT NOT NULL REFERENCES places (id) ON DELETE CASCADE,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX notes_place ON notes (place_id, created_at)",
                """
                CREATE TABLE labels (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    name TEXT NOT NULL,
                    color TEXT NOT NULL,
                    UNIQUE (user_id, name)
                )
                """,
                """
                CREATE TABLE place_labels (
                    place_id TEXT NOT NULL REFERENCES places (id) ON DELETE CASCADE,
                    label_id TEXT NOT NULL REFERENCES labels (id) ON DELETE CASCADE,
                    PRIMARY KEY (place_id, label_id)
                )
                """,
                "CREATE INDEX place_labels_label ON place_labels (label_id)",
            ]),
        // A live device track's figures kept as it grows, as SQLite's "v7 device track figures".
        Migration(
            name: "v4 device track figures",
            statements: [
                "ALTER TABLE recordings ADD COLUMN figures_point_count BIGINT",
                "ALTER TABLE recordings ADD COLUMN figures_until BIGINT",
            ]),
        // What SQLite's store keeps on its one machine, for every instance: photos (bytes in the database, in a
        // table of their own so that listing notes never reads them; a row deleted takes its bytes with it in
        // the same transaction, so there is no orphan to clean up as large objects would leave), what the
        // documents folder held, and the failed logins the rate limit counts.
        Migration(
            name: "v5 photos, documents, login failures",
            statements: [
                """
                CREATE TABLE photos (
                    id TEXT PRIMARY KEY,
                    note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
                    media_type TEXT NOT NULL,
                    byte_count BIGINT NOT NULL,
                    thumbnail_media_type TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX photos_note ON photos (note_id, created_at)",
                """
                CREATE TABLE photo_bytes (
                    photo_id TEXT PRIMARY KEY REFERENCES photos (id) ON DELETE CASCADE,
                    bytes BYTEA NOT NULL,
                    thumbnail BYTEA
                )
                """,
                // JPEG, PNG, WebP and HEIC are compressed already: PostgreSQL's TOAST would spend time for nothing.
                "ALTER TABLE photo_bytes ALTER COLUMN bytes SET STORAGE EXTERNAL",
                "ALTER TABLE photo_bytes ALTER COLUMN thumbnail SET STORAGE EXTERNAL",
                """
                CREATE TABLE document_files (
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    path TEXT NOT NULL,
                    track_id TEXT REFERENCES tracks (id) ON DELETE SET NULL,
                    byte_count BIGINT NOT NULL,
                    modified_nanoseconds BIGINT NOT NULL,
                    content_hash TEXT NOT NULL,
                    synced_at BIGINT NOT NULL,
                    PRIMARY KEY (user_id, path)
                )
                """,
                "CREATE INDEX document_files_track ON document_files (track_id)",
                // One row per failed login, by key ("name:…" or "address:…"); old rows are removed as they are read.
                """
                CREATE TABLE login_failures (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    key TEXT NOT NULL,
                    failed_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX login_failures_key ON login_failures (key, failed_at)",
            ]),
        // What a bike computer or watch measured for a track from its file, as SQLite's "v9 device-measured figures".
        Migration(name: "v6 device-measured figures", statements: ["ALTER TABLE tracks ADD COLUMN device BYTEA"]),
        heatmapMigration,
        // Privacy zones, the hidden length and secret per user, and what a ride link leaves out: SQLite's v9.
        Migration(
            name: "v9 privacy zones and ride shares",
            statements: [
                """
                CREATE TABLE privacy_zones (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    latitude DOUBLE PRECISION NOT NULL,
                    longitude DOUBLE PRECISION NOT NULL,
                    radius_meters DOUBLE PRECISION NOT NULL,
                    name TEXT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX privacy_zones_user ON privacy_zones (user_id)",
                """
                CREATE TABLE privacy_settings (
                    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
                    hidden_end_meters DOUBLE PRECISION NOT NULL,
                    secret BYTEA NOT NULL
                )
                """,
                "ALTER TABLE share_links ADD COLUMN options TEXT",
            ]),
        // Share tokens kept as SHA-256, lower-case hex, like sessions' and devices' (DESIGN 5): SQLite's v10.
        Migration(
            name: "v10 share tokens stored hashed",
            statements: ["UPDATE share_links SET token = encode(sha256(convert_to(token, 'UTF8')), 'hex')"]),
        // Best efforts per track (derived from its figures whenever its row is written) and weekly goals, as
        // SQLite's "v9 best efforts and weekly goals".
        Migration(
            name: "v6 best efforts and weekly goals",
            statements: [
                """
                CREATE TABLE track_efforts (
                    track_id TEXT NOT NULL REFERENCES tracks (id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    value DOUBLE PRECISION NOT NULL,
                    score DOUBLE PRECISION NOT NULL,
                    start_offset DOUBLE PRECISION,
                    end_offset DOUBLE PRECISION,
                    PRIMARY KEY (track_id, key)
                )
                """,
                "CREATE INDEX track_efforts_best ON track_efforts (key, score)",
                """
                CREATE TABLE user_goals (
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    measure TEXT NOT NULL,
                    target DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (user_id, kind)
                )
                """,
            ]),
        // Archive imports running in the background, their progress and outcome: SQLite's "v11 import jobs".
        Migration(
            name: "v11 import jobs",
            statements: [
                """
                CREATE TABLE import_jobs (
                    id TEXT PRIMARY KEY,
                    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    file_name TEXT NOT NULL,
                    state TEXT NOT NULL,
                    files_done BIGINT NOT NULL,
                    files_total BIGINT NOT NULL,
                    imported BIGINT NOT NULL,
                    already_imported BIGINT NOT NULL,
                    failure_count BIGINT NOT NULL,
                    failures TEXT NOT NULL,
                    track_ids TEXT NOT NULL,
                    message TEXT,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    finished_at BIGINT
                )
                """,
                "CREATE INDEX import_jobs_user ON import_jobs (user_id)",
            ]),
        // Users sharing their live position with other users of the server: SQLite's "v12 family shares".
        Migration(
            name: "v12 family shares",
            statements: [
                """
                CREATE TABLE family_shares (
                    sharer_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    viewer_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT,
                    PRIMARY KEY (sharer_id, viewer_id)
                )
                """,
                "CREATE INDEX family_shares_viewer ON family_shares (viewer_id)",
            ]),
        // An imported file's own bytes (FIT files up to 16 MiB, `OriginalFileRules`): SQLite's "v13 original files".
        Migration(
            name: "v13 original files",
            statements: [
                """
                CREATE TABLE import_originals (
                    import_id TEXT PRIMARY KEY REFERENCES track_imports (id) ON DELETE CASCADE,
                    bytes BYTEA NOT NULL
                )
                """
            ]),
        // A live device track's newest fixes wait in device_fixes (after blocks_until; all of them while it is NULL)
        // until its figures are computed again, as on SQLite since its "v8": appending them to the blocks on every
        // post was most of a post's work. Until now every fix was in the blocks.
        Migration(
            name: "v14 device fixes wait for their blocks",
            statements: [
                "ALTER TABLE recordings ADD COLUMN blocks_until BIGINT",
                """
                UPDATE recordings SET blocks_until = (SELECT max(time) FROM device_fixes WHERE device_fixes.track_id = recordings.track_id)
                WHERE device_id IS NOT NULL
                """,
            ]),
        // Laps the rider marked while recording: SQLite's "v15 recorded lap marks".
        Migration(name: "v15 recorded lap marks", statements: ["ALTER TABLE tracks ADD COLUMN lap_marks TEXT"]),
        // The version of the measurement that made each track's efforts (0 for none), as SQLite's "v12 efforts version".
        Migration(
            name: "v16 efforts version",
            statements: [
                "ALTER TABLE tracks ADD COLUMN efforts_version INTEGER NOT NULL DEFAULT 0",
                "CREATE INDEX tracks_efforts_version ON tracks (efforts_version)",
                "UPDATE tracks SET efforts_version = 1 WHERE id IN (SELECT track_id FROM track_efforts)",
            ]),
        // A live track's row is written on every post (its point count), and a row of 0.8 to 2 KB (its figures, not yet
        // big enough to be TOASTed) left no room on its full page for the new version: every write went to another
        // page with new entries in every index (not HOT), and the old pages were not pruned, because pruning starts
        // only when a page's free space is under a tenth. Measured: 29,184 writes of 200 tracks' rows, 4,086 of them
        // HOT, 47 MB for 200 rows. A quarter of each page kept free (pruning starts under that) makes them HOT. Only
        // new pages are filled so; a database's existing rows move as they are written.
        Migration(name: "v17 room on the tracks' pages", statements: ["ALTER TABLE tracks SET (fillfactor = 75)"]),
    ]

    /// The table of applied migrations.
    static let migrationsTable = "bikeride_migrations"

    /// Applies the migrations the database lacks, in order, each in its own transaction; refuses a database
    /// that has a migration this version does not know (a newer bikeride wrote it). Instances starting at once
    /// take turns (an advisory lock), so each migration runs once.
    static func migrate(_ configuration: Configuration, logger: Logger) async throws {
        let connection = try await connect(configuration, logger: logger)
        do {
            try await applyMigrations(connection, logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw storeError(error)
        }
    }

    /// The migrations recorded in the database, in the order they were applied.
    static func appliedMigrations(_ configuration: Configuration, logger: Logger) async throws -> [String] {
        let connection = try await connect(configuration, logger: logger)
        do {
            let names = try await appliedMigrations(connection, logger: logger)
            try await connection.close()
            return names
        } catch {
            try? await connection.close()
            throw storeError(error)
        }
    }

    static func appliedMigrations(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let exists = try await connection.query("SELECT to_regclass(\(migrationsTable)::text) IS NOT NULL", logger: logger)
        var found = false
        for try await value in exists.decode(Bool.self) { found = value }
        guard found else { return [] }
        var names: [String] = []
        let rows = try await connection.query(
            "SELECT name FROM \(unescaped: migrationsTable) ORDER BY applied_at, name", logger: logger)
        for try await name in rows.decode(String.self) { names.append(name) }
        return names
    }

    /// A key for `pg_advisory_lock` that only bikeride's migrations take.
    static let migrationLockKey: Int64 = 0x6269_6B65_7269_6465  // "bikeride"

    static func applyMigrations(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_advisory_lock(\(migrationLockKey))", logger: logger)
        do {
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS \(unescaped: migrationsTable) (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)
                """, logger: logger)
            let applied = try await appliedMigrations(connection, logger: logger)
            let known = Set(migrations.map(\.name))
            let unknown = applied.filter { !known.contains($0) }
            guard unknown.isEmpty else {
                throw RideStoreError.conflict(
                    "the database's schema is newer than this bikeride knows (unknown migrations: \(unknown.joined(separator: ", "))): "
                        + "run a newer bikeride, or restore a backup from before the upgrade")
            }
            for migration in migrations where !applied.contains(migration.name) {
                logger.info("applying migration", metadata: ["migration": "\(migration.name)"])
                try await connection.query("BEGIN", logger: logger)
                do {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                    }
                    try await connection.query(
                        "INSERT INTO \(unescaped: migrationsTable) (name, applied_at) VALUES (\(migration.name), \(milliseconds(now())))",
                        logger: logger)
                    try await connection.query("COMMIT", logger: logger)
                } catch {
                    _ = try? await connection.query("ROLLBACK", logger: logger)
                    throw RideStoreError.database("migration '\(migration.name)' failed: \(describe(error))")
                }
            }
        } catch {
            _ = try? await connection.query("SELECT pg_advisory_unlock(\(migrationLockKey))", logger: logger)
            throw error
        }
        try await connection.query("SELECT pg_advisory_unlock(\(migrationLockKey))", logger: logger)
    }

    /// The tables of the schema (tests: "nothing left behind").
    static let tableNames: Set<String> = [
        "users", "devices", "track_imports", "tracks", "segments", "point_blocks", "recordings", "sessions", "device_fixes", "share_links",
        "places", "notes", "labels", "place_labels", "photos", "photo_bytes", "document_files", "login_failures", "heatmap_states", "heatmap_tracks",
        "heatmap_pieces", "heatmap_rasters", "privacy_zones", "privacy_settings", "track_efforts", "user_goals", "import_jobs",
        "family_shares", "import_originals", migrationsTable,
    ]

    /// Rows in one of the schema's tables.
    func rowCount(table: String) async throws -> Int {
        guard Self.tableNames.contains(table) else { throw RideStoreError.invalid(field: "table", reason: "'\(table)' is no table of the store") }
        return try await transaction(readOnly: true) { [logger] connection in
            var count: Int64 = -1
            // The name is one of `tableNames`, checked above: no value reaches the SQL text.
            for try await value in try await connection.query("SELECT count(*) FROM \(unescaped: table)", logger: logger).decode(Int64.self) {
                count = value
            }
            return Int(count)
        }
    }
}
