import Foundation
import RideKit
import RideStore

/// How recordings are kept in the store: through the `RideStore` protocol only, for the library's user, so any
/// implementation of the store works.
///
/// How the two models meet (docs/server.md, "Recordings in the store"):
/// - the store keeps no per-point sequence numbers, only the highest one stored (`lastClientSequence`); a
///   recording loaded back numbers its points so that the last one carries that number, which makes the
///   rebuilt `Recorder` acknowledge exactly what the store holds;
/// - the store keeps the recording's `Recorder.Options` (units, breadcrumbs …); one stored before it did
///   gets the defaults, with the activity of its track's kind;
/// - fixes acknowledged but not stored (sent while paused) still raise the store's `lastClientSequence`;
/// - the store appends to the track's last segment and opens a new one on Resume, so the segment index the
///   `Recorder` gives each fix is not passed on; loaded back, each non-empty segment is one `Recorder`
///   segment.
///
/// An id that names no recording of the user is the store's `RideStoreError.notFound(kind: "recording", …)`.
extension RecordingService {
    /// Creates the recording in the store (state `.recording`). With a `clientID` already used, creates
    /// nothing and returns that recording.
    static func createRecording(_ recording: NewRecordingInfo, in library: TrackLibrary) async throws -> (RecordingInfo, RecordingVersion) {
        let request = NewRecording(
            name: recording.name, kind: TrackKind(activity: recording.options.activity), source: recording.simulated ? .simulation : .recording,
            routeTrackID: recording.routeTrackID.flatMap { TrackID($0) }, options: recording.options, clientID: recording.clientID,
            startedAt: recording.startedAt)
        let stored = try await library.mine.startRecording(request)
        let info = RecordingInfo(
            id: stored.id.rawValue, name: recording.name, options: stored.options ?? recording.options,
            routeTrackID: stored.routeTrackID?.rawValue, state: state(stored.state), startedAt: stored.startedAt,
            clientID: stored.clientID, simulated: recording.simulated)
        return (info, stored.version)
    }

    /// The id of the recording a client started under its own `clientID`, or nil.
    static func recordingID(clientID: String, in library: TrackLibrary) async throws -> String? {
        try await library.mine.recording(clientID: clientID)?.id.rawValue
    }

    /// The recording and every fix stored for it, in order (to rebuild the `Recorder` after a restart or on
    /// another instance); nil when there is no such recording.
    ///
    /// The recording and its track are two reads: when a batch lands between them (another instance), the
    /// track holds more points than the recording said, and both are read again. A reading that never agrees
    /// gets a version no stored recording has, so that the next write conditioned on it fails and reads again.
    static func storedRecording(id: String, in library: TrackLibrary) async throws -> StoredRecording? {
        for attempt in 1...3 {
            guard let stored = try await storedRecordingOnce(id: id, in: library) else { return nil }
            if stored.fixes.count == stored.version.pointCount || attempt == 3 {
                var result = stored
                if stored.fixes.count != stored.version.pointCount { result.version.pointCount = -1 }
                return result
            }
        }
        return nil
    }

    private static func storedRecordingOnce(id: String, in library: TrackLibrary) async throws -> StoredRecording? {
        guard let recordingID = RecordingID(id) else { return nil }
        guard let recording = try await library.mine.recording(id: recordingID),
              let track = try await library.mine.track(id: recording.trackID)
        else { return nil }
        var options = Recorder.Options()
        options.activity = track.summary.kind.activity
        let info = RecordingInfo(
            id: recording.id.rawValue, name: track.summary.name, options: recording.options ?? options,
            routeTrackID: recording.routeTrackID?.rawValue, state: state(recording.state), startedAt: recording.startedAt,
            trackID: recording.state == .stopped ? recording.trackID.rawValue : nil, clientID: recording.clientID,
            simulated: track.summary.source == .simulation)

        var segments: [[TrackPoint]] = []
        for packedTrack in track.content.tracks {
            for segment in packedTrack.segments {
                let points = try segment.points.points()
                if !points.isEmpty { segments.append(points) }
            }
        }
        let total = segments.reduce(0) { $0 + $1.count }
        // Numbered so that the last point carries the highest sequence stored (never below 0: the stored
        // sequences are distinct and not negative, so there are at most last + 1 of them).
        let last = recording.lastClientSequence ?? Int64(total - 1)
        var sequence = last - Int64(total) + 1
        var fixes: [AcceptedFix] = []
        fixes.reserveCapacity(total)
        for (index, points) in segments.enumerated() {
            for point in points {
                let fix = RecordingFix(
                    sequence: sequence, latitude: point.latitude, longitude: point.longitude, altitudeMeters: point.elevation,
                    time: point.time, speedMetersPerSecond: point.speedMetersPerSecond, courseDegrees: point.courseDegrees)
                fixes.append(AcceptedFix(segmentIndex: index, fix: fix))
                sequence += 1
            }
        }
        return StoredRecording(info: info, fixes: fixes, lastSequence: recording.lastClientSequence, version: recording.version)
    }

    /// Stores fixes the `Recorder` accepted, and the new highest sequence number, in one transaction, if the
    /// recording still has the version `expecting` (else `RecordingChangedError`, nothing written); returns the
    /// version after. `lastSequence` may be above the last stored fix (fixes taken while paused are
    /// acknowledged, not stored).
    static func appendFixes(
        _ fixes: [AcceptedFix], lastSequence: Int64?, recordingID: String, expecting: RecordingVersion, in library: TrackLibrary
    ) async throws -> RecordingVersion {
        let id = try storeID(recordingID)
        // Fixes acknowledged but not stored (taken while paused, or too inaccurate) still move the store's
        // last client sequence, so that a recorder rebuilt after a restart acknowledges them too.
        guard !fixes.isEmpty || lastSequence != nil else { return expecting }
        let recorded = fixes.map { RecordedFix(sequence: $0.fix.sequence, point: $0.fix.trackPoint) }
        let result = try await library.mine.appendFixes(
            recorded, acknowledgedThrough: lastSequence, recordingID: id, expecting: expecting,
            limits: library.limits)
        return result.recording.version
    }

    /// Records Pause and Resume; returns the recording after (nil for a state the store does not keep).
    static func setState(_ state: RecorderState, recordingID: String, in library: TrackLibrary) async throws -> Recording? {
        let id = try storeID(recordingID)
        switch state {
        case .paused: return try await library.mine.pauseRecording(id: id)
        case .recording: return try await library.mine.resumeRecording(id: id)
        case .idle, .stopped: return nil
        }
    }

    /// Stop: completes the track with its stats, marks the recording stopped, and returns the track's id; refused
    /// (`RecordingChangedError`) when the recording no longer has the version the stats were computed at.
    static func finishRecording(id: String, stats: TrackStats, expecting: RecordingVersion, in library: TrackLibrary) async throws -> String {
        let summary = try await library.mine.stopRecording(id: try storeID(id), stats: stats, expecting: expecting)
        return summary.id.rawValue
    }

    // MARK: Helpers

    /// The store's id for an id of the API; one that cannot be an id is "no such recording".
    static func storeID(_ text: String) throws -> RecordingID {
        guard let id = RecordingID(text) else { throw RideStoreError.notFound(kind: "recording", id: text) }
        return id
    }

    static func state(_ state: RecordingState) -> RecorderState {
        switch state {
        case .recording: return .recording
        case .paused: return .paused
        case .stopped: return .stopped
        }
    }
}
