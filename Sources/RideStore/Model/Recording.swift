import Foundation
import RideKit

/// A ride being recorded: a track whose points are appended in batches as they arrive (DESIGN 2.1, 6).
public struct Recording: Sendable, Hashable, Identifiable {
    public var id: RecordingID
    public var userID: UserID
    /// The track the points go to (state `.recording` until stopped).
    public var trackID: TrackID
    public var deviceID: DeviceID?
    public var state: RecordingState
    /// The planned route followed, if any.
    public var routeTrackID: TrackID?
    /// The highest client sequence number stored: a fix at or below it is a replay and is not stored again.
    public var lastClientSequence: Int64?
    public var startedAt: Date
    public var updatedAt: Date
    public var stoppedAt: Date?
    /// Points stored so far, and segments (a pause starts a new one on resume).
    public var pointCount: Int
    public var segmentCount: Int
    /// The options it was started with (units, breadcrumbs …); nil for a recording stored before they were kept.
    public var options: Recorder.Options?
    /// The id the client gave it when it started it (offline, before the server could answer), if any.
    public var clientID: String?

    public init(
        id: RecordingID, userID: UserID, trackID: TrackID, deviceID: DeviceID? = nil, state: RecordingState,
        routeTrackID: TrackID? = nil, lastClientSequence: Int64? = nil, startedAt: Date, updatedAt: Date,
        stoppedAt: Date? = nil, pointCount: Int = 0, segmentCount: Int = 1, options: Recorder.Options? = nil,
        clientID: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.trackID = trackID
        self.deviceID = deviceID
        self.state = state
        self.routeTrackID = routeTrackID
        self.lastClientSequence = lastClientSequence
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.stoppedAt = stoppedAt
        self.pointCount = pointCount
        self.segmentCount = segmentCount
        self.options = options
        self.clientID = clientID
    }
}

extension Recording {
    /// What the recording holds now, as far as a cached `Recorder` needs to know: a cache built at one version
    /// is current exactly while the stored recording has that version (DESIGN 3: instances are stateless).
    public var version: RecordingVersion {
        RecordingVersion(
            pointCount: pointCount, segmentCount: segmentCount, lastClientSequence: lastClientSequence, state: state,
            routeTrackID: routeTrackID)
    }
}

/// The parts of a stored recording that change whenever anything is added to it or its state changes: points
/// stored and the last client sequence only grow, and Pause, Resume and a route change show in the rest. Two
/// readings with the same version hold the same fixes in the same segments.
public struct RecordingVersion: Sendable, Hashable, CustomStringConvertible {
    public var pointCount: Int
    public var segmentCount: Int
    public var lastClientSequence: Int64?
    public var state: RecordingState
    public var routeTrackID: TrackID?

    public init(pointCount: Int, segmentCount: Int, lastClientSequence: Int64?, state: RecordingState, routeTrackID: TrackID?) {
        self.pointCount = pointCount
        self.segmentCount = segmentCount
        self.lastClientSequence = lastClientSequence
        self.state = state
        self.routeTrackID = routeTrackID
    }

    public var description: String {
        "\(pointCount) points in \(segmentCount) segments through sequence \(lastClientSequence.map(String.init) ?? "none"), \(state.rawValue)"
    }

    /// Refuses a write made for `expected` when the recording has moved on (another instance appended, paused or
    /// resumed since): nothing is written, and the caller reads the recording again. One rule for both stores.
    public func require(_ expected: RecordingVersion?, recordingID: RecordingID) throws(RecordingChangedError) {
        guard let expected, expected != self else { return }
        throw RecordingChangedError(recordingID: recordingID, expected: expected, found: self)
    }
}

/// A write to a recording made for a version it no longer has (`RecordingVersion.require`).
public struct RecordingChangedError: Error, Sendable, Hashable, CustomStringConvertible {
    public var recordingID: RecordingID
    public var expected: RecordingVersion
    public var found: RecordingVersion

    public var description: String {
        "recording \(recordingID) changed since it was read (expected \(expected), found \(found))"
    }
}

/// Where a recording is in Start / Pause / Resume / Stop.
public enum RecordingState: String, Sendable, Hashable, Codable, CaseIterable {
    case recording, paused, stopped
}

/// What it takes to start recording.
public struct NewRecording: Sendable, Hashable {
    public var name: String
    public var kind: TrackKind
    public var source: TrackSource
    public var deviceID: DeviceID?
    public var routeTrackID: TrackID?
    /// Kept with the recording, so that it is rebuilt with them after a restart.
    public var options: Recorder.Options?
    /// The client's own id for the recording (see `RideStore.startRecording`): 1 to 64 characters of
    /// `A–Z a–z 0–9 - _`, such as a UUID.
    public var clientID: String?
    /// When the rider pressed Start, if that was before the request arrived (a start queued offline); nil: now.
    /// A time after now counts as now.
    public var startedAt: Date?

    public init(
        name: String, kind: TrackKind = .ride, source: TrackSource = .recording, deviceID: DeviceID? = nil,
        routeTrackID: TrackID? = nil, options: Recorder.Options? = nil, clientID: String? = nil, startedAt: Date? = nil
    ) {
        self.startedAt = startedAt
        self.name = name
        self.kind = kind
        self.source = source
        self.deviceID = deviceID
        self.routeTrackID = routeTrackID
        self.options = options
        self.clientID = clientID
    }
}

/// One fix as a client sent it, with the client's sequence number (increasing per recording).
public struct RecordedFix: Sendable, Hashable {
    public var sequence: Int64
    public var point: TrackPoint

    public init(sequence: Int64, point: TrackPoint) {
        self.sequence = sequence
        self.point = point
    }
}

/// What appending a batch of fixes did.
public struct FixAppendResult: Sendable, Hashable {
    /// The recording after the batch.
    public var recording: Recording
    /// The points stored by this call, in order (the line to extend on the map).
    public var appended: [TrackPoint]
    /// Fixes not stored again: their sequence number was already stored (a batch sent twice).
    public var replayedCount: Int

    public init(recording: Recording, appended: [TrackPoint], replayedCount: Int) {
        self.recording = recording
        self.appended = appended
        self.replayedCount = replayedCount
    }
}
