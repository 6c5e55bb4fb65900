import Foundation
import GRDB
import Testing

import RideKit
@testable import RideStore

/// What a recording keeps beyond its points: the options it started with, the client's own id for it, and the
/// last client sequence number acknowledged even when nothing was stored (fixes sent while paused).
@Suite struct RecordingOptionsTests {
    @Test(arguments: StoreKind.allCases) func optionsSurviveReopeningTheDatabase(_ kind: StoreKind) async throws {
        try await withReopenableStore(kind) { open in
            let store = try await open()
            let user = try await store.localUser()
            var options = Recorder.Options(activity: .run, breadcrumbsEnabled: false, units: .imperial)
            options.cameraRadiusMeters = 450
            let started = try await store.startRecording(NewRecording(name: "Intervals", kind: .run, options: options), userID: user.id)
            #expect(started.options == options)

            let reopened = try await open()
            let loaded = try #require(try await reopened.recording(id: started.id, userID: user.id))
            #expect(loaded.options == options)
            #expect(loaded.options?.units == .imperial && loaded.options?.breadcrumbsEnabled == false)
            // Without options (an older client of the store): none kept, the reader picks the defaults.
            let plain = try await reopened.startRecording(NewRecording(name: "Plain"), userID: user.id)
            #expect(try await reopened.recording(id: plain.id, userID: user.id)?.options == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aClientIDStartsOneRecordingOnly(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let clientID = "3f2b6c1e-8d4a-4f3e-9c2a-1b2c3d4e5f60"
            let first = try await store.startRecording(NewRecording(name: "Offline start", clientID: clientID), userID: user.id)
            let second = try await store.startRecording(NewRecording(name: "Sent again", clientID: clientID), userID: user.id)
            #expect(second.id == first.id && second.trackID == first.trackID)
            #expect(second.clientID == clientID)
            #expect(try await store.recording(clientID: clientID, userID: user.id)?.id == first.id)
            #expect(try await store.activeRecordings(userID: user.id).count == 1)
            #expect(try await store.tracks(TrackQuery(includesRecordings: true), userID: user.id).tracks.count == 1)

            // Another user's client id space is its own.
            let other = try await store.createUser(name: "other", passwordHash: nil)
            #expect(try await store.recording(clientID: clientID, userID: other.id) == nil)
            let theirs = try await store.startRecording(NewRecording(name: "Theirs", clientID: clientID), userID: other.id)
            #expect(theirs.id != first.id)
        }
    }

    @Test(arguments: StoreKind.allCases, ["", "a b", "../x", String(repeating: "a", count: 65), "ünïcode", "semi;colon"])
    func hostileClientIDsAreRefused(_ kind: StoreKind, _ clientID: String) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let before = try await VisibleState.of(store, userID: user.id)
            await #expect(throws: RideStoreError.self) {
                try await store.startRecording(NewRecording(name: "Bad", clientID: clientID), userID: user.id)
            }
            #expect(try await VisibleState.of(store, userID: user.id) == before)
            #expect(try await store.activeRecordings(userID: user.id).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func fixesAcknowledgedWhilePausedMoveTheLastSequence(_ kind: StoreKind) async throws {
        try await withReopenableStore(kind) { open in
            let store = try await open()
            let user = try await store.localUser()
            let recording = try await store.startRecording(NewRecording(name: "Coffee stop"), userID: user.id)
            _ = try await store.appendFixes(RecordingTests.fixes(1..<11), recordingID: recording.id, userID: user.id)
            _ = try await store.pauseRecording(id: recording.id, userID: user.id)
            // Paused: fixes 11…15 are acknowledged, none stored.
            let paused = try await store.appendFixes([], acknowledgedThrough: 15, recordingID: recording.id, userID: user.id)
            #expect(paused.appended.isEmpty)
            #expect(paused.recording.lastClientSequence == 15 && paused.recording.pointCount == 10)
            // A lower number never moves it back.
            let lower = try await store.appendFixes([], acknowledgedThrough: 12, recordingID: recording.id, userID: user.id)
            #expect(lower.recording.lastClientSequence == 15)

            // After a restart the paused fixes, sent again, are replays.
            let reopened = try await open()
            #expect(try await reopened.recording(id: recording.id, userID: user.id)?.lastClientSequence == 15)
            _ = try await reopened.resumeRecording(id: recording.id, userID: user.id)
            let again = try await reopened.appendFixes(RecordingTests.fixes(11..<20), recordingID: recording.id, userID: user.id)
            #expect(again.appended == RecordingTests.fixes(16..<20).map(\.point))
            #expect(again.replayedCount == 5)
            #expect(again.recording.lastClientSequence == 19 && again.recording.pointCount == 14)
        }
    }

    /// A database made before migration v2 opens, keeps its recordings, and reads them without options.
    @Test func anSQLiteVersion1DatabaseIsMigrated() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "ridestore-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "bikeride.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteRideStore.migrator.migrate(queue, upTo: "v1 users, devices, tracks, recordings, places, documents")
            let columns = try await queue.read { db in try db.columns(in: "recording").map(\.name) }
            #expect(columns.contains("lastClientSequence") && !columns.contains("options"))
        }
        let store = try SQLiteRideStore(path: path)
        let user = try await store.localUser()
        let recording = try await store.startRecording(NewRecording(name: "After", options: Recorder.Options(units: .imperial)), userID: user.id)
        #expect(try await store.recording(id: recording.id, userID: user.id)?.options?.units == .imperial)
    }
}
