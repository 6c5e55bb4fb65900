import Foundation
import RideKit

/// One user's handle on a `RideStore`: the per-user operations without a `userID` parameter, so that code holding
/// it (the server's controllers, the command line) cannot pass another user's id by mistake.
///
///     let places = try await library.mine.places(PlaceQuery(limit: 20))   // this library's user only
///
/// Each method is the store's method of the same name with `userID` filled in; the store's rules (one transaction,
/// another user's id reads as "not found") are unchanged.
public struct ScopedStore: Sendable {
    private let store: any RideStore
    /// The user whose rows this handle reads and writes.
    public let userID: UserID

    public init(store: any RideStore, userID: UserID) {
        self.store = store
        self.userID = userID
    }

    /// The user this handle is for.
    public func user() async throws -> User? {
        try await store.user(id: userID)
    }

    public func activeShares(now: Date) async throws -> [ActiveShare] {
        try await store.activeShares(userID: userID, now: now)
    }

    public func addLapMark(recordingID: RecordingID, timeMilliseconds: Int64) async throws -> [Int64] {
        try await store.addLapMark(recordingID: recordingID, timeMilliseconds: timeMilliseconds, userID: userID)
    }

    public func addNote(placeID: PlaceID, body: String) async throws -> PlaceNote {
        try await store.addNote(placeID: placeID, body: body, userID: userID)
    }

    public func addPhoto(noteID: NoteID, mediaType: String, bytes: Data) async throws -> PhotoInfo {
        try await store.addPhoto(noteID: noteID, mediaType: mediaType, bytes: bytes, userID: userID)
    }

    public func addPrivacyZone(_ zone: PrivacyZone, name: String?) async throws -> StoredPrivacyZone {
        try await store.addPrivacyZone(zone, name: name, userID: userID)
    }

    public func appendFixes(_ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, expecting: RecordingVersion?, limits: StorageLimits) async throws -> FixAppendResult {
        try await store.appendFixes(fixes, acknowledgedThrough: acknowledgedThrough, recordingID: recordingID, userID: userID, expecting: expecting, limits: limits)
    }

    public func appendFixes(_ fixes: [RecordedFix], recordingID: RecordingID) async throws -> FixAppendResult {
        try await store.appendFixes(fixes, recordingID: recordingID, userID: userID)
    }

    public func appendFixes(_ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID) async throws -> FixAppendResult {
        try await store.appendFixes(fixes, acknowledgedThrough: acknowledgedThrough, recordingID: recordingID, userID: userID)
    }

    public func appendFixes(_ fixes: [RecordedFix], acknowledgedThrough: Int64?, recordingID: RecordingID, expecting: RecordingVersion?) async throws -> FixAppendResult {
        try await store.appendFixes(fixes, acknowledgedThrough: acknowledgedThrough, recordingID: recordingID, userID: userID, expecting: expecting)
    }

    public func createDevice(_ device: NewDevice) async throws -> Device {
        try await store.createDevice(device, userID: userID)
    }

    public func createLabel(name: String, color: String) async throws -> PlaceLabel {
        try await store.createLabel(name: name, color: color, userID: userID)
    }

    public func createLiveShare(token: String, deviceID: DeviceID, expiresAt: Date, untilRideEnds: Bool) async throws -> LiveShare {
        try await store.createLiveShare(token: token, deviceID: deviceID, userID: userID, expiresAt: expiresAt, untilRideEnds: untilRideEnds)
    }

    public func createPlace(_ place: NewPlace) async throws -> Place {
        try await store.createPlace(place, userID: userID)
    }

    public func createRideShare(token: String, trackID: TrackID, options: RideShareOptions, expiresAt: Date?) async throws -> RideShare {
        try await store.createRideShare(token: token, trackID: trackID, userID: userID, options: options, expiresAt: expiresAt)
    }

    public func createShareLink(token: String, placeID: PlaceID) async throws -> ShareLink {
        try await store.createShareLink(token: token, placeID: placeID, userID: userID)
    }

    public func deleteDevice(id: DeviceID) async throws -> Bool {
        try await store.deleteDevice(id: id, userID: userID)
    }

