import Foundation
import RideKit
import RideStore

/// Recordings kept in RideStore: what `bikeride serve` uses. Talks to the store only through the `RideStore`
/// protocol, for one user, so any implementation of the store works.
///
/// How the two models meet (docs/server.md, "Wiring in RideStore"):
/// - the store keeps no per-point sequence numbers, only the highest one stored (`lastClientSequence`); a
///   recording loaded back numbers its points so that the last one carries that number, which makes the
///   rebuilt `Recorder` acknowledge exactly what the store holds;
/// - the store keeps the recording's `Recorder.Options` (units, breadcrumbs …); one stored before it did
///   gets the defaults, with the activity of its track's kind;
/// - fixes acknowledged but not stored (sent while paused) still raise the store's `lastClientSequence`;
/// - the store appends to the track's last segment and opens a new one on Resume, so the segment index the
///   `Recorder` gives each fix is not passed on; loaded back, each non-empty segment is one `Recorder`
///   segment.
public struct StoreRecordingRepository: RecordingRepository {
    public let store: any RideStore
    public let userID: UserID

    public init(store: any RideStore, userID: UserID) {
        self.store = store
        self.userID = userID
    }

    /// The recordings of a library's user.
    public init(library: TrackLibrary) {
        self.init(store: library.store, userID: library.userID)
    }

    public func createRecording(_ recording: NewRecordingInfo) async throws -> RecordingInfo {
        let request = NewRecording(
            name: recording.name, kind: TrackKind(activity: recording.options.activity), source: .recording,
            routeTrackID: recording.routeTrackID.flatMap { TrackID($0) }, options: recording.options, clientID: recording.clientID,
            startedAt: recording.startedAt)
        let stored = try await mapped { try await store.startRecording(request, userID: userID) }
        return RecordingInfo(
            id: stored.id.rawValue, name: recording.name, options: stored.options ?? recording.options,
            routeTrackID: stored.routeTrackID?.rawValue, state: Self.state(stored.state), startedAt: stored.startedAt,
            clientID: stored.clientID)
    }

    public func recordingID(clientID: String) async throws -> String? {
        try await store.recording(clientID: clientID, userID: userID)?.id.rawValue
    }

    public func loadRecording(id: String) async throws -> StoredRecording? {
        guard let recordingID = RecordingID(id) else { return nil }
        guard let recording = try await store.recording(id: recordingID, userID: userID),
              let track = try await store.track(id: recording.trackID, userID: userID)
        else { return nil }
        var options = Recorder.Options()
        options.activity = track.summary.kind.activity
        let info = RecordingInfo(
            id: recording.id.rawValue, name: track.summary.name, options: recording.options ?? options,
            routeTrackID: recording.routeTrackID?.rawValue, state: Self.state(recording.state), startedAt: recording.startedAt,
            trackID: recording.state == .stopped ? recording.trackID.rawValue : nil, clientID: recording.clientID)

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
        return StoredRecording(info: info, fixes: fixes, lastSequence: recording.lastClientSequence)
    }

    public func appendFixes(_ fixes: [AcceptedFix], lastSequence: Int64?, recordingID: String) async throws {
        let id = try Self.recordingID(recordingID)
        // Fixes acknowledged but not stored (taken while paused, or too inaccurate) still move the store's
        // last client sequence, so that a recorder rebuilt after a restart acknowledges them too.
        guard !fixes.isEmpty || lastSequence != nil else { return }
        let recorded = fixes.map { RecordedFix(sequence: $0.fix.sequence, point: $0.fix.trackPoint) }
        _ = try await mapped {
            try await store.appendFixes(recorded, acknowledgedThrough: lastSequence, recordingID: id, userID: userID)
        }
    }

    public func setState(_ state: RecorderState, recordingID: String) async throws {
        let id = try Self.recordingID(recordingID)
        switch state {
        case .paused: _ = try await mapped { try await store.pauseRecording(id: id, userID: userID) }
        case .recording: _ = try await mapped { try await store.resumeRecording(id: id, userID: userID) }
        case .idle, .stopped: break
        }
    }

    public func finishRecording(id: String, track: Track, stats: TrackStats) async throws -> String {
        let recordingID = try Self.recordingID(id)
        let summary = try await mapped { try await store.stopRecording(id: recordingID, userID: userID, stats: stats) }
        return summary.id.rawValue
    }

    // MARK: Helpers

    static func recordingID(_ text: String) throws -> RecordingID {
        guard let id = RecordingID(text) else { throw RecordingRepositoryError.notFound(text) }
        return id
    }

    static func state(_ state: RecordingState) -> RecorderState {
        switch state {
        case .recording: return .recording
        case .paused: return .paused
        case .stopped: return .stopped
        }
    }

    /// The store's "no such recording" as the repository's.
    private func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch RideStoreError.notFound(kind: "recording", let id) {
            throw RecordingRepositoryError.notFound(id)
        }
    }
}
