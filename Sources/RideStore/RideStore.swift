import Foundation
import RideKit

/// Everything bikeride stores and asks, behind one interface: users, devices, tracks with their points,
/// recordings in progress, places with notes, photos and labels, and what the documents folder held.
///
/// The server and the command line use only this protocol, so that another implementation (PostgreSQL, for
/// several server instances) can stand beside `SQLiteRideStore` and pass the same test suite. Every method
/// that touches someone's data takes their `UserID` and sees only that user's rows: an id of another user's
/// track is "not found". Each call is one transaction: it happens whole or not at all.
///
/// Errors are `RideStoreError`.
public protocol RideStore: AccountStore, AcrossRidesStore, ImportJobStore {
    // MARK: Users and devices

    /// The one user of the embedded single-user setup, created on first call.
    func localUser() async throws -> User
    /// A new user; the name must be unused.
    func createUser(name: String, passwordHash: String?) async throws -> User
    func user(id: UserID) async throws -> User?
    func user(named name: String) async throws -> User?

    func createDevice(_ device: NewDevice, userID: UserID) async throws -> Device
    func devices(userID: UserID) async throws -> [Device]
    /// The device a token hash belongs to, whoever its user (how a phone app's post is authenticated).
    func device(tokenHash: String) async throws -> Device?
    func markDeviceSeen(id: DeviceID, at date: Date) async throws
    /// Returns false when there was no such device.
    func deleteDevice(id: DeviceID, userID: UserID) async throws -> Bool

    /// Brings the query planner's statistics up to date after a bulk change (an archive of thousands of tracks).
    /// PostgreSQL's planner knows nothing of a new table's rows until autovacuum's first pass, a minute or so later,
    /// and meanwhile chose a plan for the records that ran past the 30 s deadline on 3,000 new tracks.
    func refreshPlannerStatistics() async throws

    // MARK: Tracks

    /// Saves every track (and place) of one file in one transaction, unless the same content was imported
    /// before and some of its tracks remain (`.duplicate`), or replaces one track's content (`replacing`).
    func saveImport(_ batch: TrackImport, userID: UserID) async throws -> TrackImportResult
    /// The undeleted tracks of earlier imports of a file with this SHA-256 (lower-case hex), in file order:
    /// what `saveImport` would call a duplicate, asked before reading a big file.
    func importedTracks(contentHash: String, userID: UserID) async throws -> [TrackID]
    /// One page of tracks, newest first (by start time, else save time), optionally filtered.
    func tracks(_ query: TrackQuery, userID: UserID) async throws -> TrackPage
    /// The file a track was imported from, as it came, when the store kept it (`OriginalFileRules`: FIT files) and
    /// the file gave only this track; nil otherwise.
    func originalFile(trackID: TrackID, userID: UserID) async throws -> OriginalFile?
    /// How many complete, undeleted tracks the user has.
    func trackCount(userID: UserID) async throws -> Int
    /// For each moment, the sums of the figures of the complete, not deleted, non-route tracks with times that
    /// started since then.
    func trackTotals(since starts: [Date], userID: UserID) async throws -> [TrackTotals]
    func trackSummary(id: TrackID, userID: UserID) async throws -> TrackSummary?
    /// A track whole, its points included (deleted tracks too, until purged).
    func track(id: TrackID, userID: UserID) async throws -> StoredTrack?
    /// A track without its stored points (deleted tracks too, until purged): what a request reads first, before
    /// it walks the points a page of blocks at a time (`forEachPointBlock`), so that no read holds a whole track.
    func trackOutline(id: TrackID, userID: UserID) async throws -> TrackOutline?
    /// Up to `limit` point blocks of one of a track's segments (`TrackPointRun.segmentID`), after block position
    /// `after` (from the first when nil), in order; none when the track is not the user's.
    func pointBlockPage(segmentID: Int64, trackID: TrackID, userID: UserID, after: Int?, limit: Int) async throws
        -> [(position: Int, pointCount: Int, data: Data)]
    func updateTrack(id: TrackID, userID: UserID, _ changes: TrackChanges) async throws -> TrackSummary
    /// Deletes tracks so that `restoreTracks` can still bring them back (undo); returns those deleted.
    func deleteTracks(ids: [TrackID], userID: UserID) async throws -> [TrackID]
    /// Brings back deleted tracks that were not purged yet; returns those restored.
    func restoreTracks(ids: [TrackID], userID: UserID) async throws -> [TrackID]
    /// Removes for good the tracks deleted before `date` (of every user); returns them as they were.
    func purgeDeletedTracks(deletedBefore date: Date) async throws -> [TrackSummary]
    /// Removes tracks for good at once, deleted or not (no undo); returns them as they were.
    func purgeTracks(ids: [TrackID], userID: UserID) async throws -> [TrackSummary]