    public func deleteLabel(id: LabelID) async throws -> Bool {
        try await store.deleteLabel(id: id, userID: userID)
    }

    public func deleteNote(id: NoteID) async throws -> Bool {
        try await store.deleteNote(id: id, userID: userID)
    }

    public func deletePhoto(id: PhotoID) async throws -> Bool {
        try await store.deletePhoto(id: id, userID: userID)
    }

    public func deletePrivacyZone(id: PrivacyZoneID) async throws -> Bool {
        try await store.deletePrivacyZone(id: id, userID: userID)
    }

    public func deviceFixes(after sequence: Int64, limit: Int) async throws -> [StoredDeviceFix] {
        try await store.deviceFixes(userID: userID, after: sequence, limit: limit)
    }

    public func deviceFixes(deviceID: DeviceID, since: Date, limit: Int) async throws -> [StoredDeviceFix] {
        try await store.deviceFixes(deviceID: deviceID, userID: userID, since: since, limit: limit)
    }

    public func devices() async throws -> [Device] {
        try await store.devices(userID: userID)
    }

    public func explorerTiles(filter: HeatmapFilter) async throws -> ExplorerTileList {
        try await store.explorerTiles(filter: filter, userID: userID)
    }

    public func familyCircle(now: Date) async throws -> FamilyCircle {
        try await store.familyCircle(userID: userID, now: now)
    }

    public func heatmapTile(_ request: HeatmapRequest) async throws -> HeatmapTile {
        try await store.heatmapTile(request, userID: userID)
    }

    public func heatmapVersion() async throws -> Int64? {
        try await store.heatmapVersion(userID: userID)
    }

    public func importJob(id: ImportJobID) async throws -> ImportJob? {
        try await store.importJob(id: id, userID: userID)
    }

    public func invalidateEfforts() async throws -> Int {
        try await store.invalidateEfforts(userID: userID)
    }

    public func labels() async throws -> [PlaceLabel] {
        try await store.labels(userID: userID)
    }

    public func lapMarks(trackID: TrackID) async throws -> [Int64] {
        try await store.lapMarks(trackID: trackID, userID: userID)
    }

    public func lastDeviceFixSequence() async throws -> Int64 {
        try await store.lastDeviceFixSequence(userID: userID)
    }

    public func latestDeviceFixes() async throws -> [StoredDeviceFix] {
        try await store.latestDeviceFixes(userID: userID)
    }

    public func notes(placeID: PlaceID) async throws -> [PlaceNote] {
        try await store.notes(placeID: placeID, userID: userID)
    }

    public func pauseRecording(id: RecordingID) async throws -> Recording {
        try await store.pauseRecording(id: id, userID: userID)
    }

    public func personalRecords(kind: TrackKind) async throws -> [PersonalRecord] {
        try await store.personalRecords(kind: kind, userID: userID)
    }

    public func photo(id: PhotoID) async throws -> PhotoData? {
        try await store.photo(id: id, userID: userID)
    }

    public func photoThumbnail(id: PhotoID) async throws -> PhotoData? {
        try await store.photoThumbnail(id: id, userID: userID)
    }

    public func place(id: PlaceID) async throws -> Place? {
        try await store.place(id: id, userID: userID)
    }

    public func places(_ query: PlaceQuery) async throws -> [Place] {
        try await store.places(query, userID: userID)
    }

    public func privacySettings() async throws -> PrivacySettings {
        try await store.privacySettings(userID: userID)
    }

    public func rankedEfforts(trackID: TrackID) async throws -> [RankedEffort] {
        try await store.rankedEfforts(trackID: trackID, userID: userID)
    }

    public func recording(id: RecordingID) async throws -> Recording? {
        try await store.recording(id: id, userID: userID)
    }

    public func recording(clientID: String) async throws -> Recording? {
        try await store.recording(clientID: clientID, userID: userID)
    }

    public func replaceDeviceToken(id: DeviceID, tokenHash: String) async throws -> Device {
        try await store.replaceDeviceToken(id: id, userID: userID, tokenHash: tokenHash)
    }

