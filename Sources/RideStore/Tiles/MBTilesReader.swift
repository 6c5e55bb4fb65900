import Foundation
import GRDB

/// A read-only MBTiles tile set (an SQLite file: `tiles(zoom_level, tile_column, tile_row, tile_data)` and
/// `metadata(name, value)`, rows counted from the south as in TMS), read through GRDB like the store: the
/// server serves the offline base map from it and writes no SQL of its own.
///
/// One read-only connection (a `DatabaseQueue`), serialised by GRDB; a tile lookup is an index probe of a few
/// microseconds, so requests share it.
public final class MBTilesReader: Sendable {
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
    private let database: DatabaseQueue

    /// Opens `path` read-only and reads its metadata; throws if it is not an MBTiles file.
    public init(path: String) throws(MBTilesError) {
        guard FileManager.default.fileExists(atPath: path) else { throw .cannotOpen(path: path, reason: "no such file") }
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        configuration.label = "mbtiles"
        do {
            database = try DatabaseQueue(path: path, configuration: configuration)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_NOTADB {
            // GRDB reads the schema as it opens: a file that is not SQLite at all fails here.
            throw .notMBTiles(reason: Self.reason(error))
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
        self.path = path
        let values: [String: String]
        let zooms: (min: Int, max: Int)
        do {
            let read = try database.read { db -> ([String: String], (min: Int, max: Int)) in
                var values: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT name, value FROM metadata") {
                    if let name = row[0] as String?, let value = row[1] as String? { values[name] = value }
                }
                // Probe the tiles table so that a wrong file fails now, not at the first tile.
                _ = try Row.fetchOne(db, sql: "SELECT 1 FROM tiles LIMIT 1")
                // Zooms 0–22 when the set has no tiles to say otherwise.
                var zooms = (min: 0, max: 22)
                if let row = try Row.fetchOne(db, sql: "SELECT MIN(zoom_level), MAX(zoom_level) FROM tiles"),
                   let low = row[0] as Int?, let high = row[1] as Int? {
                    zooms = (low, high)
                }
                return (values, zooms)
            }
            values = read.0
            zooms = read.1
        } catch {
            throw .notMBTiles(reason: Self.reason(error))
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

    /// The image of tile `z/x/y` in slippy-map numbering (y from the north), or nil when the set lacks it;
    /// empty when its row holds no image.
    public func tile(zoom: Int, x: Int, y: Int) throws(MBTilesError) -> [UInt8]? {
        guard (0...30).contains(zoom) else { return nil }
        let count = 1 << zoom
        guard (0..<count).contains(x), (0..<count).contains(y) else { return nil }
        do {
            return try database.read { db -> [UInt8]? in
                guard let row = try Row.fetchOne(
                    db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                    arguments: [zoom, x, count - 1 - y])
                else { return nil }
                return (row[0] as Data?).map { [UInt8]($0) } ?? []
            }
        } catch {
            throw .readFailed(reason: Self.reason(error))
        }
    }

    private static func reason(_ error: any Error) -> String {
        (error as? DatabaseError)?.message ?? "\(error)"
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