    // MARK: Heatmap

    /// One heatmap tile's counts (zoom 0–18), from the index kept as tracks change; builds the user's index first if
    /// it never was (a library from before the index).
    func heatmapTile(_ request: HeatmapRequest, userID: UserID) async throws -> HeatmapTile
    /// The version of the user's heatmap index: it changes whenever a tile may have; nil before the index is built.
    func heatmapVersion(userID: UserID) async throws -> Int64?
    /// The zoom-14 tiles the user's counted tracks pass through (optionally filtered), row by row.
    func explorerTiles(filter: HeatmapFilter, userID: UserID) async throws -> ExplorerTileList
    /// Each zoom-14 tile the user's counted tracks (of `kind`, when given) pass through, once per year of those tracks
    /// (0 for a track without a time): the overview's explorer counts (`ExplorerSummary`).
    func explorerTileYears(kind: TrackKind?, userID: UserID) async throws -> [(tile: TileXY, year: Int)]
    /// Builds the user's heatmap index anew from every track's points.
    func rebuildHeatmap(userID: UserID) async throws -> HeatmapBuildReport

    // MARK: Recordings

    /// Starts a recording: a new track in state `.recording` with one empty segment, and its options. With a
    /// `clientID` the user has given a recording before, nothing new is made: that recording is returned (a
    /// client repeating a start it made offline gets the same recording).
    func startRecording(_ request: NewRecording, userID: UserID) async throws -> Recording
    func recording(id: RecordingID, userID: UserID) async throws -> Recording?
    /// The user's recording that the client started under `clientID`, if any.
    func recording(clientID: String, userID: UserID) async throws -> Recording?
    /// Recordings not stopped yet, newest first.
    func activeRecordings(userID: UserID) async throws -> [Recording]
    /// Appends the fixes whose sequence number is above the last one stored, in sequence order, to the
    /// track's last segment: a batch sent twice is stored once. Refused once the recording is stopped.
    /// `acknowledgedThrough` raises the last client sequence number kept even when no fix is stored (fixes
    /// the client sent while paused are acknowledged, not stored), in the same transaction.
    /// With `expecting`, writes nothing and throws `RecordingChangedError` unless the recording still has that
    /// version when the transaction reads it (a cached `Recorder` proven current in the same transaction).
    /// A batch that would take the track past `limits.maximumTrackPoints`, or the user's tracks past
    /// `limits.maximumUserPoints` (both read in the same transaction), is refused whole with `limitExceeded`.
    func appendFixes(
        _ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, userID: UserID, expecting: RecordingVersion?,
        limits: StorageLimits
    ) async throws -> FixAppendResult
    func pauseRecording(id: RecordingID, userID: UserID) async throws -> Recording
    /// Resumes a paused recording in a new segment.
    func resumeRecording(id: RecordingID, userID: UserID) async throws -> Recording
    /// Sets the route the rider follows (a track of the user's), or none with nil. Refused once stopped; a
    /// route that is not one of the user's tracks is `notFound(kind: "track", …)`.
    func setRecordingRoute(id: RecordingID, routeTrackID: TrackID?, userID: UserID) async throws -> Recording
    /// Stops the recording and completes its track with the given figures; returns the saved track.
    /// With `expecting`, stops nothing and throws `RecordingChangedError` unless the recording still has that
    /// version (the figures were computed from what it held then).
    func stopRecording(id: RecordingID, userID: UserID, stats: TrackStats, expecting: RecordingVersion?) async throws -> TrackSummary
    /// Marks a lap at `timeMilliseconds` (the latest fix's time when the rider pressed Lap) on the recording's track
    /// (`LapRules`): a mark at a time already marked is kept once, so a retry does not double it. Returns every mark.
    func addLapMark(recordingID: RecordingID, timeMilliseconds: Int64, userID: UserID) async throws -> [Int64]
    /// The lap marks of a track (sorted; none for a track without marks).
    func lapMarks(trackID: TrackID, userID: UserID) async throws -> [Int64]
    /// Puts a track's lap marks (a library's import of an export: the marks its rider made while recording), checked
    /// by `LapRules` as the Lap button's are.
    func setLapMarks(_ marks: [Int64], trackID: TrackID, userID: UserID) async throws

