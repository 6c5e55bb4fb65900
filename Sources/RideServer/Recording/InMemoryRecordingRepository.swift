import Foundation
import RideKit

/// PLACEHOLDER until RideStore lands: keeps recordings and their fixes in this process only.
///
/// Everything is lost when the server stops, and "durable" means "in memory": it exists so that the API,
/// the web app and their tests run before the store exists. `bikeride serve` says so at start-up. The
/// store's implementation of `RecordingRepository` replaces it; nothing else in the server changes.
public actor InMemoryRecordingRepository: RecordingRepository {
    private var recordings: [String: StoredRecording] = [:]
    private var tracks: [String: (track: Track, stats: TrackStats)] = [:]
    private var clientIDs: [String: String] = [:]

    public init() {}

    public func createRecording(_ recording: NewRecordingInfo) -> RecordingInfo {
        if let clientID = recording.clientID, let id = clientIDs[clientID], let existing = recordings[id] { return existing.info }
        let info = RecordingInfo(
            id: Self.newID(), name: recording.name, options: recording.options, routeTrackID: recording.routeTrackID,
            state: .recording, startedAt: recording.startedAt, clientID: recording.clientID
        )
        recordings[info.id] = StoredRecording(info: info, fixes: [], lastSequence: nil)
        if let clientID = recording.clientID { clientIDs[clientID] = info.id }
        return info
    }

    public func recordingID(clientID: String) -> String? { clientIDs[clientID] }

    public func loadRecording(id: String) -> StoredRecording? { recordings[id] }

    public func appendFixes(_ fixes: [AcceptedFix], lastSequence: Int64?, recordingID: String) throws {
        guard var recording = recordings[recordingID] else { throw RecordingRepositoryError.notFound(recordingID) }
        recording.fixes += fixes
        recording.lastSequence = lastSequence
        recordings[recordingID] = recording
    }

    public func setState(_ state: RecorderState, recordingID: String) throws {
        guard recordings[recordingID] != nil else { throw RecordingRepositoryError.notFound(recordingID) }
        recordings[recordingID]!.info.state = state
    }

    public func finishRecording(id: String, track: Track, stats: TrackStats) throws -> String {
        guard var recording = recordings[id] else { throw RecordingRepositoryError.notFound(id) }
        if let trackID = recording.info.trackID { return trackID }
        let trackID = Self.newID()
        tracks[trackID] = (track, stats)
        recording.info.state = .stopped
        recording.info.trackID = trackID
        recordings[id] = recording
        return trackID
    }

    /// 16 random URL-safe characters (96 bits): unguessable, short enough for a URL.
    static func newID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet[Int(generator.next() % 64)] })
    }
}

/// Failures of a `RecordingRepository` the server maps to HTTP statuses.
public enum RecordingRepositoryError: Error, Sendable, Hashable {
    case notFound(String)
}
