import Foundation
import GRDB
import RideKit

/// A row of `track`: one saved track's figures and headers; its points are in `segment` and `pointBlock`.
struct TrackRecord: Hashable {
    var id: TrackID
    var userId: UserID
    var name: String
    var kind: TrackKind
    var source: TrackSource
    var state: TrackState
    var importId: ImportID?
    /// The track's place among those of its import (file order).
    var importPosition: Int
    var createdAt: Date
    var updatedAt: Date
    /// RFC 3339 as written, offset and digits kept.
    var startTime: String?
    var endTime: String?
    /// Milliseconds since 1970 of the start time, else of `createdAt`: the list's order.
    var sortKey: Int64
    var utcOffsetMinutes: Int?
    var distanceMeters: Double
    var ascentMeters: Double
    var descentMeters: Double
    var movingSeconds: Double
    var elapsedSeconds: Double
    var maxSpeedMetersPerSecond: Double
    var averageSpeedMetersPerSecond: Double
    var pointCount: Int
    var segmentCount: Int
    var waypointCount: Int
    var routeCount: Int
    var minLatitude: Double?
    var minLongitude: Double?
    var maxLatitude: Double?
    var maxLongitude: Double?
    /// The simplified shape (`PreviewCodec`).
    var preview: Data
    /// Every figure as JSON (`TrackStats`' Codable form), splits included.
    var stats: Data
    var gpxVersion: String
    var gpxCreator: String?
    /// The file's metadata and the headers of its tracks, segments and routes, without points (`TrackHeaderCodec`).
    var gpxHeader: Data
    var documentName: String?
    var deletedAt: Date?
}

extension TrackRecord: StoreRecord {
    static let databaseTableName = "track"

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let userId = Column(CodingKeys.userId)
        static let name = Column(CodingKeys.name)
        static let kind = Column(CodingKeys.kind)
        static let state = Column(CodingKeys.state)
        static let importId = Column(CodingKeys.importId)
        static let importPosition = Column(CodingKeys.importPosition)
        static let sortKey = Column(CodingKeys.sortKey)
        static let pointCount = Column(CodingKeys.pointCount)
        static let segmentCount = Column(CodingKeys.segmentCount)
        static let documentName = Column(CodingKeys.documentName)
        static let deletedAt = Column(CodingKeys.deletedAt)
        static let createdAt = Column(CodingKeys.createdAt)
        static let updatedAt = Column(CodingKeys.updatedAt)
        static let stats = Column(CodingKeys.stats)
    }

    /// Sets every column that comes from the figures.
    mutating func apply(_ stats: TrackStats) throws {
        startTime = stats.startTime?.rfc3339
        endTime = stats.endTime?.rfc3339
        sortKey = Self.sortKey(start: stats.startTime, createdAt: createdAt)
        utcOffsetMinutes = stats.startTime?.offsetMinutes
        distanceMeters = stats.distanceMeters
        ascentMeters = stats.ascentMeters
        descentMeters = stats.descentMeters
        movingSeconds = stats.movingSeconds
        elapsedSeconds = stats.elapsedSeconds
        maxSpeedMetersPerSecond = stats.maxSpeedMetersPerSecond
        averageSpeedMetersPerSecond = stats.averageSpeedMetersPerSecond
        minLatitude = stats.bounds?.minLatitude
        minLongitude = stats.bounds?.minLongitude
        maxLatitude = stats.bounds?.maxLatitude
        maxLongitude = stats.bounds?.maxLongitude
        self.stats = try JSONEncoder().encode(stats)
    }

    static func sortKey(start: GPXTime?, createdAt: Date) -> Int64 {
        if let start {
            let (milliseconds, overflow) = start.secondsSince1970.multipliedReportingOverflow(by: 1000)
            if !overflow { return milliseconds + Int64(start.nanoseconds / 1_000_000) }
        }
        return Int64((createdAt.timeIntervalSince1970 * 1000).rounded())
    }

    func decodedStats() throws -> TrackStats {
        do {
            return try JSONDecoder().decode(TrackStats.self, from: stats)
        } catch {
            throw RideStoreError.damaged("the figures of track \(id) cannot be read: \(error)")
        }
    }
}

/// The columns of `track` that the list shows: no figures blob, no headers.
struct TrackSummaryRow: Decodable, FetchableRecord, TableRecord {
    static let databaseTableName = "track"
    /// The columns read, once: as GRDB's selection and as SQL for hand-written queries.
    static let columnNames = [
        "id", "name", "kind", "source", "state", "importId", "createdAt", "updatedAt", "startTime", "endTime", "sortKey",
        "distanceMeters", "ascentMeters", "descentMeters", "movingSeconds", "elapsedSeconds", "maxSpeedMetersPerSecond",
        "pointCount", "segmentCount", "waypointCount", "routeCount", "minLatitude",
        "minLongitude", "maxLatitude", "maxLongitude", "preview", "documentName", "deletedAt",
    ]
    static var databaseSelection: [any SQLSelectable] { columnNames.map { Column($0) } }
    static let selectionSQL = columnNames.joined(separator: ", ")

    var id: TrackID
    var name: String
    var kind: TrackKind
    var source: TrackSource
    var state: TrackState
    var importId: ImportID?
    var createdAt: Date
    var updatedAt: Date
    var startTime: String?
    var endTime: String?
    var sortKey: Int64
    var distanceMeters: Double
    var ascentMeters: Double
    var descentMeters: Double
    var movingSeconds: Double
    var elapsedSeconds: Double
    var maxSpeedMetersPerSecond: Double
    var pointCount: Int
    var segmentCount: Int
    var waypointCount: Int
    var routeCount: Int
    var minLatitude: Double?
    var minLongitude: Double?
    var maxLatitude: Double?
    var maxLongitude: Double?
    var preview: Data
    var documentName: String?
    var deletedAt: Date?

    static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }

    var summary: TrackSummary {
        var bounds: GPXBounds?
        if let minLatitude, let minLongitude, let maxLatitude, let maxLongitude {
            bounds = GPXBounds(minLatitude: minLatitude, minLongitude: minLongitude, maxLatitude: maxLatitude, maxLongitude: maxLongitude)
        }
        return TrackSummary(
            id: id, name: name, kind: kind, source: source, state: state, createdAt: createdAt, updatedAt: updatedAt,
            startTime: startTime.flatMap { try? GPXTime(parsing: $0) }, endTime: endTime.flatMap { try? GPXTime(parsing: $0) },
            distanceMeters: distanceMeters, ascentMeters: ascentMeters, descentMeters: descentMeters,
            movingSeconds: movingSeconds, elapsedSeconds: elapsedSeconds, maxSpeedMetersPerSecond: maxSpeedMetersPerSecond,
            pointCount: pointCount, segmentCount: segmentCount,
            waypointCount: waypointCount, routeCount: routeCount, bounds: bounds, preview: PreviewCodec.decode(preview),
            importID: importId, documentName: documentName, deletedAt: deletedAt)
    }
}
