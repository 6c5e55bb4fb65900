import Foundation
import RideKit

/// Everything one file brings, saved in one transaction by `RideStore.saveImport(_:userID:)`: all of it or
/// nothing.
public struct TrackImport: Sendable {
    /// The file it came from.
    public var source: ImportSource
    /// The tracks to save (at least one).
    public var tracks: [NewTrack]
    /// Places made from the file's waypoints, when asked.
    public var places: [NewPlace]
    /// Save even when a file with the same content hash was imported before and some of its tracks are
    /// still there.
    public var allowsDuplicate: Bool
    /// Replace this track's content and figures (keeping its id) instead of adding tracks: a file in the
    /// documents folder that changed. `tracks` must then hold exactly one.
    public var replacing: TrackID?
    /// Points the user may keep in all their tracks (`StorageLimits.maximumUserPoints`), checked in the same
    /// transaction as the save; nil for no limit.
    public var maximumUserPoints: Int?
    /// The file's own bytes, kept beside its tracks when `OriginalFileRules.keeps` says so (a FIT file, up to a
    /// size): the export then carries the file as it came (issue 23).
    public var originalBytes: Data?

    public init(
        source: ImportSource, tracks: [NewTrack], places: [NewPlace] = [], allowsDuplicate: Bool = false,
        replacing: TrackID? = nil, maximumUserPoints: Int? = nil, originalBytes: Data? = nil
    ) {
        self.originalBytes = originalBytes
        self.source = source
        self.tracks = tracks
        self.places = places
        self.allowsDuplicate = allowsDuplicate
        self.replacing = replacing
        self.maximumUserPoints = maximumUserPoints
    }

    /// Points this import adds: its tracks' and routes' points.
    public var pointCount: Int {
        tracks.reduce(0) { total, track in
            total + track.content.trackPointCount + track.content.routes.reduce(0) { $0 + $1.points.count }
        }
    }
}

/// The file an import came from.
public struct ImportSource: Sendable, Hashable {
    /// The file's name (not its path), for the record.
    public var fileName: String?
    public var format: TrackFileFormat
    /// SHA-256 of the file's bytes, lower-case hex: the same file imported twice is found by it.
    public var contentHash: String
    public var byteCount: Int

    public init(fileName: String?, format: TrackFileFormat, contentHash: String, byteCount: Int) {
        self.fileName = fileName
        self.format = format
        self.contentHash = contentHash
        self.byteCount = byteCount
    }
}

/// A track to save.
public struct NewTrack: Sendable {
    public var name: String
    public var kind: TrackKind
    public var source: TrackSource
    public var content: TrackContent
    /// Figures computed by RideKit from `content` with `kind`'s thresholds.
    public var stats: TrackStats
    /// Its file in the documents folder, when it came from there.
    public var documentName: String?
    /// The shape for the list's small picture, when the caller has it (an import sees every point once);
    /// nil lets the store compute it from `content`.
    public var preview: [Coordinate]?
    /// What the bike computer or watch measured, when the track came from its file.
    public var device: DeviceMeasurements?

    public init(
        name: String, kind: TrackKind, source: TrackSource = .file, content: TrackContent, stats: TrackStats,
        documentName: String? = nil, preview: [Coordinate]? = nil, device: DeviceMeasurements? = nil
    ) {
        self.name = name
        self.kind = kind
        self.source = source
        self.content = content
        self.stats = stats
        self.documentName = documentName
        self.preview = preview
        self.device = device
    }
}

/// What an import did.
public enum TrackImportResult: Sendable, Hashable {
    /// Saved: the new (or replaced) tracks, in file order, and the places made.
    case imported(ImportID, tracks: [TrackSummary], places: [PlaceID])
    /// Not saved: a file with the same content was imported before and these of its tracks are still there.
    case duplicate(of: [TrackID])
}

