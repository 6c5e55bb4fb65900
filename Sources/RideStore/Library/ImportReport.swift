import Foundation
import RideKit

/// What importing one file did.
public struct FileImportOutcome: Sendable, Hashable {
    public var path: String
    public var result: TrackImportResult
    /// Points in the file's track segments (route points when it has no tracks).
    public var pointCount: Int
    public var byteCount: Int
    /// What lenient reading left out of the file (nothing when read strictly, or not GPX).
    public var readReport = GPXReadReport()

    /// The tracks saved (empty for a duplicate).
    public var tracks: [TrackSummary] {
        if case .imported(_, let tracks, _) = result { return tracks }
        return []
    }
}

/// Where a folder import is, after each file: enough for a progress bar.
public struct ImportProgress: Sendable, Hashable {
    public var filesDone: Int
    public var filesTotal: Int
    public var pointsDone: Int
    public var bytesDone: Int
    public var bytesTotal: Int
    public var elapsedSeconds: Double
    /// The file just finished.
    public var currentPath: String?
    public var failures: Int

    /// Points imported per second so far.
    public var pointsPerSecond: Double { elapsedSeconds > 0 ? Double(pointsDone) / elapsedSeconds : 0 }
}

/// What a folder import did: each file's outcome, and each file that failed with its reason.
public struct ImportReport: Sendable {
    public var outcomes: [FileImportOutcome] = []
    public var failures: [(path: String, reason: String)] = []
    public var elapsedSeconds: Double = 0

    public var importedTrackCount: Int { outcomes.reduce(0) { $0 + $1.tracks.count } }
    public var duplicateCount: Int {
        outcomes.filter { if case .duplicate = $0.result { return true } else { return false } }.count
    }
    public var pointCount: Int { outcomes.reduce(0) { $0 + $1.pointCount } }
}
