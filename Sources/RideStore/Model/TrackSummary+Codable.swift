import Foundation
import RideKit

/// A track's row as JSON: what `GET /api/tracks` answers (and `Web/js/tracks.js` reads) and what
/// `bikeride list --json` prints — one form, written here only.
///
///     {"id": "AB3DEF7H", "name": "Commute", "kind": "ride", "source": "file", "state": "complete",
///      "startedAt": "2024-05-01T08:00:00Z", "startTime": "2024-05-01T10:00:00+02:00", …,
///      "distanceMeters": 12345.6, …, "shape": [[47.37, 8.54], …]}
///
/// Times are RFC 3339 text: `startTime` and `endTime` as the file wrote them (offset and digits kept),
/// `startedAt` the moment the list sorts by (the first time, else when it was saved) in UTC, and the save,
/// change and delete times in UTC with milliseconds. `localStartTime` is the start where it was ridden
/// (`LocalStartTime`: the file's offset, else the time as written, else the offset of the IANA time zone at the
/// start, named by `timeZone`; `timeZoneSource` says which: `file`, `asWritten`, `zone`, `utc`); a track without times has no `startTime` and no `localStartTime`. Positions are `[latitude, longitude]` pairs, the order
/// Leaflet takes. Keys without a value are left out.
extension TrackSummary: Codable {
    public enum CodingKeys: String, CodingKey {
        case id, name, kind, source, state
        case startedAt, startTime, endTime, localStartTime, timeZoneSource, timeZone, createdAt, updatedAt, deletedAt
        case distanceMeters, ascentMeters, descentMeters, movingSeconds, elapsedSeconds
        case averageSpeedMetersPerSecond, maxSpeedMetersPerSecond
        case pointCount, segmentCount, waypointCount, routeCount
        case bounds, shape, importId, documentName
    }

    private enum BoundsKeys: String, CodingKey {
        case minLatitude, minLongitude, maxLatitude, maxLongitude
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(kind, forKey: .kind)
        try container.encode(source, forKey: .source)
        try container.encode(state, forKey: .state)
        try container.encode(startTime.map { $0.inUTC.rfc3339 } ?? Self.text(createdAt), forKey: .startedAt)
        try container.encodeIfPresent(startTime?.rfc3339, forKey: .startTime)
        try container.encodeIfPresent(endTime?.rfc3339, forKey: .endTime)
        if let local = localStart {
            try container.encode(local.time.rfc3339, forKey: .localStartTime)
            try container.encode(local.source, forKey: .timeZoneSource)
            try container.encodeIfPresent(local.zone, forKey: .timeZone)
        }
        try container.encode(Self.text(createdAt), forKey: .createdAt)
        try container.encode(Self.text(updatedAt), forKey: .updatedAt)
        try container.encodeIfPresent(deletedAt.map(Self.text), forKey: .deletedAt)
        try container.encode(distanceMeters, forKey: .distanceMeters)
        try container.encode(ascentMeters, forKey: .ascentMeters)
        try container.encode(descentMeters, forKey: .descentMeters)
        try container.encode(movingSeconds, forKey: .movingSeconds)
        try container.encode(elapsedSeconds, forKey: .elapsedSeconds)
        try container.encode(averageSpeedMetersPerSecond, forKey: .averageSpeedMetersPerSecond)
        try container.encode(maxSpeedMetersPerSecond, forKey: .maxSpeedMetersPerSecond)
        try container.encode(pointCount, forKey: .pointCount)
        try container.encode(segmentCount, forKey: .segmentCount)
        try container.encode(waypointCount, forKey: .waypointCount)
        try container.encode(routeCount, forKey: .routeCount)
        if let bounds {
            var box = container.nestedContainer(keyedBy: BoundsKeys.self, forKey: .bounds)
            try box.encode(bounds.minLatitude, forKey: .minLatitude)
            try box.encode(bounds.minLongitude, forKey: .minLongitude)
            try box.encode(bounds.maxLatitude, forKey: .maxLatitude)
            try box.encode(bounds.maxLongitude, forKey: .maxLongitude)
        }
        try container.encode(preview.map { [$0.latitude, $0.longitude] }, forKey: .shape)
        try container.encodeIfPresent(importID, forKey: .importId)
        try container.encodeIfPresent(documentName, forKey: .documentName)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func time(_ key: CodingKeys) throws -> GPXTime? {
            guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
            do {
                return try GPXTime(parsing: text)
            } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
            }
        }
        func date(_ key: CodingKeys) throws -> Date {
            guard let time = try time(key) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "\(key.stringValue) is required"))
            }
            return time.date
        }
        var bounds: GPXBounds?
        if container.contains(.bounds) {
            let box = try container.nestedContainer(keyedBy: BoundsKeys.self, forKey: .bounds)
            bounds = GPXBounds(
                minLatitude: try box.decode(Double.self, forKey: .minLatitude), minLongitude: try box.decode(Double.self, forKey: .minLongitude),
                maxLatitude: try box.decode(Double.self, forKey: .maxLatitude), maxLongitude: try box.decode(Double.self, forKey: .maxLongitude))
        }
        let shape = try container.decodeIfPresent([[Double]].self, forKey: .shape) ?? []
        guard shape.allSatisfy({ $0.count == 2 }) else {
            throw DecodingError.dataCorruptedError(forKey: .shape, in: container, debugDescription: "each position is [latitude, longitude]")
        }
        self.init(
            id: try container.decode(TrackID.self, forKey: .id), name: try container.decode(String.self, forKey: .name),
            kind: try container.decode(TrackKind.self, forKey: .kind), source: try container.decode(TrackSource.self, forKey: .source),
            state: try container.decodeIfPresent(TrackState.self, forKey: .state) ?? .complete,
            createdAt: try date(.createdAt), updatedAt: try time(.updatedAt)?.date ?? date(.createdAt),
            startTime: try time(.startTime), endTime: try time(.endTime),
            distanceMeters: try container.decode(Double.self, forKey: .distanceMeters),
            ascentMeters: try container.decode(Double.self, forKey: .ascentMeters),
            descentMeters: try container.decode(Double.self, forKey: .descentMeters),
            movingSeconds: try container.decode(Double.self, forKey: .movingSeconds),
            elapsedSeconds: try container.decode(Double.self, forKey: .elapsedSeconds),
            maxSpeedMetersPerSecond: try container.decode(Double.self, forKey: .maxSpeedMetersPerSecond),
            pointCount: try container.decode(Int.self, forKey: .pointCount),
            segmentCount: try container.decode(Int.self, forKey: .segmentCount),
            waypointCount: try container.decodeIfPresent(Int.self, forKey: .waypointCount) ?? 0,
            routeCount: try container.decodeIfPresent(Int.self, forKey: .routeCount) ?? 0,
            bounds: bounds, preview: shape.map { Coordinate(latitude: $0[0], longitude: $0[1]) },
            importID: try container.decodeIfPresent(ImportID.self, forKey: .importId),
            documentName: try container.decodeIfPresent(String.self, forKey: .documentName),
            deletedAt: try time(.deletedAt)?.date)
    }

    /// A moment as RFC 3339 text in UTC.
    private static func text(_ date: Date) -> String { GPXTime(date: date).rfc3339 }
}

extension TrackPage: Codable {
    private enum CodingKeys: String, CodingKey { case tracks, nextCursor }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(tracks, forKey: .tracks)
        try container.encodeIfPresent(nextCursor, forKey: .nextCursor)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(tracks: try container.decode([TrackSummary].self, forKey: .tracks),
                  nextCursor: try container.decodeIfPresent(String.self, forKey: .nextCursor))
    }
}
