import Foundation
import RideKit

/// A row of `track` (SQLite) or `tracks` (PostgreSQL): one saved track's figures and headers; its points are in
/// `segment` and `pointBlock`. Both stores read and write it; each maps it to its own columns.
package struct TrackRecord: Hashable, Codable, Sendable {
    package var id: TrackID
    package var userId: UserID
    package var name: String
    package var kind: TrackKind
    package var source: TrackSource
    package var state: TrackState
    package var importId: ImportID?
    /// The track's place among those of its import (file order).
    package var importPosition: Int
    package var createdAt: Date
    package var updatedAt: Date
    /// RFC 3339 as written, offset and digits kept.
    package var startTime: String?
    package var endTime: String?
    /// Milliseconds since 1970 of the start time, else of `createdAt`: the list's order.
    package var sortKey: Int64
    package var utcOffsetMinutes: Int?
    package var distanceMeters: Double
    package var ascentMeters: Double
    package var descentMeters: Double
    package var movingSeconds: Double
    package var elapsedSeconds: Double
    package var maxSpeedMetersPerSecond: Double
    package var averageSpeedMetersPerSecond: Double
    package var pointCount: Int
    package var segmentCount: Int
    package var waypointCount: Int
    package var routeCount: Int
    package var minLatitude: Double?
    package var minLongitude: Double?
    package var maxLatitude: Double?
    package var maxLongitude: Double?
    /// The simplified shape (`PreviewCodec`).
    package var preview: Data
    /// Every figure as JSON (`TrackStats`' Codable form), splits included.
    package var stats: Data
    package var gpxVersion: String
    package var gpxCreator: String?
    /// The file's metadata and the headers of its tracks, segments and routes, without points (`TrackHeaderCodec`).
    package var gpxHeader: Data
    package var documentName: String?
    package var deletedAt: Date?
    /// What the device that recorded it measured, as JSON (`DeviceMeasurements`): nil for every track that did not
    /// come from a bike computer's or a watch's file.
    package var device: Data?

    /// Every column's value.
    package init(
        id: TrackID, userId: UserID, name: String, kind: TrackKind, source: TrackSource, state: TrackState, importId: ImportID?,
        importPosition: Int, createdAt: Date, updatedAt: Date, startTime: String?, endTime: String?, sortKey: Int64,
        utcOffsetMinutes: Int?, distanceMeters: Double, ascentMeters: Double, descentMeters: Double, movingSeconds: Double,
        elapsedSeconds: Double, maxSpeedMetersPerSecond: Double, averageSpeedMetersPerSecond: Double, pointCount: Int,
        segmentCount: Int, waypointCount: Int, routeCount: Int, minLatitude: Double?, minLongitude: Double?, maxLatitude: Double?,
        maxLongitude: Double?, preview: Data, stats: Data, gpxVersion: String, gpxCreator: String?, gpxHeader: Data,
        documentName: String?, deletedAt: Date?, device: Data? = nil
    ) {
        self.id = id
        self.userId = userId
        self.name = name
        self.kind = kind
        self.source = source
        self.state = state
        self.importId = importId
        self.importPosition = importPosition
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startTime = startTime
        self.endTime = endTime
        self.sortKey = sortKey
        self.utcOffsetMinutes = utcOffsetMinutes
        self.distanceMeters = distanceMeters
        self.ascentMeters = ascentMeters
        self.descentMeters = descentMeters
        self.movingSeconds = movingSeconds
        self.elapsedSeconds = elapsedSeconds
        self.maxSpeedMetersPerSecond = maxSpeedMetersPerSecond
        self.averageSpeedMetersPerSecond = averageSpeedMetersPerSecond
        self.pointCount = pointCount
        self.segmentCount = segmentCount
        self.waypointCount = waypointCount
        self.routeCount = routeCount
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
        self.preview = preview
        self.stats = stats
        self.gpxVersion = gpxVersion
        self.gpxCreator = gpxCreator
        self.gpxHeader = gpxHeader
        self.documentName = documentName
        self.deletedAt = deletedAt
        self.device = device
    }
}

extension TrackRecord {
    /// Sets every column that comes from the figures: `stats`, or the device's for a track without a position
    /// (`TrackStats.fillingIn(from:)`), whichever path recomputed them (an import, a kind changed, a re-import).
    package mutating func apply(_ stats: TrackStats) throws {
        let stats = stats.fillingIn(from: try decodedDevice())
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

    package static func sortKey(start: GPXTime?, createdAt: Date) -> Int64 {
        if let start {
            let (milliseconds, overflow) = start.secondsSince1970.multipliedReportingOverflow(by: 1000)
            if !overflow { return milliseconds + Int64(start.nanoseconds / 1_000_000) }
        }
        return Int64((createdAt.timeIntervalSince1970 * 1000).rounded())
    }

    /// The device's figures, nil when it has none.
    package func decodedDevice() throws -> DeviceMeasurements? {
        guard let device else { return nil }
        do {
            return try JSONDecoder().decode(DeviceMeasurements.self, from: device)
        } catch {
            throw RideStoreError.damaged("the device figures of track \(id) cannot be read: \(error)")
        }
    }

    package static func encodedDevice(_ device: DeviceMeasurements?) throws -> Data? {
        try device.map { try JSONEncoder().encode($0) }
    }

    package func decodedStats() throws -> TrackStats {
        do {
            return try JSONDecoder().decode(TrackStats.self, from: stats)
        } catch {
            throw RideStoreError.damaged("the figures of track \(id) cannot be read: \(error)")
        }
    }
}
