import Foundation
import RideKit

/// The `manifest.json` of a bikeride export (`GET /api/export`, `bikeride export-all`): what the zip holds, how
/// many of each, and the SHA-256 of every other entry, so that an import checks each file before it uses it and a
/// person can check the archive with `sha256sum`.
///
/// The archive's layout (format version 1):
/// - `tracks/<id>.gpx`: each complete track as GPX 1.1 (its points, segments, routes, waypoints and extensions);
/// - `tracks.json`: `[ExportedTrack]`, each track's name, kind, source and device figures, by file;
/// - `places.gpx`: the places as GPX waypoints, notes in `desc`; `places.json`: `[ExportedPlace]` with their notes,
///   labels and photos; `photos/<id>.<ext>`: each photo's original bytes;
/// - `labels.json`: `[ExportedLabel]`; `settings.json`: `ExportedSettings` (privacy zones, hidden ends, weekly goals);
/// - `manifest.json` last (it lists the others).
public struct LibraryExportManifest: Sendable, Hashable, Codable {
    /// What `format` says in every bikeride export.
    public static let formatName = "bikeride-export"
    /// The layout this version writes and reads.
    public static let currentVersion = 1

    /// How many of each the archive holds.
    public struct Counts: Sendable, Hashable, Codable {
        public var tracks = 0
        /// Track and route points of all tracks.
        public var points = 0
        public var places = 0
        public var notes = 0
        public var photos = 0
        public var labels = 0
        public var privacyZones = 0
        public var weeklyGoals = 0

        public init() {}
    }

    /// One file of the archive.
    public struct Entry: Sendable, Hashable, Codable {
        public var path: String
        public var bytes: Int
        /// SHA-256 of the entry's (inflated) bytes, lower-case hex.
        public var sha256: String

        public init(path: String, bytes: Int, sha256: String) {
            self.path = path
            self.bytes = bytes
            self.sha256 = sha256
        }
    }

    public var format = Self.formatName
    public var version = Self.currentVersion
    /// When the export was made (RFC 3339, UTC).
    public var createdAt: String
    /// The user it is the library of.
    public var user: String?
    public var counts: Counts
    public var entries: [Entry]

    public init(createdAt: String, user: String?, counts: Counts, entries: [Entry]) {
        self.createdAt = createdAt
        self.user = user
        self.counts = counts
        self.entries = entries
    }
}

/// A track of an export (`tracks.json`): what its GPX file does not say.
public struct ExportedTrack: Sendable, Hashable, Codable {
    /// Its id in the library it came from.
    public var id: String
    /// Its GPX entry, `tracks/<id>.gpx`.
    public var file: String
    public var name: String
    public var kind: TrackKind
    public var source: TrackSource
    public var createdAt: String
    /// Its first time as written (RFC 3339, its offset kept); nil without times.
    public var startTime: String?
    public var pointCount: Int
    /// The bike computer's own totals and laps, when the track came from its FIT or TCX file (its points are in the
    /// GPX).
    public var device: DeviceMeasurements?
    /// The file the track was imported from, as it came, when bikeride kept it (a FIT file): `tracks/<id>.fit`.
    /// Importing the export reads this file instead of the GPX, so that the other library keeps it too.
    public var originalFile: String? = nil
    /// The laps its rider marked while recording (the Lap button), as times (RFC 3339); nil for none.
    public var lapMarks: [String]? = nil
}

/// A place of an export (`places.json`), with its notes and the archive paths of their photos.
public struct ExportedPlace: Sendable, Hashable, Codable {
    public struct Note: Sendable, Hashable, Codable {
        public var body: String
        public var createdAt: String
        public var photos: [Photo]
    }

    public struct Photo: Sendable, Hashable, Codable {
        /// Its entry, `photos/<id>.<ext>`.
        public var file: String
        public var mediaType: String
        public var bytes: Int
    }

    public var id: String
    public var name: String
    public var latitude: Double
    public var longitude: Double
    public var address: String?
    public var createdAt: String
    /// The names of its labels (`labels.json` gives their colours).
    public var labels: [String]
    public var notes: [Note]
}

/// A label of an export (`labels.json`).
public struct ExportedLabel: Sendable, Hashable, Codable {
    public var name: String
    public var color: String
}

/// The settings of an export (`settings.json`).
public struct ExportedSettings: Sendable, Hashable, Codable {
    public struct Zone: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double
        public var radiusMeters: Double
        public var name: String?
    }

    public var privacyZones: [Zone]
    /// Metres hidden at each end of every shared ride.
    public var hideEndsMeters: Double
    public var weeklyGoals: [WeeklyGoal]
}

/// What importing a bikeride export did (`TrackLibrary.importArchive` of a zip with its manifest).
public struct LibraryImportReport: Sendable, Hashable {
    /// The archive's manifest: its counts and checksums.
    public var manifest: LibraryExportManifest
    public var tracksImported = 0
    public var tracksAlreadyThere = 0
    public var placesImported = 0
    public var placesAlreadyThere = 0
    public var notesImported = 0
    public var photosImported = 0
    public var labelsCreated = 0
    public var labelsAlreadyThere = 0
    public var privacyZonesAdded = 0
    public var settingsChanged = 0
    /// Entries whose SHA-256 was checked against the manifest and matched.
    public var checksumsVerified = 0

    public init(manifest: LibraryExportManifest) { self.manifest = manifest }

    /// True when the import added or changed nothing: the same export imported before.
    public var addedNothing: Bool {
        tracksImported + placesImported + notesImported + photosImported + labelsCreated + privacyZonesAdded + settingsChanged == 0
    }

    /// "3 tracks, 2 places (4 notes, 1 photo), 2 labels imported; 0 already there; 9 checksums verified".
    public var message: String {
        if addedNothing {
            return "nothing new: this export was imported before (\(tracksAlreadyThere.formatted()) tracks and \(placesAlreadyThere.formatted()) places already there); \(checksumsVerified.formatted()) checksums verified"
        }
        var text = "\(tracksImported.formatted()) tracks, \(placesImported.formatted()) places (\(notesImported.formatted()) notes, \(photosImported.formatted()) photos), \(labelsCreated.formatted()) labels imported"
        if tracksAlreadyThere + placesAlreadyThere > 0 {
            text += "; \(tracksAlreadyThere.formatted()) tracks and \(placesAlreadyThere.formatted()) places already there"
        }
        return text + "; \(checksumsVerified.formatted()) checksums verified"
    }
}
