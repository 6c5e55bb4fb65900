import Foundation
import RideKit

/// One row of the Tracks list: what the list shows and searches, without the points.
public struct TrackSummary: Sendable, Hashable, Identifiable {
    public var id: TrackID
    public var name: String
    public var kind: TrackKind
    public var source: TrackSource
    public var state: TrackState
    /// When the track was saved in bikeride.
    public var createdAt: Date
    public var updatedAt: Date
    /// First and last time of the track, as written (offset and digits kept).
    public var startTime: GPXTime?
    public var endTime: GPXTime?
    public var distanceMeters: Double
    public var ascentMeters: Double
    public var descentMeters: Double
    public var movingSeconds: Double
    public var elapsedSeconds: Double
    public var maxSpeedMetersPerSecond: Double
    /// `distanceMeters / movingSeconds` (0 without moving time), as `TrackStats` derives it: never stored
    /// apart, so the list, the track page, the CLI and the exports show one figure.
    public var averageSpeedMetersPerSecond: Double {
        movingSeconds > 0 ? distanceMeters / movingSeconds : 0
    }
    public var pointCount: Int
    public var segmentCount: Int
    public var waypointCount: Int
    public var routeCount: Int
    public var bounds: GPXBounds?
    /// The shape in at most `TrackPreview.maximumPointCount` points, for the list's small picture.
    public var preview: [Coordinate]
    /// The import it came from, if any.
    public var importID: ImportID?
    /// Its file in the documents folder, once written (a name in that folder).
    public var documentName: String?
    /// Set while the track is deleted but can still be restored (undo).
    public var deletedAt: Date?

    public init(
        id: TrackID, name: String, kind: TrackKind, source: TrackSource, state: TrackState = .complete,
        createdAt: Date, updatedAt: Date, startTime: GPXTime? = nil, endTime: GPXTime? = nil, distanceMeters: Double = 0,
        ascentMeters: Double = 0, descentMeters: Double = 0, movingSeconds: Double = 0, elapsedSeconds: Double = 0,
        maxSpeedMetersPerSecond: Double = 0, pointCount: Int = 0,
        segmentCount: Int = 0, waypointCount: Int = 0, routeCount: Int = 0, bounds: GPXBounds? = nil,
        preview: [Coordinate] = [], importID: ImportID? = nil, documentName: String? = nil, deletedAt: Date? = nil
    ) {
        self.id = id
        self.name = name
        self.kind = kind
        self.source = source
        self.state = state
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.startTime = startTime
        self.endTime = endTime
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
        self.bounds = bounds
        self.preview = preview
        self.importID = importID
        self.documentName = documentName
        self.deletedAt = deletedAt
    }

    /// The start where it was ridden (`LocalStartTime`, in the time zone at the start when the file wrote UTC);
    /// nil without times.
    public var localStart: LocalStartTime? {
        guard let startTime else { return nil }
        let latitude = preview.first?.latitude ?? bounds.map { ($0.minLatitude + $0.maxLatitude) / 2 }
        let longitude = preview.first?.longitude ?? bounds.map { ($0.minLongitude + $0.maxLongitude) / 2 }
        return LocalStartTime(start: startTime, latitude: latitude, longitude: longitude)
    }

    /// When the activity happened: its first time, else when it was saved. The list is sorted by it.
    public var date: Date { startTime?.date ?? createdAt }
}

extension TrackSummary {
    /// A name as tracks (and places) keep it: on one line (line breaks become spaces), without spaces around it. The store
    /// refuses a name that is empty after this.
    public static func cleanedName(_ name: String) -> String {
        name.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}

/// Where a track came from.
public enum TrackSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// A file (command line, upload, documents folder).
    case file
    /// Recorded in bikeride's web app.
    case recording
    /// Posted by a phone app (OwnTracks, Overland …).
    case device
    /// Recorded in the web app's demo mode (a simulated ride): not a real ride, left out of the totals.
    case simulation
}

/// Whether a track is finished.
public enum TrackState: String, Sendable, Hashable, Codable, CaseIterable {
    case complete
    /// Points are still being appended (a recording in progress); not listed unless asked.
    case recording
}

/// A saved track whole: its row, every figure, and its content.
public struct StoredTrack: Sendable, Hashable {
    public var summary: TrackSummary
    /// Every figure, splits included, as computed on import.
    public var stats: TrackStats
    public var content: TrackContent
    /// What the bike computer or watch measured (its totals and laps), when the track came from its file.
    public var device: DeviceMeasurements?

    public init(summary: TrackSummary, stats: TrackStats, content: TrackContent, device: DeviceMeasurements? = nil) {
        self.summary = summary
        self.stats = stats
        self.content = content
        self.device = device
    }

    public var id: TrackID { summary.id }
}

/// The small drawing of a track's shape in the list.
public enum TrackPreview {
    /// Points kept: enough for a 64-pixel picture.
    public static let maximumPointCount = 64
}