    // MARK: Places

    func createPlace(_ place: NewPlace, userID: UserID) async throws -> Place
    func places(_ query: PlaceQuery, userID: UserID) async throws -> [Place]
    func place(id: PlaceID, userID: UserID) async throws -> Place?
    func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges) async throws -> Place
    /// Changes a place and, unless `labelIDs` is nil, sets exactly which labels it carries: in one transaction.
    func updatePlace(id: PlaceID, userID: UserID, _ changes: PlaceChanges, labelIDs: [LabelID]?) async throws -> Place
    /// Several places in one transaction: all of them, or none (a GPX file's waypoints).
    func createPlaces(_ places: [NewPlace], userID: UserID) async throws -> [Place]
    /// Deletes places so that `restorePlaces` can bring them back (undo): they, their notes and photos are hidden
    /// from every read until restored or purged; returns those deleted.
    func deletePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID]
    /// Brings back deleted places that were not purged yet; returns those restored.
    func restorePlaces(ids: [PlaceID], userID: UserID) async throws -> [PlaceID]
    /// Removes for good the places deleted before `date` (of every user), with their notes and photo files;
    /// returns their ids.
    func purgeDeletedPlaces(deletedBefore date: Date) async throws -> [PlaceID]

    /// A place's notes, oldest first, each with what is known of its photos.
    func notes(placeID: PlaceID, userID: UserID) async throws -> [PlaceNote]
    func addNote(placeID: PlaceID, body: String, userID: UserID) async throws -> PlaceNote
    func updateNote(id: NoteID, body: String, userID: UserID) async throws -> PlaceNote
    func deleteNote(id: NoteID, userID: UserID) async throws -> Bool

    func addPhoto(noteID: NoteID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo
    /// A photo's thumbnail (`info.mediaType` is the thumbnail's type), or nil when it has none.
    func photoThumbnail(id: PhotoID, userID: UserID) async throws -> PhotoData?
    /// Sets a photo's thumbnail (one the browser made); at most 512 KiB.
    func setPhotoThumbnail(id: PhotoID, mediaType: String, bytes: Data, userID: UserID) async throws -> PhotoInfo
    func photo(id: PhotoID, userID: UserID) async throws -> PhotoData?
    func deletePhoto(id: PhotoID, userID: UserID) async throws -> Bool

    /// The user's labels by name.
    func labels(userID: UserID) async throws -> [PlaceLabel]
    /// A new label; the name must be unused by this user; the colour is `#RRGGBB`.
    func createLabel(name: String, color: String, userID: UserID) async throws -> PlaceLabel
    func updateLabel(id: LabelID, name: String?, color: String?, userID: UserID) async throws -> PlaceLabel
    func deleteLabel(id: LabelID, userID: UserID) async throws -> Bool
    /// Sets exactly which labels a place carries.
    func setLabels(_ labelIDs: [LabelID], placeID: PlaceID, userID: UserID) async throws -> Place

    // MARK: Share links

    /// A link showing the place to whoever holds `token` (made by the caller: long and random; see
    /// `ShareLink.isWellFormed`).
    func createShareLink(token: String, placeID: PlaceID, userID: UserID) async throws -> ShareLink
    /// The link with this token, whoever its user; nil when unknown, revoked, or its place is gone.
    func shareLink(token: String) async throws -> ShareLink?
    /// Revokes the user's link, by its token or by the id `activeShares` lists (what the store keeps of the token);
    /// false when there was no such live link.
    func revokeShareLink(token: String, userID: UserID) async throws -> Bool

    // MARK: Privacy zones and ride shares (issue 23)

    /// The user's zones (oldest first), hidden length and secret; nothing set gives empty settings.
    func privacySettings(userID: UserID) async throws -> PrivacySettings
    /// A new zone (checked by `PrivacySettingsRules.zone`; at most `PrivacyRules.maximumZoneCount`).
    func addPrivacyZone(_ zone: PrivacyZone, name: String?, userID: UserID) async throws -> StoredPrivacyZone
    /// False when the user has no such zone.
    func deletePrivacyZone(id: PrivacyZoneID, userID: UserID) async throws -> Bool
    /// Sets the metres hidden at each end of every ride (0 – 1,600).
    func setHiddenEndMeters(_ meters: Double, userID: UserID) async throws -> PrivacySettings
    /// A link showing the track to whoever holds `token` (see `ShareLink.isWellFormed`), until `expiresAt` (nil:
    /// until revoked). The track must be the user's and not deleted.
    func createRideShare(token: String, trackID: TrackID, userID: UserID, options: RideShareOptions, expiresAt: Date?) async throws -> RideShare
    /// The ride link with this token, whoever its user; nil when unknown, revoked, expired or its track is gone.
    func rideShare(token: String, now: Date) async throws -> RideShare?
    /// The user's links that still work (places, live positions, rides), newest first. Their tokens are kept hashed:
    /// each comes with its id, not its link.
    func activeShares(userID: UserID, now: Date) async throws -> [ActiveShare]

    // MARK: Family on one server (issue 23)

    /// Shares the user's live position with the user named `viewerName` until `expiresAt` (nil: until revoked);
    /// sharing again with the same user replaces the expiry (`FamilyShareRules`). An unknown name is
    /// `notFound(kind: "user", …)`, the user themself `invalid`, an expiry not after `now` `invalid`.
    func shareFamily(with viewerName: String, userID: UserID, expiresAt: Date?, now: Date) async throws -> FamilyShare
    /// The user's shares that still work at `now`: whom they share with, and who shares with them.
    func familyCircle(userID: UserID, now: Date) async throws -> FamilyCircle
    /// Stops sharing the user's position with the user named `viewerName`; false when there was no such share.
    func revokeFamilyShare(viewerName: String, userID: UserID) async throws -> Bool

    // MARK: Documents folder

    /// What the last sync saw of each file of the user's documents folder.
    func documentFiles(userID: UserID) async throws -> [DocumentFile]
    /// Remembers a file as synced (after importing it or writing it).
    func saveDocumentFile(_ file: DocumentFile, userID: UserID) async throws
    func removeDocumentFile(path: String, userID: UserID) async throws
    /// Complete tracks that have no file in the documents folder yet, oldest first.
    func tracksWithoutDocument(userID: UserID, limit: Int) async throws -> [TrackSummary]
}

