import GRDB

extension SQLiteRideStore {
    /// The schema, as named migrations applied in order when a store opens. A migration that shipped is never
    /// renamed or edited: a change is a new migration after the others.
    static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1 users, devices, tracks, recordings, places, documents") { db in
            try db.create(table: "user") { t in
                t.primaryKey("id", .text)
                t.column("name", .text).notNull().unique()
                t.column("passwordHash", .text)
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "device") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("name", .text).notNull()
                t.column("tokenHash", .text).notNull().unique()
                t.column("protocol", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("lastSeenAt", .integer)
            }
            try db.create(table: "trackImport") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("contentHash", .text).notNull()
                t.column("fileName", .text)
                t.column("format", .text).notNull()
                t.column("byteCount", .integer).notNull()
                t.column("importedAt", .integer).notNull()
            }
            try db.create(index: "trackImport_contentHash", on: "trackImport", columns: ["userId", "contentHash"])

            try db.create(table: "track") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade, indexed: false).notNull()
                t.column("name", .text).notNull()
                t.column("kind", .text).notNull()
                t.column("source", .text).notNull()
                t.column("state", .text).notNull()
                t.column("importId", .text).references("trackImport", onDelete: .setNull).indexed()
                t.column("importPosition", .integer).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("updatedAt", .integer).notNull()
                t.column("startTime", .text)
                t.column("endTime", .text)
                t.column("sortKey", .integer).notNull()
                t.column("utcOffsetMinutes", .integer)
                t.column("distanceMeters", .double).notNull()
                t.column("ascentMeters", .double).notNull()
                t.column("descentMeters", .double).notNull()
                t.column("movingSeconds", .double).notNull()
                t.column("elapsedSeconds", .double).notNull()
                t.column("maxSpeedMetersPerSecond", .double).notNull()
                t.column("averageSpeedMetersPerSecond", .double).notNull()
                t.column("pointCount", .integer).notNull()
                t.column("segmentCount", .integer).notNull()
                t.column("waypointCount", .integer).notNull()
                t.column("routeCount", .integer).notNull()
                t.column("minLatitude", .double)
                t.column("minLongitude", .double)
                t.column("maxLatitude", .double)
                t.column("maxLongitude", .double)
                t.column("preview", .blob).notNull()
                t.column("stats", .blob).notNull()
                t.column("gpxVersion", .text).notNull()
                t.column("gpxCreator", .text)
                t.column("gpxHeader", .blob).notNull()
                t.column("documentName", .text)
                t.column("deletedAt", .integer)
            }
            // The list: a user's tracks newest first, a page after a cursor (sortKey, id).
            try db.create(index: "track_list", on: "track", columns: ["userId", "sortKey", "id"])

            try db.create(table: "segment") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("track", onDelete: .cascade, indexed: false).notNull()
                t.column("role", .integer).notNull()
                t.column("part", .integer).notNull()
                t.column("position", .integer).notNull()
                t.column("pointCount", .integer).notNull()
                t.uniqueKey(["trackId", "role", "part", "position"])
            }
            // Points in compact blocks of up to 1,024 (`PointBlockEncoder`): a row per point would cost about
            // 75 bytes a point (DESIGN 4.5); blocks cost about 10.
            try db.create(table: "pointBlock") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("segment", onDelete: .cascade, indexed: false).notNull()
                t.column("position", .integer).notNull()
                t.column("pointCount", .integer).notNull()
                t.column("data", .blob).notNull()
                t.uniqueKey(["segmentId", "position"])
            }

            try db.create(table: "recording") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.belongsTo("track", onDelete: .cascade).notNull()
                t.column("deviceId", .text).references("device", onDelete: .setNull).indexed()
                t.column("state", .text).notNull()
                t.column("routeTrackId", .text).references("track", onDelete: .setNull).indexed()
                t.column("lastClientSequence", .integer)
                t.column("startedAt", .integer).notNull()
                t.column("updatedAt", .integer).notNull()
                t.column("stoppedAt", .integer)
            }

            try db.create(table: "place") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("latitude", .double).notNull()
                t.column("longitude", .double).notNull()
                t.column("name", .text).notNull()
                t.column("address", .text)
                t.column("createdAt", .integer).notNull()
                t.column("updatedAt", .integer).notNull()
            }
            try db.create(table: "note") { t in
                t.primaryKey("id", .text)
                t.belongsTo("place", onDelete: .cascade).notNull()
                t.column("body", .text).notNull()
                t.column("createdAt", .integer).notNull()
                t.column("updatedAt", .integer).notNull()
            }
            try db.create(table: "photo") { t in
                t.primaryKey("id", .text)
                t.belongsTo("note", onDelete: .cascade).notNull()
                t.column("mediaType", .text).notNull()
                t.column("byteCount", .integer).notNull()
                t.column("bytes", .blob).notNull()
                t.column("createdAt", .integer).notNull()
            }
            try db.create(table: "label") { t in
                t.primaryKey("id", .text)
                t.belongsTo("user", onDelete: .cascade, indexed: false).notNull()
                t.column("name", .text).notNull()
                t.column("color", .text).notNull()
                t.uniqueKey(["userId", "name"])
            }
            try db.create(table: "placeLabel") { t in
                t.belongsTo("place", onDelete: .cascade, indexed: false).notNull()
                t.belongsTo("label", onDelete: .cascade).notNull()
                t.primaryKey(["placeId", "labelId"])
            }

            try db.create(table: "documentFile") { t in
                t.belongsTo("user", onDelete: .cascade, indexed: false).notNull()
                t.column("path", .text).notNull()
                t.column("trackId", .text).references("track", onDelete: .setNull).indexed()
                t.column("byteCount", .integer).notNull()
                t.column("modifiedNanoseconds", .integer).notNull()
                t.column("contentHash", .text).notNull()
                t.column("syncedAt", .integer).notNull()
                t.primaryKey(["userId", "path"])
            }
        }

        // A recording's options (units, breadcrumbs …) so that one rebuilt after a restart behaves as it started,
        // and the id a client gave a recording it started offline (unique per user: a repeated start finds it).
        migrator.registerMigration("v2 recording options and client ids") { db in
            try db.alter(table: "recording") { t in
                // JSON of `RecordingOptionsRecord`; NULL for recordings started before this migration (defaults).
                t.add(column: "options", .text)
                t.add(column: "clientId", .text)
            }
            try db.create(
                index: "recording_clientId", on: "recording", columns: ["userId", "clientId"], options: .unique,
                condition: Column("clientId") != nil)
        }
        SQLiteRideStore.registerShareLinkMigration(&migrator)
        SQLiteRideStore.registerPlaceRestoreAndPhotoFilesMigration(&migrator)
        SQLiteRideStore.registerAccountsMigration(&migrator)
        SQLiteRideStore.registerDeviceTrackFiguresMigration(&migrator)
        // What a bike computer or watch measured for a track from its file (FIT, TCX): its totals and laps, as JSON
        // (`DeviceMeasurements`); NULL for every other track.
        migrator.registerMigration("v9 device-measured figures") { db in
            try db.alter(table: "track") { t in t.add(column: "device", .blob) }
        }
        SQLiteRideStore.registerHeatmapMigration(&migrator)
        SQLiteRideStore.registerPrivacyMigration(&migrator)
        SQLiteRideStore.registerShareTokenHashMigration(&migrator)
        SQLiteRideStore.registerAcrossRidesMigration(&migrator)
        SQLiteRideStore.registerImportJobsMigration(&migrator)
        SQLiteRideStore.registerFamilyMigration(&migrator)
        SQLiteRideStore.registerOriginalFilesMigration(&migrator)
        // Laps the rider marked while recording (`LapRules`): a JSON array of times; NULL for a track without.
        migrator.registerMigration("v15 recorded lap marks") { db in
            try db.alter(table: "track") { t in t.add(column: "lapMarks", .text) }
        }
        SQLiteRideStore.registerEffortsVersionMigration(&migrator)
        SQLiteRideStore.registerHeatmapBuildMigration(&migrator)
        return migrator
    }()
}