    public func restorePlaces(ids: [PlaceID]) async throws -> [PlaceID] {
        try await store.restorePlaces(ids: ids, userID: userID)
    }

    public func restoreTracks(ids: [TrackID]) async throws -> [TrackID] {
        try await store.restoreTracks(ids: ids, userID: userID)
    }

    public func resumeRecording(id: RecordingID) async throws -> Recording {
        try await store.resumeRecording(id: id, userID: userID)
    }

    public func revokeFamilyShare(viewerName: String) async throws -> Bool {
        try await store.revokeFamilyShare(viewerName: viewerName, userID: userID)
    }

    public func revokeShareLink(token: String) async throws -> Bool {
        try await store.revokeShareLink(token: token, userID: userID)
    }

    public func setHiddenEndMeters(_ meters: Double) async throws -> PrivacySettings {
        try await store.setHiddenEndMeters(meters, userID: userID)
    }

    public func setLabels(_ labelIDs: [LabelID], placeID: PlaceID) async throws -> Place {
        try await store.setLabels(labelIDs, placeID: placeID, userID: userID)
    }

    public func setPhotoThumbnail(id: PhotoID, mediaType: String, bytes: Data) async throws -> PhotoInfo {
        try await store.setPhotoThumbnail(id: id, mediaType: mediaType, bytes: bytes, userID: userID)
    }

    public func setRecordingRoute(id: RecordingID, routeTrackID: TrackID?) async throws -> Recording {
        try await store.setRecordingRoute(id: id, routeTrackID: routeTrackID, userID: userID)
    }

    public func setWeeklyGoal(_ goal: WeeklyGoal?, kind: TrackKind) async throws {
        try await store.setWeeklyGoal(goal, kind: kind, userID: userID)
    }

    public func shareFamily(with viewerName: String, expiresAt: Date?, now: Date) async throws -> FamilyShare {
        try await store.shareFamily(with: viewerName, userID: userID, expiresAt: expiresAt, now: now)
    }

    public func startRecording(_ request: NewRecording) async throws -> Recording {
        try await store.startRecording(request, userID: userID)
    }

    public func stopRecording(id: RecordingID, stats: TrackStats, expecting: RecordingVersion?) async throws -> TrackSummary {
        try await store.stopRecording(id: id, userID: userID, stats: stats, expecting: expecting)
    }

    public func stopRecording(id: RecordingID, stats: TrackStats) async throws -> TrackSummary {
        try await store.stopRecording(id: id, userID: userID, stats: stats)
    }

    public func track(id: TrackID) async throws -> StoredTrack? {
        try await store.track(id: id, userID: userID)
    }

    public func trackCount() async throws -> Int {
        try await store.trackCount(userID: userID)
    }

    public func trackSummary(id: TrackID) async throws -> TrackSummary? {
        try await store.trackSummary(id: id, userID: userID)
    }

    public func trackTotals(since starts: [Date]) async throws -> [TrackTotals] {
        try await store.trackTotals(since: starts, userID: userID)
    }

    public func tracks(_ query: TrackQuery) async throws -> TrackPage {
        try await store.tracks(query, userID: userID)
    }

    public func updateLabel(id: LabelID, name: String?, color: String?) async throws -> PlaceLabel {
        try await store.updateLabel(id: id, name: name, color: color, userID: userID)
    }

    public func updateNote(id: NoteID, body: String) async throws -> PlaceNote {
        try await store.updateNote(id: id, body: body, userID: userID)
    }

    public func updatePlace(id: PlaceID, _ changes: PlaceChanges) async throws -> Place {
        try await store.updatePlace(id: id, userID: userID, changes)
    }

    public func updatePlace(id: PlaceID, _ changes: PlaceChanges, labelIDs: [LabelID]?) async throws -> Place {
        try await store.updatePlace(id: id, userID: userID, changes, labelIDs: labelIDs)
    }

    public func weeklyGoals() async throws -> [WeeklyGoal] {
        try await store.weeklyGoals(userID: userID)
    }
}

extension TrackLibrary {
    /// The store as this library's user sees it.
    public var mine: ScopedStore { ScopedStore(store: store, userID: userID) }
}