extension RideStore {
    /// Appends fixes; the last client sequence number becomes the highest one stored.
    public func appendFixes(_ fixes: [RecordedFix], recordingID: RecordingID, userID: UserID) async throws -> FixAppendResult {
        try await appendFixes(fixes, acknowledgedThrough: nil, recordingID: recordingID, userID: userID, expecting: nil, limits: .none)
    }

    /// Appends fixes whatever the recording's version.
    public func appendFixes(
        _ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, userID: UserID
    ) async throws -> FixAppendResult {
        try await appendFixes(fixes, acknowledgedThrough: acknowledgedThrough, recordingID: recordingID, userID: userID, expecting: nil, limits: .none)
    }

    /// Appends fixes if the recording still has the version `expecting`, with no storage limits.
    public func appendFixes(
        _ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, userID: UserID, expecting: RecordingVersion?
    ) async throws -> FixAppendResult {
        try await appendFixes(
            fixes, acknowledgedThrough: acknowledgedThrough, recordingID: recordingID, userID: userID, expecting: expecting, limits: .none)
    }

    /// Stops the recording whatever its version.
    public func stopRecording(id: RecordingID, userID: UserID, stats: TrackStats) async throws -> TrackSummary {
        try await stopRecording(id: id, userID: userID, stats: stats, expecting: nil)
    }
}

extension RideStore {
    /// SQLite's planner chooses by its indexes and does not wait for statistics: nothing to do.
    public func refreshPlannerStatistics() async throws {}
}
