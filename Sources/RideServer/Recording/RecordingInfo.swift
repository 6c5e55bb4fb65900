import Foundation
import RideKit
import RideStore

// The server's view of a recording: what the `Recorder` of a recording in progress is built from. Kept in the
// store (`RecordingService+Store.swift` translates); the names are the API's (string ids, `RecorderState`).

/// What it takes to start recording.
public struct NewRecordingInfo: Sendable, Hashable {
    public var name: String
    public var options: Recorder.Options
    /// The saved track to follow as a route, if any (docs/server.md, "Following a route").
    public var routeTrackID: String?
    public var startedAt: Date
    /// The client's own id for the recording (a ride started offline), if it gave one.
    public var clientID: String?
    /// A simulated ride (demo mode): saved with source `simulation`, left out of the totals.
    public var simulated = false

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
    /// A simulated ride (demo mode), saved with source `simulation`: the web app keeps it marked after a reload.
    public var simulated = false

    public init(
        id: String, name: String, options: Recorder.Options, routeTrackID: String? = nil, state: RecorderState,
        startedAt: Date, trackID: String? = nil, clientID: String? = nil, simulated: Bool = false
    ) {
        self.id = id
        self.name = name
        self.options = options
        self.routeTrackID = routeTrackID
        self.state = state
        self.startedAt = startedAt
        self.trackID = trackID
        self.clientID = clientID
        self.simulated = simulated
    }
}

/// A recording with everything needed to rebuild its `Recorder`.
public struct StoredRecording: Sendable, Hashable {
    public var info: RecordingInfo
    public var fixes: [AcceptedFix]
    public var lastSequence: Int64?
    /// The stored recording's version these fixes were read at.
    public var version: RecordingVersion

    public init(info: RecordingInfo, fixes: [AcceptedFix], lastSequence: Int64?, version: RecordingVersion) {
        self.info = info
        self.fixes = fixes
        self.lastSequence = lastSequence
        self.version = version
    }
}
