import Foundation
import RideKit

/// The library as its users see it: import files and folders, export tracks and places, keep the documents
/// folder in step — for one user, through the `RideStore` interface only (so it works on any store).
///
///     let store = try SQLiteRideStore(path: dataDirectory.appending(path: "bikeride.sqlite").path)
///     let library = TrackLibrary(store: store, userID: try await store.localUser().id,
///                                documentsFolder: dataDirectory.appending(path: "Documents"))
///     let outcome = try await library.importFile(at: URL(filePath: "ride.gpx"))
public struct TrackLibrary: Sendable {
    public let store: any RideStore
    public let userID: UserID
    /// Where every saved track is also written as a `.gpx` file, and new files are imported from; nil for none.
    public let documentsFolder: URL?
    /// Where uploads are written while they arrive (`makeUploadSpool()`); nil for the system's temporary folder.
    public let uploadsFolder: URL?
    /// What an import may add (the server's `StorageLimits.server`; none for the command line).
    public var limits: StorageLimits

    public init(
        store: any RideStore, userID: UserID, documentsFolder: URL? = nil, uploadsFolder: URL? = nil, limits: StorageLimits = .none
    ) {
        self.store = store
        self.userID = userID
        self.documentsFolder = documentsFolder
        self.uploadsFolder = uploadsFolder
        self.limits = limits
    }

    // MARK: Editing

    /// Renames a track. Its file in the documents folder keeps its name, so that nothing outside bikeride
    /// that refers to the file breaks.
    public func rename(_ id: TrackID, to name: String) async throws -> TrackSummary {
        try await store.updateTrack(id: id, userID: userID, TrackChanges(name: name))
    }

    /// Sets a track's kind and recomputes its figures with that kind's thresholds (moving time and speed
    /// depend on them).
    public func setKind(_ id: TrackID, to kind: TrackKind) async throws -> TrackSummary {
        try await edit(id, name: nil, kind: kind)
    }

    /// Renames a track, sets its kind and its source (a simulated ride kept as a real one: `recording`; each may be
    /// nil: unchanged) in one transaction: all change or none does.
    public func edit(_ id: TrackID, name: String?, kind: TrackKind?, source: TrackSource? = nil) async throws -> TrackSummary {
        var changes = TrackChanges(name: name, kind: kind, source: source)
        if let kind {
            guard let track = try await store.track(id: id, userID: userID) else {
                throw RideStoreError.notFound(kind: "track", id: id.rawValue)
            }
            changes.stats = try Self.stats(of: track.content, kind: kind)
        }
        return try await store.updateTrack(id: id, userID: userID, changes)
    }

    /// How long a deleted track can be restored: then it is purged, with its points and its documents file.
    public static let deletedTrackRetentionSeconds: TimeInterval = 30 * 86400

    /// Deletes tracks. Without `permanently` they can be restored with `store.restoreTracks` for
    /// `deletedTrackRetentionSeconds` (the tracks of every user deleted longer ago are purged now); permanently
    /// they are gone at once, and so are their files in the documents folder.
    public func delete(_ ids: [TrackID], permanently: Bool) async throws -> [TrackID] {
        guard permanently else {
            let deleted = try await store.deleteTracks(ids: ids, userID: userID)
            _ = try await purgeExpiredTracks()
            return deleted
        }
        let purged = try await store.purgeTracks(ids: ids, userID: userID)
        removeDocuments(of: purged)
        return purged.map(\.id)
    }

    /// Purges the tracks (of every user) deleted more than `deletedTrackRetentionSeconds` ago.
    public func purgeExpiredTracks(now: Date = Date()) async throws -> [TrackSummary] {
        try await purgeDeleted(before: now.addingTimeInterval(-Self.deletedTrackRetentionSeconds))
    }

    /// Purges tracks deleted before `date` and removes their files from the documents folder.
    public func purgeDeleted(before date: Date) async throws -> [TrackSummary] {
        let purged = try await store.purgeDeletedTracks(deletedBefore: date)
        removeDocuments(of: purged)
        return purged
    }

    /// Every track id of the user, newest first (for "export everything").
    public func allTrackIDs() async throws -> [TrackID] {
        var ids: [TrackID] = []
        var cursor: String?
        repeat {
            let page = try await store.tracks(TrackQuery(limit: TrackQuery.maximumLimit, cursor: cursor), userID: userID)
            ids += page.tracks.map(\.id)
            cursor = page.nextCursor
        } while cursor != nil
        return ids
    }

    // MARK: Helpers

    /// Figures of a track's content with a kind's thresholds: its `trk`s, else its routes.
    static func stats(of content: TrackContent, kind: TrackKind) throws -> TrackStats {
        var accumulator = TrackStatsAccumulator(activity: kind.activity, measuringEfforts: true)
        if content.tracks.isEmpty {
            for route in content.routes {
                accumulator.beginSegment()
                for point in try route.points.points() { accumulator.add(point) }
            }
        } else {
            for track in content.tracks {
                for segment in track.segments {
                    accumulator.beginSegment()
                    for point in try segment.points.points() { accumulator.add(point) }
                }
            }
        }
        return accumulator.finish()
    }

    package static func describe(_ error: any Error) -> String {
        switch error {
        case let error as RideStoreError: return error.description
        case let error as GPXError: return error.description
        case let error as TrackFormatError: return error.description
        case let error as PointBlockError: return error.description
        default: break
        }
        let error = error as NSError
        return error.localizedFailureReason ?? error.localizedDescription
    }
}
