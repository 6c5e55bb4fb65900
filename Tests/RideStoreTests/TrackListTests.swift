import Foundation
import Testing

import RideKit
@testable import RideStore
import TestSupport

/// The Tracks list: newest first, paged by cursor, searchable; each user sees only their own.
@Suite struct TrackListTests {
    static func save(_ store: any RideStore, userID: UserID, name: String, start: Int64, kind: TrackKind = .ride) async throws -> TrackSummary {
        let document = GeneratedRide.document(points: 20, name: name, start: start)
        let result = try await store.saveImport(
            TrackImport(
                source: ImportSource(fileName: nil, format: .gpx, contentHash: UUID().uuidString, byteCount: 0),
                tracks: [NewTrack(name: name, kind: kind, content: TrackContent(document: document), stats: document.stats())]),
            userID: userID)
        guard case .imported(_, let tracks, _) = result else { throw RideStoreError.conflict("duplicate") }
        return tracks[0]
    }

    @Test(arguments: StoreKind.allCases) func pagesWalkEveryTrackNewestFirstOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            var saved: [TrackSummary] = []
            // Pairs with the same start time: the cursor must still not skip or repeat.
            for index in 0..<23 { saved.append(try await Self.save(store, userID: user.id, name: "ride \(index)", start: 1_700_000_000 + Int64(index / 2) * 3600)) }
            var seen: [TrackSummary] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await store.tracks(TrackQuery(limit: 5, cursor: cursor), userID: user.id)
                seen += page.tracks
                cursor = page.nextCursor
                pages += 1
            } while cursor != nil
            #expect(pages == 5)
            #expect(seen.count == 23)
            #expect(Set(seen.map(\.id)) == Set(saved.map(\.id)))
            #expect(seen.map(\.date) == seen.map(\.date).sorted(by: >))
            #expect(try await store.trackCount(userID: user.id) == 23)
            await #expect(throws: RideStoreError.self) { try await store.tracks(TrackQuery(cursor: "nonsense"), userID: user.id) }
            await #expect(throws: RideStoreError.self) { try await store.tracks(TrackQuery(limit: 0), userID: user.id) }
        }
    }

    @Test(arguments: StoreKind.allCases) func searchKindsAndLikeCharacters(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            _ = try await Self.save(store, userID: user.id, name: "Morning Ride to Lake", start: 1)
            _ = try await Self.save(store, userID: user.id, name: "Evening run", start: 2, kind: .run)
            _ = try await Self.save(store, userID: user.id, name: "100% climb_day", start: 3)
            func names(_ query: TrackQuery) async throws -> [String] { try await store.tracks(query, userID: user.id).tracks.map(\.name) }
            #expect(try await names(TrackQuery(search: "lake")) == ["Morning Ride to Lake"])
            // "ride" is also a kind since issue 11: every ride matches (the run does not).
            #expect(try await names(TrackQuery(search: "RIDE")) == ["100% climb_day", "Morning Ride to Lake"])
            #expect(try await names(TrackQuery(search: "morning RIDE")) == ["Morning Ride to Lake"])
            #expect(try await names(TrackQuery(search: "%")) == ["100% climb_day"])
            #expect(try await names(TrackQuery(search: "_")) == ["100% climb_day"])
            #expect(try await names(TrackQuery(kinds: [.run])) == ["Evening run"])
            #expect(try await names(TrackQuery(search: "zzz")).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func renameKindDeleteRestoreAndPurge(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let library = TrackLibrary(store: store, userID: try await store.localUser().id, documentsFolder: nil)
            let outcome = try await library.importFile(at: Fixtures.url("gpx/coregpx/GPXTest-TrackPointOnly.gpx"))
            let id = try #require(outcome.tracks.first?.id)
            #expect(try await library.rename(id, to: "  Climb\nto the pass ").name == "Climb to the pass")
            await #expect(throws: RideStoreError.self) { try await library.rename(id, to: "   ") }
            #expect(try await library.document(for: [id]).tracks[0].name == "Climb to the pass")
            let ride = try #require(try await store.track(id: id, userID: library.userID))
            let run = try await library.setKind(id, to: .walk)
            #expect(run.kind == .walk)
            #expect(run.distanceMeters > 0)
            // Walking thresholds count slow stretches as moving that a ride counts as stopped.
            #expect(run.movingSeconds >= ride.summary.movingSeconds)

            #expect(try await library.delete([id, .random()], permanently: false) == [id])
            #expect(try await store.trackCount(userID: library.userID) == 0)
            #expect(try await store.tracks(TrackQuery(deletedOnly: true), userID: library.userID).tracks.map(\.id) == [id])
            #expect(try await store.restoreTracks(ids: [id], userID: library.userID) == [id])
            #expect(try await store.trackCount(userID: library.userID) == 1)
            _ = try await library.delete([id], permanently: false)
            // Restorable for 30 days: not purged 29 days on, purged 31 days on.
            #expect(try await library.purgeExpiredTracks(now: Date().addingTimeInterval(29 * 86400)).isEmpty)
            #expect(try await store.tracks(TrackQuery(deletedOnly: true), userID: library.userID).tracks.map(\.id) == [id])
            #expect(try await library.purgeExpiredTracks(now: Date().addingTimeInterval(31 * 86400)).map(\.id) == [id])
            #expect(try await store.track(id: id, userID: library.userID) == nil)
            let left = try await storedPointRows(store)
            #expect(left.segments == 0 && left.blocks == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func usersSeeOnlyTheirOwnData(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.createUser(name: "alice", passwordHash: "hash")
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            await #expect(throws: RideStoreError.self) { try await store.createUser(name: "alice", passwordHash: nil) }
            #expect(try await store.user(named: "alice") == alice)
            #expect(try await store.localUser() == store.localUser())
            let track = try await Self.save(store, userID: alice.id, name: "alice's", start: 1)
            #expect(try await store.track(id: track.id, userID: bob.id) == nil)
            #expect(try await store.tracks(TrackQuery(), userID: bob.id).tracks.isEmpty)
            await #expect(throws: RideStoreError.self) { try await store.updateTrack(id: track.id, userID: bob.id, TrackChanges(name: "mine")) }
            #expect(try await store.deleteTracks(ids: [track.id], userID: bob.id).isEmpty)
            #expect(try await store.purgeTracks(ids: [track.id], userID: bob.id).isEmpty)
            #expect(try await store.track(id: track.id, userID: alice.id) != nil)

            let device = try await store.createDevice(NewDevice(name: "phone", tokenHash: "t1", protocolName: "owntracks"), userID: alice.id)
            #expect(try await store.device(tokenHash: "t1") == device)
            #expect(try await store.devices(userID: bob.id).isEmpty)
            #expect(try await store.deleteDevice(id: device.id, userID: bob.id) == false)
            try await store.markDeviceSeen(id: device.id, at: Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await store.devices(userID: alice.id).first?.lastSeenAt == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await store.deleteDevice(id: device.id, userID: alice.id))
        }
    }

    @Test(arguments: StoreKind.allCases) func usersSeeOnlyTheirOwnPlaces(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let alice = try await store.createUser(name: "alice", passwordHash: "hash")
            let bob = try await store.createUser(name: "bob", passwordHash: nil)
            let label = try await store.createLabel(name: "Home", color: "#123456", userID: alice.id)
            let place = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "home", note: "key under the mat"), userID: alice.id)
            #expect(try await store.place(id: place.id, userID: bob.id) == nil)
            #expect(try await store.places(PlaceQuery(), userID: bob.id).isEmpty)
            await #expect(throws: RideStoreError.self) { try await store.addNote(placeID: place.id, body: "x", userID: bob.id) }
            await #expect(throws: RideStoreError.self) { try await store.notes(placeID: place.id, userID: bob.id) }
            await #expect(throws: RideStoreError.self) { try await store.setLabels([], placeID: place.id, userID: bob.id) }
            await #expect(throws: RideStoreError.self) { try await store.updatePlace(id: place.id, userID: bob.id, PlaceChanges(name: "mine")) }
            // Bob cannot put Alice's label on a place of his, nor see, rename or delete it.
            let his = try await store.createPlace(NewPlace(latitude: 3, longitude: 4, name: "his"), userID: bob.id)
            await #expect(throws: RideStoreError.self) { try await store.setLabels([label.id], placeID: his.id, userID: bob.id) }
            #expect(try await store.labels(userID: bob.id).isEmpty)
            await #expect(throws: RideStoreError.self) { try await store.updateLabel(id: label.id, name: "x", color: nil, userID: bob.id) }
            #expect(try await store.deleteLabel(id: label.id, userID: bob.id) == false)
            #expect(try await store.deletePlaces(ids: [place.id], userID: bob.id).isEmpty)
            await #expect(throws: RideStoreError.self) {
                try await store.createShareLink(token: String(repeating: "t", count: 43), placeID: place.id, userID: bob.id)
            }
            let note = try #require(try await store.notes(placeID: place.id, userID: alice.id).first)
            #expect(try await store.deleteNote(id: note.id, userID: bob.id) == false)
            await #expect(throws: RideStoreError.self) { try await store.updateNote(id: note.id, body: "x", userID: bob.id) }
            #expect(try await store.place(id: place.id, userID: alice.id) == place)
        }
    }

    /// Text PostgreSQL cannot hold (a NUL) is refused alike by both stores, as a value error, never a store failure.
    @Test(arguments: StoreKind.allCases) func aNULInANameOrASearchIsRefusedAlike(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser()
            let track = try await Self.save(store, userID: user.id, name: "Loop", start: 1)
            await #expect(throws: RideStoreError.invalid(field: "name", reason: "must not contain a NUL character")) {
                try await store.updateTrack(id: track.id, userID: user.id, TrackChanges(name: "Lo\u{0}op"))
            }
            await #expect(throws: RideStoreError.invalid(field: "search", reason: "must not contain a NUL character")) {
                try await store.tracks(TrackQuery(search: "Lo\u{0}"), userID: user.id)
            }
            await #expect(throws: RideStoreError.self) {
                try await store.startRecording(NewRecording(name: "\u{0}"), userID: user.id)
            }
            #expect(try await store.trackSummary(id: track.id, userID: user.id)?.name == "Loop")
            // A user or device name with a NUL: refused (PostgreSQL: a value error from the server), never stored.
            do {
                _ = try await store.createDevice(NewDevice(name: "pho\u{0}ne", tokenHash: "t", protocolName: "owntracks"), userID: user.id)
                #expect(kind == .sqlite, "PostgreSQL stored a NUL")
            } catch let error as RideStoreError {
                guard case .invalid = error else { Issue.record("\(error)"); return }
            }
        }
    }
}
