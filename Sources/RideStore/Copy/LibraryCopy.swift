import Crypto
import Foundation
import GRDB
import RideKit

/// Moves a SQLite library (a data directory) into a PostgreSQL database (`bikeride copy`), resumably, and checks
/// the result by counts and checksums. This module holds the SQLite side (`Source`), the column catalogue
/// (`CopyTable.all`) and the checksum; the copy itself (`copy(from:to:)`) is in RideStorePostgres.
///
/// - The source is opened read-only and read from one snapshot (a read transaction held for the whole copy):
///   what is copied and what is checked is one state of the library, and the library is never written.
/// - Table by table, in the order foreign keys need, rows are read in key order a batch at a time and each batch
///   is written in one transaction with `ON CONFLICT DO NOTHING`: a copy interrupted anywhere (even `kill -9`)
///   leaves whole batches, and running it again writes what is missing and duplicates nothing. Keys and ids are
///   kept as they are (segments, point blocks and device fixes included, whose sequences are set after).
/// - Point blocks are copied as their bytes (the same packed format on both stores); photos move from the data
///   directory's `Photos` folder (or, for rows stored before photo files, the row itself) into `photo_bytes`.
/// - The check reads both sides again, each table in key order, and hashes a canonical text of every row
///   (`RowChecksum`) the same way for both, so equal checksums mean equal rows, bytes included.
///
/// Memory is bounded by a batch (rows and bytes), time is linear in the library.
public enum LibraryCopy {
    /// How big a batch (one transaction) is.
    public struct Options: Sendable {
        /// Rows a batch holds at most (point blocks and tracks: a quarter of it; photos: also bounded by bytes).
        public var batchRows: Int
        /// Photo bytes a batch holds at most (one photo at least).
        public var batchPhotoBytes: Int
        /// Tests: stop (throwing `Interrupted`) after this many batches were written, as a kill would.
        package var stopAfterBatches: Int?

        /// The defaults: 1,000 rows (250 point blocks, a few megabytes), and up to 32 MiB of photos.
        public init(batchRows: Int = 1000, batchPhotoBytes: Int = 32 << 20) {
            self.batchRows = batchRows
            self.batchPhotoBytes = batchPhotoBytes
        }
    }

    /// What happened, as the command reports it.
    public enum Progress: Sendable {
        /// A table is being copied: rows read so far of `total`, rows new in the target so far.
        case copying(table: String, read: Int, total: Int, copied: Int)
        /// The tables are being checked (counted and hashed on both sides).
        case checking(table: String)
    }

    /// Thrown by a copy that `Options.stopAfterBatches` stopped (tests).
    package struct Interrupted: Error { package init() {} }

    /// One table on both sides after a copy.
    public struct TableReport: Sendable, Codable, Hashable {
        /// The table's name in PostgreSQL.
        public var table: String
        /// Rows in the library.
        public var sourceRows: Int
        /// Rows in the database.
        public var targetRows: Int
        /// Rows this run wrote (0 for a table copied already).
        public var copiedRows: Int
        /// SHA-256 (hex) of the library's rows (`RowChecksum`).
        public var sourceChecksum: String
        /// SHA-256 (hex) of the database's rows, computed the same way.
        public var targetChecksum: String
        /// Whether both sides hold the same rows.
        public var matches: Bool { sourceRows == targetRows && sourceChecksum == targetChecksum }

        enum CodingKeys: String, CodingKey { case table, sourceRows, targetRows, copiedRows, sourceChecksum, targetChecksum, matches }

        /// A table's figures.
        public init(table: String, sourceRows: Int, targetRows: Int, copiedRows: Int, sourceChecksum: String, targetChecksum: String) {
            self.table = table
            self.sourceRows = sourceRows
            self.targetRows = targetRows
            self.copiedRows = copiedRows
            self.sourceChecksum = sourceChecksum
            self.targetChecksum = targetChecksum
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            table = try container.decode(String.self, forKey: .table)
            sourceRows = try container.decode(Int.self, forKey: .sourceRows)
            targetRows = try container.decode(Int.self, forKey: .targetRows)
            copiedRows = try container.decode(Int.self, forKey: .copiedRows)
            sourceChecksum = try container.decode(String.self, forKey: .sourceChecksum)
            targetChecksum = try container.decode(String.self, forKey: .targetChecksum)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encode(sourceRows, forKey: .sourceRows)
            try container.encode(targetRows, forKey: .targetRows)
            try container.encode(copiedRows, forKey: .copiedRows)
            try container.encode(sourceChecksum, forKey: .sourceChecksum)
            try container.encode(targetChecksum, forKey: .targetChecksum)
            try container.encode(matches, forKey: .matches)
        }
    }