/// Changes to a saved track; nil fields stay as they are.
public struct TrackChanges: Sendable {
    public var name: String?
    public var kind: TrackKind?
    /// New figures (after a change of kind, whose thresholds differ).
    public var stats: TrackStats?
    public var documentName: String?
    /// A simulated ride kept as a real one (`recording`), or set back (`simulation`); no other change of source.
    public var source: TrackSource?

    public init(
        name: String? = nil, kind: TrackKind? = nil, stats: TrackStats? = nil, documentName: String? = nil, source: TrackSource? = nil
    ) {
        self.name = name
        self.kind = kind
        self.stats = stats
        self.documentName = documentName
        self.source = source
    }
}

/// Which tracks to list: newest first, a page at a time.
public struct TrackQuery: Sendable, Hashable {
    /// Tracks that match every word of this text (case-insensitive for ASCII letters) in their name, the name
    /// of the file they came from, their start time as written ("2024-05-01"), or their kind ("run", "rides").
    public var search: String?
    /// At most this many (1…1000).
    public var limit: Int
    /// Where the previous page ended (`TrackPage.nextCursor`).
    public var cursor: String?
    public var kinds: Set<TrackKind>?
    /// Also list tracks that are still being recorded.
    public var includesRecordings: Bool
    /// List deleted tracks that can still be restored, instead of the others.
    public var deletedOnly: Bool

    public init(
        search: String? = nil, limit: Int = 50, cursor: String? = nil, kinds: Set<TrackKind>? = nil,
        includesRecordings: Bool = false, deletedOnly: Bool = false
    ) {
        self.search = search
        self.limit = limit
        self.cursor = cursor
        self.kinds = kinds
        self.includesRecordings = includesRecordings
        self.deletedOnly = deletedOnly
    }

    /// The largest page.
    public static let maximumLimit = 1000
    /// The longest search text, in characters, and the most words that count.
    public static let maximumSearchLength = 200
    public static let maximumSearchWords = 8

    /// The words of a search: split on white space, at most `maximumSearchWords`.
    public static func words(of search: String) -> [String] {
        Array(search.prefix(maximumSearchLength).split(whereSeparator: \.isWhitespace).prefix(maximumSearchWords).map(String.init))
    }

    /// The kind a search word names, in the singular or the plural ("ride", "Runs").
    public static func kind(named word: String) -> TrackKind? {
        let lowered = word.lowercased()
        if let kind = TrackKind(rawValue: lowered) { return kind }
        return lowered.hasSuffix("s") ? TrackKind(rawValue: String(lowered.dropLast())) : nil
    }
}

/// The sums of the list's figures over the tracks that started since a moment (routes left out).
public struct TrackTotals: Sendable, Hashable {
    public var since: Date
    public var trackCount: Int
    public var distanceMeters: Double
    public var movingSeconds: Double
    public var elapsedSeconds: Double
    public var ascentMeters: Double

    public init(since: Date, trackCount: Int, distanceMeters: Double, movingSeconds: Double, elapsedSeconds: Double, ascentMeters: Double) {
        self.since = since
        self.trackCount = trackCount
        self.distanceMeters = distanceMeters
        self.movingSeconds = movingSeconds
        self.elapsedSeconds = elapsedSeconds
        self.ascentMeters = ascentMeters
    }
}

/// One page of the Tracks list.
public struct TrackPage: Sendable, Hashable {
    public var tracks: [TrackSummary]
    /// Pass it as `TrackQuery.cursor` for the next page; nil on the last.
    public var nextCursor: String?

    public init(tracks: [TrackSummary], nextCursor: String?) {
        self.tracks = tracks
        self.nextCursor = nextCursor
    }
}

/// An imported file as it came (`RideStore.originalFile(trackID:userID:)`).
public struct OriginalFile: Sendable, Hashable {
    public var fileName: String?
    public var format: TrackFileFormat
    public var bytes: Data

    public init(fileName: String?, format: TrackFileFormat, bytes: Data) {
        self.fileName = fileName
        self.format = format
        self.bytes = bytes
    }
}
