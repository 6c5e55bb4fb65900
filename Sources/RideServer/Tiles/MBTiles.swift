import CSQLite
import Foundation

/// A read-only MBTiles tile set (an SQLite file: `tiles(zoom_level, tile_column, tile_row, tile_data)` and
/// `metadata(name, value)`, rows counted from the south as in TMS).
///
/// Read with the system's SQLite: one connection, serialised by SQLite itself (`SQLITE_OPEN_FULLMUTEX`); a
/// tile lookup is an index probe of a few microseconds, so requests share it.
public final class MBTiles: @unchecked Sendable {
    /// What the metadata says, with defaults for what it leaves out.
    public struct Metadata: Sendable, Hashable {
        public var name: String
        /// Tile image format: `png`, `jpg` or `webp`.
        public var format: String
        public var minZoom: Int
        public var maxZoom: Int
        /// West, south, east, north in degrees, if given.
        public var bounds: [Double]?
        public var attribution: String?

        /// The media type of the tiles.
        public var mediaType: String {
            switch format {
            case "jpg", "jpeg": return "image/jpeg"
            case "webp": return "image/webp"
            default: return "image/png"
            }
        }
    }

    public let path: String
    public let metadata: Metadata
    private let database: OpaquePointer
    private let lock = NSLock()

    /// Opens `path` read-only and reads its metadata; throws if it is not an MBTiles file.
    public init(path: String) throws(MBTilesError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_FULLMUTEX
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK, let handle else {
            let reason = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(handle)
            throw .cannotOpen(path: path, reason: reason)
        }
        self.path = path
        database = handle
        var values: [String: String] = [:]
        do {
            try Self.query(handle, "SELECT name, value FROM metadata") { statement in
                if let name = sqlite3_column_text(statement, 0), let value = sqlite3_column_text(statement, 1) {
                    values[String(cString: name)] = String(cString: value)
                }
            }
            // Probe the tiles table so that a wrong file fails now, not at the first tile.
            try Self.query(handle, "SELECT 1 FROM tiles LIMIT 1") { _ in }
        } catch {
            sqlite3_close(handle)
            throw error
        }
        var zooms = (min: 0, max: 22)
        try? Self.query(handle, "SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles") { statement in
            if sqlite3_column_type(statement, 0) != SQLITE_NULL {
                zooms = (Int(sqlite3_column_int(statement, 0)), Int(sqlite3_column_int(statement, 1)))
            }
        }
        let bounds = values["bounds"].map { $0.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        metadata = Metadata(
            name: values["name"] ?? URL(filePath: path).deletingPathExtension().lastPathComponent,
            format: values["format"]?.lowercased() ?? "png",
            minZoom: values["minzoom"].flatMap { Int($0) } ?? zooms.min,
            maxZoom: values["maxzoom"].flatMap { Int($0) } ?? zooms.max,
            bounds: bounds?.count == 4 ? bounds : nil,
            attribution: values["attribution"]
        )
    }

    deinit { sqlite3_close(database) }

    /// The image of tile `z/x/y` in slippy-map numbering (y from the north), or nil when the set lacks it.
    public func tile(zoom: Int, x: Int, y: Int) throws(MBTilesError) -> [UInt8]? {
        guard (0...30).contains(zoom) else { return nil }
        let count = 1 << zoom
        guard (0..<count).contains(x), (0..<count).contains(y) else { return nil }
        var result: [UInt8]?
        lock.lock()
        defer { lock.unlock() }
        try Self.query(
            database, "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
            bind: [zoom, x, count - 1 - y]
        ) { statement in
            let size = Int(sqlite3_column_bytes(statement, 0))
            if let blob = sqlite3_column_blob(statement, 0), size > 0 {
                result = Array(UnsafeRawBufferPointer(start: blob, count: size))
            } else {
                result = []
            }
        }
        return result
    }

    private static func query(
        _ database: OpaquePointer, _ sql: String, bind: [Int] = [], row: (OpaquePointer) -> Void
    ) throws(MBTilesError) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw .notMBTiles(reason: String(cString: sqlite3_errmsg(database)))
        }
        defer { sqlite3_finalize(statement) }
        for (index, value) in bind.enumerated() { sqlite3_bind_int64(statement, Int32(index + 1), Int64(value)) }
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_ROW {
                row(statement)
            } else if step == SQLITE_DONE {
                return
            } else {
                throw .readFailed(reason: String(cString: sqlite3_errmsg(database)))
            }
        }
    }
}

/// Why an MBTiles file could not be used.
public enum MBTilesError: Error, Sendable, Hashable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case notMBTiles(reason: String)
    case readFailed(reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open the tile set \(path): \(reason)"
        case .notMBTiles(let reason): return "not an MBTiles file (\(reason)); it needs the tables metadata and tiles"
        case .readFailed(let reason): return "reading the tile set failed: \(reason)"
        }
    }
}