    /// Every table after a copy or a check, in the order they are copied.
    public struct Report: Sendable, Codable, Hashable {
        /// Every table, in the order they are copied.
        public var tables: [TableReport]
        /// The tables whose counts or checksums differ (empty: the copy is whole).
        public var differing: [String] { tables.filter { !$0.matches }.map(\.table) }
        /// Rows this run wrote, in all tables.
        public var copiedRows: Int { tables.reduce(0) { $0 + $1.copiedRows } }

        /// The tables' reports, in the order they are copied.
        package init(tables: [TableReport]) { self.tables = tables }
    }
}

// MARK: Values and checksums

/// A value of a row as both stores hold it.
package enum CopyValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case bytes(Data)
}

/// SHA-256 of a canonical text of rows, in the order they are added: for each value a type letter and the value
/// (integers in decimal, reals as their 64 bits in hex, text and bytes with their length first), a row ending
/// with a newline. Both sides' rows go through it, so equal sums mean equal rows in equal order.
package struct RowChecksum {
    private var hasher = SHA256()
    package private(set) var count = 0

    package init() {}

    package mutating func add(_ row: [CopyValue]) {
        var text = Data()
        for value in row {
            switch value {
            case .null: text.append(contentsOf: Array("N;".utf8))
            case .integer(let value): text.append(contentsOf: Array("I\(value);".utf8))
            case .real(let value): text.append(contentsOf: Array("R\(String(value.bitPattern, radix: 16));".utf8))
            case .text(let value):
                let bytes = Array(value.utf8)
                text.append(contentsOf: Array("T\(bytes.count):".utf8))
                text.append(contentsOf: bytes)
                text.append(UInt8(ascii: ";"))
            case .bytes(let value):
                text.append(contentsOf: Array("B\(value.count):".utf8))
                hasher.update(data: text)
                text.removeAll(keepingCapacity: true)
                hasher.update(data: value)
                text.append(UInt8(ascii: ";"))
            }
        }
        text.append(UInt8(ascii: "\n"))
        hasher.update(data: text)
        count += 1
    }

    package var hex: String { hasher.finalize().map { String(format: "%02x", $0) }.joined() }
}

// MARK: Tables

