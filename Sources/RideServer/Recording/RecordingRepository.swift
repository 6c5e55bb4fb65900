import Foundation
import RideKit

/// What the recordings API needs from persistence: recordings in progress, their fixes, and the track each
/// one becomes on Stop.
///
/// **This is the seam for RideStore.** `InMemoryRecordingRepository` is a placeholder that keeps everything
/// in the process (lost on restart); the store's SQLite implementation replaces it through
/// `buildApplication(configuration:recordings:)`, by an adapter in RideServer that conforms the store to
/// this protocol. The server never writes SQL and never assumes which implementation it has.
///
/// Every method that changes something must have made the change durable before it returns: the server
/// acknowledges fixes to the client only then (DESIGN 2.1), and the client forgets them on that answer.
public protocol RecordingRepository: Sendable {
    /// Creates a recording in state `.recording` and returns it. With a `clientID` already used, creates
    /// nothing and returns that recording.
    func createRecording(_ recording: NewRecordingInfo) async throws -> RecordingInfo
    /// The id of the recording a client started under its own `clientID`, or nil.
    func recordingID(clientID: String) async throws -> String?
    /// The recording and every fix stored for it, in order (to rebuild the `Recorder` after a restart or
    /// on another instance); nil when there is no such recording.
    func loadRecording(id: String) async throws -> StoredRecording?
    /// Stores fixes the `Recorder` accepted, and the new highest sequence number, in one transaction.
    /// `lastSequence` may be above the last stored fix (fixes taken while paused are acknowledged, not stored).
    func appendFixes(_ fixes: [AcceptedFix], lastSequence: Int64?, recordingID: String) async throws
    /// Records Pause and Resume.
    func setState(_ state: RecorderState, recordingID: String) async throws
    /// Stop: saves the track with its stats, marks the recording stopped, and returns the new track's id.
    func finishRecording(id: String, track: Track, stats: TrackStats) async throws -> String
}

/// What it takes to start recording.
public struct NewRecordingInfo: Sendable, Hashable {
    public var name: String
    public var options: Recorder.Options
    /// The planned route to follow (a later issue), if any.
    public var routeTrackID: String?
    public var startedAt: Date
    /// The client's own id for the recording (a ride started offline), if it gave one.
    public var clientID: String?

    public init(name: String, options: Recorder.Options, routeTrackID: String? = nil, startedAt: Date, clientID: String? = nil) {
        self.name = name
        self.options = options
        self.routeTrackID = routeTrackID
        self.startedAt = startedAt
        self.clientID = clientID
    }
}

/// A recording as stored.
public struct RecordingInfo: Sendable, Hashable {
    public var id: String
    public var name: String
    public var options: Recorder.Options
    public var routeTrackID: String?
    public var state: RecorderState
    public var startedAt: Date
    /// The saved track, once stopped.
    public var trackID: String?
    /// The client's own id for it, if it gave one.
    public var clientID: String?

    public init(
        id: String, name: String, options: Recorder.Options, routeTrackID: String? = nil, state: RecorderState,
        startedAt: Date, trackID: String? = nil, clientID: String? = nil
    ) {
        self.id = id
        self.name = name
        self.options = options
        self.routeTrackID = routeTrackID
        self.state = state
        self.startedAt = startedAt
        self.trackID = trackID
        self.clientID = clientID
    }
}

/// A recording with everything needed to rebuild its `Recorder`.
public struct StoredRecording: Sendable, Hashable {
    public var info: RecordingInfo
    public var fixes: [AcceptedFix]
    public var lastSequence: Int64?

    public init(info: RecordingInfo, fixes: [AcceptedFix], lastSequence: Int64?) {
        self.info = info
        self.fixes = fixes
        self.lastSequence = lastSequence
    }
}
