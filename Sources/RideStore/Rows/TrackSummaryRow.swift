import Foundation
import RideKit

/// The columns of `track` (`tracks`) that the list shows: no figures blob, no headers.
package struct TrackSummaryRow: Codable, Sendable {
    /// The columns read, once: as GRDB's selection and as SQL for hand-written queries.
    package static let columnNames = [
        "id", "name", "kind", "source", "state", "importId", "createdAt", "updatedAt", "startTime", "endTime", "sortKey",
        "distanceMeters", "ascentMeters", "descentMeters", "movingSeconds", "elapsedSeconds", "maxSpeedMetersPerSecond",
        "pointCount", "segmentCount", "waypointCount", "routeCount", "minLatitude",
        "minLongitude", "maxLatitude", "maxLongitude", "preview", "documentName", "deletedAt",
    ]
    static let selectionSQL = columnNames.joined(separator: ", ")

    package var id: TrackID
    package var name: String
    package var kind: TrackKind
    package var source: TrackSource
    package var state: TrackState
    package var importId: ImportID?
    package var createdAt: Date
    package var updatedAt: Date
    package var startTime: String?
    package var endTime: String?
    package var sortKey: Int64
    package var distanceMeters: Double
    package var ascentMeters: Double
    package var descentMeters: Double
    package var movingSeconds: Double
    package var elapsedSeconds: Double
    package var maxSpeedMetersPerSecond: Double
    package var pointCount: Int
    package var segmentCount: Int
    package var waypointCount: Int
    package var routeCount: Int
    package var minLatitude: Double?
    package var minLongitude: Double?
    package var maxLatitude: Double?
    package var maxLongitude: Double?
    package var preview: Data
    package var documentName: String?
    package var deletedAt: Date?

    /// Every column's value.
    package init(
        id: TrackID, name: String, kind: TrackKind, source: TrackSource, state: TrackState, importId: ImportID?, createdAt: Date,
        updatedAt: Date, startTime: String?, endTime: String?, sortKey: Int64, distanceMeters: Double, ascentMeters: Double,
        descentMeters: Double, movingSeconds: Double, elapsedSeconds: Double, maxSpeedMetersPerSecond: Double, pointCount: Int,
        segmentCount: Int, waypointCount: Int, routeCount: Int, minLatitude: Double?, minLongitude: Double?, maxLatitude: Double?,
        maxLongitude: Double?, preview: Data, documentName: String?, deletedAt: Date?
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.source = source
        self.state = state
        self.importId = importId
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startTime = startTime
        self.endTime = endTime
        self.sortKey = sortKey
        self.distanceMeters = distanceMeters
        self.ascentMeters = ascentMeters
        self.descentMeters = descentMeters
        self.movingSeconds = movingSeconds
        self.elapsedSeconds = elapsedSeconds
        self.maxSpeedMetersPerSecond = maxSpeedMetersPerSecond
        self.pointCount = pointCount
        self.segmentCount = segmentCount
        self.waypointCount = waypointCount
        self.routeCount = routeCount
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
        self.preview = preview
        self.documentName = documentName
        self.deletedAt = deletedAt
    }

    /// The row as the store interface gives it.
    package var summary: TrackSummary {
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