/// A column: its name in SQLite (camelCase) and in PostgreSQL (snake_case), and its type on both.
package struct CopyColumn: Sendable {
    package enum Kind: Sendable { case text, integer, smallInteger, real, bytes }

    package let source: String
    package let target: String
    package let kind: Kind

    init(_ source: String, _ kind: Kind) {
        self.source = source
        self.kind = kind
        target = Self.snakeCase(source)
    }

    package static func snakeCase(_ name: String) -> String {
        var result = ""
        for character in name {
            if character.isUppercase {
                result.append("_")
                result.append(contentsOf: character.lowercased())
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The PostgreSQL type a bound value is cast to.
    package var targetType: String {
        switch kind {
        case .text: "text"
        case .integer: "bigint"
        case .smallInteger: "smallint"
        case .real: "double precision"
        case .bytes: "bytea"
        }
    }
}

/// A table of the copy: its names on both sides, its columns in the target's terms (the key first), and how
/// many leading columns are the key. `photos` and `photo_bytes` come from SQLite's `photo` and its files.
package struct CopyTable: Sendable {
    package let name: String
    package let source: String
    package let columns: [CopyColumn]
    package let keyCount: Int
    /// PostgreSQL makes its ids (BIGSERIAL / identity): ids are copied as they are and the sequence set after.
    package let hasSequence: Bool
    /// An identity column `GENERATED ALWAYS`: inserting an id needs `OVERRIDING SYSTEM VALUE`.
    package let identityAlways: Bool
    /// Rows of a batch are this fraction of `Options.batchRows` (tables with bytes in their rows).
    package let batchDivisor: Int

    init(
        _ name: String, from source: String, key keyCount: Int = 1, _ columns: [(String, CopyColumn.Kind)], sequence: Bool = false,
        identityAlways: Bool = false, batchDivisor: Int = 1
    ) {
        self.name = name
        self.source = source
        self.columns = columns.map { CopyColumn($0.0, $0.1) }
        self.keyCount = keyCount
        hasSequence = sequence
        self.identityAlways = identityAlways
        self.batchDivisor = batchDivisor
    }

    package func batchLimit(_ rows: Int) -> Int { max(1, rows / batchDivisor) }

    package var keyColumns: ArraySlice<CopyColumn> { columns.prefix(keyCount) }

    /// In the order foreign keys need them.
    package static let all: [CopyTable] = [
        CopyTable("users", from: "user", [("id", .text), ("name", .text), ("passwordHash", .text), ("createdAt", .integer)]),
        CopyTable(
            "devices", from: "device",
            [
                ("id", .text), ("userId", .text), ("name", .text), ("tokenHash", .text), ("protocol", .text), ("createdAt", .integer),
                ("lastSeenAt", .integer),
            ]),
        CopyTable(
            "track_imports", from: "trackImport",
            [
                ("id", .text), ("userId", .text), ("contentHash", .text), ("fileName", .text), ("format", .text), ("byteCount", .integer),
                ("importedAt", .integer),
            ]),
        CopyTable("import_originals", from: "importOriginal", [("importId", .text), ("bytes", .bytes)], batchDivisor: 16),
        CopyTable(
            "tracks", from: "track",
            [
                ("id", .text), ("userId", .text), ("name", .text), ("kind", .text), ("source", .text), ("state", .text), ("importId", .text),
                ("importPosition", .integer), ("createdAt", .integer), ("updatedAt", .integer), ("startTime", .text), ("endTime", .text),
                ("sortKey", .integer), ("utcOffsetMinutes", .integer), ("distanceMeters", .real), ("ascentMeters", .real),
                ("descentMeters", .real), ("movingSeconds", .real), ("elapsedSeconds", .real), ("maxSpeedMetersPerSecond", .real),
                ("averageSpeedMetersPerSecond", .real), ("pointCount", .integer), ("segmentCount", .integer), ("waypointCount", .integer),
                ("routeCount", .integer), ("minLatitude", .real), ("minLongitude", .real), ("maxLatitude", .real), ("maxLongitude", .real),
                ("preview", .bytes), ("stats", .bytes), ("gpxVersion", .text), ("gpxCreator", .text), ("gpxHeader", .bytes),
                ("documentName", .text), ("deletedAt", .integer), ("device", .bytes), ("lapMarks", .text), ("effortsVersion", .integer),
            ], batchDivisor: 4),
        CopyTable(
            "segments", from: "segment",
            [("id", .integer), ("trackId", .text), ("role", .smallInteger), ("part", .integer), ("position", .integer), ("pointCount", .integer)],
            sequence: true),
        CopyTable(
            "point_blocks", from: "pointBlock",
            [("id", .integer), ("segmentId", .integer), ("position", .integer), ("pointCount", .integer), ("data", .bytes)], sequence: true,
            batchDivisor: 4),
        CopyTable(
            "recordings", from: "recording",
            [
                ("id", .text), ("userId", .text), ("trackId", .text), ("deviceId", .text), ("state", .text), ("routeTrackId", .text),
                ("lastClientSequence", .integer), ("startedAt", .integer), ("updatedAt", .integer), ("stoppedAt", .integer), ("options", .text),
                ("clientId", .text), ("figuresPointCount", .integer), ("figuresUntil", .integer), ("blocksUntil", .integer),
            ]),
        CopyTable("sessions", from: "session", [("tokenHash", .text), ("userId", .text), ("createdAt", .integer), ("expiresAt", .integer)]),
        CopyTable(
            "device_fixes", from: "deviceFix",
            [
                ("id", .integer), ("deviceId", .text), ("userId", .text), ("time", .integer), ("latitude", .real), ("longitude", .real),
                ("elevation", .real), ("speed", .real), ("course", .real), ("accuracy", .real), ("battery", .real), ("trackId", .text),
                ("receivedAt", .integer),
            ], sequence: true, identityAlways: true),
        CopyTable(
            "share_links", from: "shareLink",
            [
                ("token", .text), ("userId", .text), ("targetKind", .text), ("targetId", .text), ("createdAt", .integer), ("revokedAt", .integer),
                ("expiresAt", .integer), ("trackId", .text), ("options", .text),
            ]),
        CopyTable(
            "privacy_zones", from: "privacyZone",
            [
                ("id", .text), ("userId", .text), ("latitude", .real), ("longitude", .real), ("radiusMeters", .real), ("name", .text),
                ("createdAt", .integer),
            ]),
        CopyTable("privacy_settings", from: "privacySetting", key: 1, [("userId", .text), ("hiddenEndMeters", .real), ("secret", .bytes)]),
        CopyTable(
            "family_shares", from: "familyShare", key: 2, [("sharerId", .text), ("viewerId", .text), ("createdAt", .integer), ("expiresAt", .integer)]),
        CopyTable(
            "places", from: "place",
            [
                ("id", .text), ("userId", .text), ("latitude", .real), ("longitude", .real), ("name", .text), ("address", .text),
                ("createdAt", .integer), ("updatedAt", .integer), ("deletedAt", .integer),
            ]),
        CopyTable("notes", from: "note", [("id", .text), ("placeId", .text), ("body", .text), ("createdAt", .integer), ("updatedAt", .integer)]),
        CopyTable("labels", from: "label", [("id", .text), ("userId", .text), ("name", .text), ("color", .text)]),
        CopyTable("place_labels", from: "placeLabel", key: 2, [("placeId", .text), ("labelId", .text)]),
        // SQLite's `photo` without its bytes; `thumbnailMediaType` is the thumbnail's when it has one.
        CopyTable(
            "photos", from: "photo",
            [
                ("id", .text), ("noteId", .text), ("mediaType", .text), ("byteCount", .integer), ("thumbnailMediaType", .text),
                ("createdAt", .integer),
            ]),
        // The photo's bytes and its thumbnail's: from the files `photo.fileName` and `photo.thumbnailFileName` name.
        CopyTable("photo_bytes", from: "photo", [("photoId", .text), ("bytes", .bytes), ("thumbnail", .bytes)]),
        CopyTable(
            "document_files", from: "documentFile", key: 2,
            [
                ("userId", .text), ("path", .text), ("trackId", .text), ("byteCount", .integer), ("modifiedNanoseconds", .integer),
                ("contentHash", .text), ("syncedAt", .integer),
            ]),
        CopyTable(
            "track_efforts", from: "trackEffort", key: 2,
            [("trackId", .text), ("key", .text), ("value", .real), ("score", .real), ("startOffset", .real), ("endOffset", .real)]),
        CopyTable("user_goals", from: "userGoal", key: 2, [("userId", .text), ("kind", .text), ("measure", .text), ("target", .real)]),
        CopyTable(
            "import_jobs", from: "importJob",
            [
                ("id", .text), ("userId", .text), ("fileName", .text), ("state", .text), ("filesDone", .integer), ("filesTotal", .integer),
                ("imported", .integer), ("alreadyImported", .integer), ("failureCount", .integer), ("failures", .text), ("trackIds", .text),
                ("message", .text), ("createdAt", .integer), ("updatedAt", .integer), ("finishedAt", .integer),
            ]),
    ]
}

// MARK: The source

extension LibraryCopy {
    /// The SQLite library, read-only, through one snapshot held until the copy ends.
    package final class Source: Sendable {
        let directory: DataDirectory
        let snapshot: DatabaseSnapshot
        let photos: PhotoFolder

        package init(directory: DataDirectory) throws {
            self.directory = directory
            let path = directory.databaseURL.path
            guard FileManager.default.fileExists(atPath: path) else {
                throw RideStoreError.io(path: path, reason: "no bikeride library here (give the data directory that holds bikeride.sqlite)")
            }
            var configuration = GRDB.Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(10)
            configuration.label = "bikeride.copy"
            do {
                let pool = try DatabasePool(path: path, configuration: configuration)
                try pool.read { db in
                    if try SQLiteRideStore.migrator.hasBeenSuperseded(db) {
                        throw RideStoreError.conflict("the library's schema is newer than this bikeride knows: copy it with a newer bikeride")
                    }
                    guard try SQLiteRideStore.migrator.hasCompletedMigrations(db) else {
                        throw RideStoreError.conflict(
                            "the library's schema is older than this bikeride's: open it once with this bikeride (for example "
                                + "`bikeride list --data-dir \(directory.url.path)`), which upgrades it, then copy")
                    }
                }
                try Self.blockPendingFixes(path: path)
                snapshot = try pool.makeSnapshot()
            } catch {
                throw SQLiteRideStore.storeError(error)
            }
            photos = PhotoFolder(url: directory.photosURL)
        }

        /// A live device track's latest fixes are read from deviceFix until its point blocks take them
        /// (`SQLiteRideStore.blockPendingFixes`); the copy takes the blocks as they are, so they are put there
        /// first. The one write a copy makes to its source, and only to tracks in progress.
        static func blockPendingFixes(path: String) throws {
            var configuration = GRDB.Configuration()
            configuration.busyMode = .timeout(10)
            configuration.label = "bikeride.copy.settle"
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { db in
                for trackID in try TrackID.fetchAll(db, sql: "SELECT trackId FROM recording WHERE state != 'stopped'") {
                    try SQLiteRideStore.blockPendingFixes(trackID: trackID, db)
                }
            }
        }

        package func count(_ table: CopyTable) async throws -> Int {
            try await read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(Self.quoted(table.source))") ?? 0 }
        }

        package func users() async throws -> [String: String] {
            try await read { db in
                var users: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, name FROM \"user\"") { users[row[0]] = row[1] as String }
                return users
            }
        }

        /// Up to `limit` rows of `table` after the key `after`, in key order, in the target's columns.
        package func rows(_ table: CopyTable, after: [CopyValue]?, limit: Int, photoBytes: Int) async throws -> [[CopyValue]] {
            switch table.name {
            case "photos": return try await photoRows(after: after, limit: limit, photoBytes: photoBytes).map(\.metadata)
            case "photo_bytes":
                let photos = try await photoRows(after: after, limit: limit, photoBytes: photoBytes)
                return try await photoBytesRows(keys: photos.map { $0.metadata[0] })
            default: break
            }
            let columns = table.columns.map { Self.quoted($0.source) }.joined(separator: ", ")
            let keys = table.keyColumns.map { Self.quoted($0.source) }.joined(separator: ", ")
            let condition = after == nil ? "" : "WHERE (\(keys)) > (\(Array(repeating: "?", count: table.keyCount).joined(separator: ", ")))"
            let sql = "SELECT \(columns) FROM \(Self.quoted(table.source)) \(condition) ORDER BY \(keys) LIMIT ?"
            let arguments = StatementArguments((after ?? []).map(\.databaseValue) + [limit.databaseValue])
            return try await read { db in
                try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                    try table.columns.enumerated().map { index, column in
                        try Self.value(row[index] as DatabaseValue, column, table: table.source)
                    }
                }
            }
        }

        /// A photo's row as `photos` holds it (`metadata`), with what `photo_bytes` needs to find its bytes.
        package struct PhotoRow: Sendable {
            var metadata: [CopyValue]
            var fileName: String?
            var thumbnailFileName: String?
        }

        /// Photos after `after` in id order, as many as `limit` and `photoBytes` (by `byteCount`) allow, one at least.
        package func photoRows(after: [CopyValue]?, limit: Int, photoBytes: Int) async throws -> [PhotoRow] {
            let afterID: String? = if case .text(let id) = after?.first { id } else { nil }
            let columns = "id, noteId, mediaType, byteCount, thumbnailMediaType, createdAt, fileName, thumbnailFileName"
            typealias Stored = (
                id: String, noteID: String, mediaType: String, byteCount: Int64, thumbnailType: String?, createdAt: Int64, fileName: String?,
                thumbnailFileName: String?
            )
            let rows = try await read { db -> [Stored] in
                let rows =
                    if let afterID {
                        try Row.fetchAll(db, sql: "SELECT \(columns) FROM photo WHERE id > ? ORDER BY id LIMIT ?", arguments: [afterID, limit])
                    } else {
                        try Row.fetchAll(db, sql: "SELECT \(columns) FROM photo ORDER BY id LIMIT ?", arguments: [limit])
                    }
                return rows.map { row in (row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7]) }
            }
            var photos: [PhotoRow] = []
            var bytes = 0
            for row in rows {
                let byteCount = row.byteCount
                if !photos.isEmpty && bytes + Int(clamping: byteCount) > photoBytes { break }
                bytes += Int(clamping: byteCount)
                let id = row.id
                let fileName = row.fileName
                let thumbnailFileName = row.thumbnailFileName
                var thumbnailType: String? = thumbnailFileName == nil ? nil : row.thumbnailType ?? "image/jpeg"
                if fileName == nil {
                    // Stored before photo files: the SQLite store would move it out with the EXIF thumbnail it holds.
                    let (_, thumbnail) = try await bytesOfOldPhoto(id)
                    thumbnailType = thumbnail == nil ? nil : "image/jpeg"
                }
                photos.append(
                    PhotoRow(
                        metadata: [
                            .text(id), .text(row.noteID), .text(row.mediaType), .integer(byteCount),
                            thumbnailType.map(CopyValue.text) ?? .null, .integer(row.createdAt),
                        ], fileName: fileName, thumbnailFileName: thumbnailFileName))
            }
            return photos
        }

        /// The `photo_bytes` rows of the photos with these ids (read from their files), in the same order.
        package func photoBytesRows(keys: [CopyValue]) async throws -> [[CopyValue]] {
            var rows: [[CopyValue]] = []
            for key in keys {
                guard case .text(let id) = key else { continue }
                let names = try await read { db -> (String?, String?)? in
                    try Row.fetchOne(db, sql: "SELECT fileName, thumbnailFileName FROM photo WHERE id = ?", arguments: [id]).map { ($0[0], $0[1]) }
                }
                guard let (fileName, thumbnailFileName) = names else {
                    throw RideStoreError.damaged("photo \(id) vanished from the library's snapshot")
                }
                let bytes: Data
                let thumbnail: Data?
                if let fileName {
                    // The store names its files itself (`PhotoFolder.fileName`): a name that leaves the folder is damage.
                    for name in [fileName, thumbnailFileName].compactMap({ $0 }) where name.contains("/") || name.hasPrefix(".") {
                        throw RideStoreError.damaged("photo \(id) names the file '\(name)', which is not in the Photos folder")
                    }
                    bytes = try photos.read(fileName)
                    thumbnail = try thumbnailFileName.map { try photos.read($0) }
                } else {
                    (bytes, thumbnail) = try await bytesOfOldPhoto(id)
                }
                rows.append([.text(id), .bytes(bytes), thumbnail.map(CopyValue.bytes) ?? .null])
            }
            return rows
        }

        /// A photo kept in its row (before photo files): its bytes and, for a JPEG, its EXIF thumbnail.
        package func bytesOfOldPhoto(_ id: String) async throws -> (Data, Data?) {
            let row = try await read { db -> (Data?, String)? in
                try Row.fetchOne(db, sql: "SELECT bytes, mediaType FROM photo WHERE id = ?", arguments: [id]).map { ($0[0], $0[1]) }
            }
            guard let row else { throw RideStoreError.damaged("photo \(id) vanished from the library's snapshot") }
            let bytes = row.0 ?? Data()
            let mediaType = row.1
            guard mediaType == "image/jpeg", let range = JPEGThumbnail.range(in: bytes) else { return (bytes, nil) }
            return (bytes, bytes.subdata(in: (bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound)))
        }

        func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
            do {
                return try await snapshot.read(body)
            } catch {
                throw SQLiteRideStore.storeError(error)
            }
        }

        static func quoted(_ name: String) -> String { "\"\(name)\"" }

        /// A stored value as the column's type; a value of another type is damage (SQLite does not enforce types).
        static func value(_ stored: DatabaseValue, _ column: CopyColumn, table: String) throws -> CopyValue {
            switch (column.kind, stored.storage) {
            case (_, .null): return .null
            case (.text, .string(let text)): return .text(text)
            case (.integer, .int64(let value)), (.smallInteger, .int64(let value)): return .integer(value)
            case (.real, .double(let value)): return .real(value)
            case (.real, .int64(let value)): return .real(Double(value))
            case (.bytes, .blob(let data)): return .bytes(data)
            default:
                throw RideStoreError.damaged("\(table).\(column.source) holds \(stored) where the schema has \(column.targetType)")
            }
        }
    }
}

extension CopyValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .bytes(let value): value.databaseValue
        }
    }
}
