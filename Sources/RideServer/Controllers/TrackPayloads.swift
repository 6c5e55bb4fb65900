import Foundation
import Hummingbird
import RideKit
import RideStore

// The JSON of the tracks API (DESIGN 6), read by `Web/js/tracks.js`: a track's row is the store's
// `TrackSummary` in its one JSON form; the rest are the server's own shapes. Positions are `[latitude,
// longitude]` pairs, the order Leaflet takes.

/// `PATCH` body.
struct TrackChangesRequest: Decodable {
    var name: String?
    var kind: TrackKind?
}

/// A row of the Tracks list, a page of it, an edited track: the store's `TrackSummary` in its one JSON form
/// (`TrackSummary+Codable.swift`).
extension TrackSummary: ResponseEncodable {}
extension TrackPage: ResponseEncodable {}

/// The answer to an upload: the new tracks, or (`duplicate`) those of the earlier import of the same file.
struct UploadPayload: ResponseEncodable {
    var duplicate: Bool
    var tracks: [TrackSummary]
}

/// A waypoint on the track page's map.
struct WaypointPayload: Encodable {
    var name: String?
    var latitude: Double
    var longitude: Double
}

/// A track page: its row (the keys of `TrackSummary`: `bounds`, and `pointCount` of the whole track while
/// `segments` may hold fewer), every figure, and its line (`segments`:
/// `[[[lat, lon], …], …]`), every point or simplified for the zoom `simplifiedForZoom`.
struct TrackDetailPayload: ResponseEncodable {
    var summary: TrackSummary
    var stats: StatsPayload
    var segments: [[[Double]]]
    /// The zoom `segments` is simplified for; nil when it holds every point.
    var simplifiedForZoom: Int?
    var waypoints: [WaypointPayload]

    private enum CodingKeys: String, CodingKey {
        case stats, segments, simplifiedForZoom, waypoints
    }

    init(_ track: StoredTrack, simplifiedForZoom zoom: Int? = nil) throws {
        summary = track.summary
        stats = StatsPayload(track.stats)
        let latitude = track.middleLatitude
        segments = try track.lineSegments().map { segment in
            let points = zoom.map { LineSimplification.simplified(segment.points, forZoom: $0, latitudeDegrees: latitude) } ?? segment.points
            return points.map { [$0.latitude, $0.longitude] }
        }
        simplifiedForZoom = zoom
        waypoints = try track.content.waypoints.points().map { WaypointPayload(name: $0.name, latitude: $0.latitude, longitude: $0.longitude) }
    }

    /// The summary's keys, then the page's own in the same object.
    func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(stats, forKey: .stats)
        try container.encode(segments, forKey: .segments)
        try container.encodeIfPresent(simplifiedForZoom, forKey: .simplifiedForZoom)
        try container.encode(waypoints, forKey: .waypoints)
    }
}

extension ProfilePayload: ResponseEncodable {}

/// `GET /api/tracks/{id}/cues`: the track's turns in order along it.
struct CueSheetPayload: ResponseEncodable {
    struct CuePayload: Encodable {
        var latitude: Double
        var longitude: Double
        /// Along the track from its start.
        var distanceMeters: Double
        var direction: TurnDirection
        var severity: TurnSeverity
        /// Change of heading, −180…180, positive to the right.
        var angleDegrees: Double
        /// "Turn right", "Slight left", "Make a U-turn".
        var text: String
        /// The distance from the previous cue (or the start) as spoken in the units asked for ("0.3 miles",
        /// "250 m"); null when it rounds to nothing.
        var fromPrevious: String?
    }
    var units: UnitSystem
    var cues: [CuePayload]

    init(cues: [Cue], units: UnitSystem) {
        self.units = units
        self.cues = cues.indices.map { index in
            let cue = cues[index]
            let previous = index == 0 ? 0 : cues[index - 1].distanceMeters
            return CuePayload(
                latitude: cue.coordinate.latitude, longitude: cue.coordinate.longitude, distanceMeters: cue.distanceMeters,
                direction: cue.direction, severity: cue.severity, angleDegrees: cue.angleDegrees,
                text: CueText.instruction(direction: cue.direction, severity: cue.severity),
                fromPrevious: CueDistance.spoken(meters: cue.distanceMeters - previous, units: units))
        }
    }
}
