import Foundation
import GRDB
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres
import TestSupport

/// `LibraryCopy` (`bikeride copy`): a SQLite library made through the public API moves into PostgreSQL whole —
/// the PostgreSQL store then answers as the SQLite one did — resumably, and the check names what differs.
@Suite struct LibraryCopyTests {
    /// What the library holds, to compare with what the PostgreSQL store answers.
    struct Library {
        var local: User
        var anna: User
        var device: Device
        var trackIDs: [TrackID]
        var longTrackID: TrackID
        var recordingIDs: [RecordingID]
        var placeIDs: [PlaceID]
        var deletedPlaceID: PlaceID
        var photos: [(id: PhotoID, bytes: Data, thumbnail: Data?)]
        var placeToken: String
        var liveToken: String
        var documents: [DocumentFile]
    }

    static let password = "correct horse battery"
    static let sessionToken = "anna-session-token-hash"

    /// A library with something in every table: two users (one with a password and a session), a device with
    /// fixes and a live share, imported tracks (one deleted), a stopped and an active recording, places with notes,
    /// labels and photos (one kept in its row, as before photo files), a place share link, document files.
    static func makeLibrary(_ test: TestStore) async throws -> Library {
        let store = test.store
        let local = try await store.localUser()
        let anna = try await store.createUser(name: "anna", passwordHash: try PasswordHasher.forTesting.hash(password))
        try await store.createSession(tokenHash: sessionToken, userID: anna.id, expiresAt: Date().addingTimeInterval(86400))

        let device = try await store.createDevice(
            NewDevice(name: "Phone", tokenHash: SecretToken.hash(SecretToken.make()), protocolName: "overland"), userID: anna.id)
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let fixes = (0..<40).map { minute in
            TrackerFix(
                time: start.addingTimeInterval(Double(minute) * 30), latitude: 46.5 + Double(minute) * 0.0004, longitude: 6.6,
                speedMetersPerSecond: 4, batteryPercent: 70)
        }
        _ = try await store.ingest(fixes, deviceID: device.id, userID: anna.id, gapSeconds: 1800)
        // And one more, 30 s later: too soon for the live track's figures, so it waits outside its point blocks
        // (read from deviceFix); the copy must carry it into them.
        let waiting = TrackerFix(time: start.addingTimeInterval(40 * 30), latitude: 46.516, longitude: 6.6, speedMetersPerSecond: 4, batteryPercent: 70)
        _ = try await store.ingest([waiting], deviceID: device.id, userID: anna.id, gapSeconds: 1800)
        let liveToken = "live-share-token-" + String(SecretToken.make().prefix(20))
        _ = try await store.createLiveShare(
            token: liveToken, deviceID: device.id, userID: anna.id, expiresAt: Date().addingTimeInterval(3600), untilRideEnds: false)

        let library = TrackLibrary(store: store, userID: local.id)
        var trackIDs: [TrackID] = []
        for fixture in ["gpx/coregpx/GPXTest-TrackPointOnly.gpx", "gpx/gpxpy/route.gpx", "gpx/gpxpy/gpx1.1_with_all_fields.gpx"] {
            let outcome = try await library.importFile(at: Fixtures.url(fixture))
            trackIDs += outcome.tracks.map(\.id)
        }
        let generated = test.folder.appending(path: "generated.gpx")
        try GeneratedRide.write(points: 5000, name: "Long ride", to: generated)
        let longTrackID = try #require(try await library.importFile(at: generated).tracks.first?.id)
        trackIDs.append(longTrackID)
        #expect(trackIDs.count >= 4)
        _ = try await store.deleteTracks(ids: [trackIDs[1]], userID: local.id)

        let options = Recorder.Options(activity: .ride, units: .imperial)
        let recording = try await store.startRecording(
            NewRecording(name: "Commute", routeTrackID: trackIDs[0], options: options, clientID: "client-1"), userID: local.id)
        _ = try await store.appendFixes(RecordingTests.fixes(0..<1500), recordingID: recording.id, userID: local.id)
        let recorded = try #require(try await store.track(id: recording.trackID, userID: local.id))
        _ = try await store.stopRecording(id: recording.id, userID: local.id, stats: try recorded.content.document().stats())
        let active = try await store.startRecording(NewRecording(name: "Still going"), userID: local.id)
        _ = try await store.appendFixes(RecordingTests.fixes(0..<30), recordingID: active.id, userID: local.id)

        let bakery = try await store.createPlace(NewPlace(latitude: 47.3769, longitude: 8.5417, name: "Bakery", address: "Main street 1"), userID: local.id)
        let spring = try await store.createPlace(NewPlace(latitude: 46.1, longitude: 7.2, name: "Spring"), userID: local.id)
        let gone = try await store.createPlace(NewPlace(latitude: 45, longitude: 7, name: "Gone"), userID: local.id)
        let food = try await store.createLabel(name: "food", color: "#ff8800", userID: local.id)
        let water = try await store.createLabel(name: "water", color: "#0088ff", userID: local.id)
        _ = try await store.setLabels([food.id, water.id], placeID: bakery.id, userID: local.id)
        _ = try await store.setLabels([water.id], placeID: spring.id, userID: local.id)
        let note = try await store.addNote(placeID: bakery.id, body: "Best croissants", userID: local.id)
        _ = try await store.addNote(placeID: spring.id, body: "Cold water, all year", userID: local.id)
        let jpeg = Data(EXIFJPEG.make())
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 7, 7, 7])
        let withThumbnail = try await store.addPhoto(noteID: note.id, mediaType: "image/jpeg", bytes: jpeg, userID: local.id)
        let plain = try await store.addPhoto(noteID: note.id, mediaType: "image/png", bytes: png, userID: local.id)
        let old = try await store.addPhoto(noteID: note.id, mediaType: "image/jpeg", bytes: jpeg, userID: local.id)
        // As a photo stored before photo files: its bytes in the row, no file.
        let oldFiles = try await test.sqlite.writer.write { db -> [String] in
            let names = try Row.fetchOne(db, sql: "SELECT fileName, thumbnailFileName FROM photo WHERE id = ?", arguments: [old.id])!
            try db.execute(
                sql: "UPDATE photo SET bytes = ?, fileName = NULL, thumbnailFileName = NULL, thumbnailMediaType = NULL WHERE id = ?",
                arguments: [jpeg, old.id])
            return [names[0], names[1]].compactMap { $0 }
        }
        test.sqlite.photoFolder.remove(oldFiles)
        let placeToken = "place-share-token-0001"
        _ = try await store.createShareLink(token: placeToken, placeID: bakery.id, userID: local.id)
        _ = try await store.deletePlaces(ids: [gone.id], userID: local.id)

        let documents = [
            DocumentFile(
                path: "2024/Morning ride.gpx", trackID: trackIDs[0], byteCount: 1234, modifiedNanoseconds: 1_700_000_000_123_456_789,
                contentHash: String(repeating: "ab", count: 32), syncedAt: Date(timeIntervalSince1970: 1_700_000_100)),
            DocumentFile(
                path: "Ünïcode/é.gpx", trackID: nil, byteCount: 1, modifiedNanoseconds: 1, contentHash: String(repeating: "cd", count: 32),
                syncedAt: Date(timeIntervalSince1970: 1_700_000_200)),
        ]
        for file in documents { try await store.saveDocumentFile(file, userID: local.id) }

        return Library(
            local: local, anna: anna, device: device, trackIDs: trackIDs, longTrackID: longTrackID, recordingIDs: [recording.id, active.id],
            placeIDs: [bakery.id, spring.id], deletedPlaceID: gone.id,
            photos: [(withThumbnail.id, jpeg, Data(EXIFJPEG.thumbnail)), (plain.id, png, nil), (old.id, jpeg, Data(EXIFJPEG.thumbnail))],
            placeToken: placeToken, liveToken: liveToken, documents: documents)
    }

    /// The PostgreSQL store on `url`, closed after `body`.
    static func withTarget<T>(_ url: PostgresDatabaseURL, _ body: (PostgresRideStore) async throws -> T) async throws -> T {
        let target = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
        do {
            let result = try await body(target)
            await target.close()
            return result
        } catch {
            await target.close()
            throw error
        }
    }

    /// A photo's bytes and thumbnail on PostgreSQL: through the store when it serves photos, else from its tables.
    static func photo(_ store: PostgresRideStore, id: PhotoID, userID: UserID) async throws -> (bytes: Data, thumbnail: Data?)? {
        do {
            guard let photo = try await store.photo(id: id, userID: userID) else { return nil }
            return (photo.bytes, try await store.photoThumbnail(id: id, userID: userID)?.bytes)
        } catch RideStoreError.unsupported {
            return try await store.transaction(readOnly: true) { connection in
                let rows = try await connection.query(
                    "SELECT bytes, thumbnail FROM photo_bytes WHERE photo_id = \(id.rawValue)", logger: PostgresTestServer.logger)
                for try await (bytes, thumbnail) in rows.decode((Data, Data?).self) { return (bytes, thumbnail) }
                return nil
            }
        }
    }

    @Test func everyTableMovesAndThePostgreSQLStoreAnswersAsTheLibraryDid() async throws {
        let test = try TestStore()
        let made = try await Self.makeLibrary(test)
        let source = test.store
        try await PostgresTestServer.withDatabase { url in
            try await Self.withTarget(url) { target in
                let report = try await LibraryCopy.copy(from: DataDirectory(url: test.folder), to: target)
                #expect(report.differing.isEmpty, "\(report.tables.filter { !$0.matches })")
                let rows = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.table, $0.targetRows) })
                #expect(Set(rows.keys) == Set(CopyTable.all.map(\.name)))
                #expect(rows["users"] == 2 && rows["devices"] == 1 && rows["sessions"] == 1 && rows["device_fixes"] == 41)
                #expect(rows["photos"] == 3 && rows["photo_bytes"] == 3 && rows["labels"] == 2 && rows["place_labels"] == 3)
                #expect(rows["places"] == 3 && rows["notes"] == 2 && rows["share_links"] == 2 && rows["document_files"] == 2)
                // The two recordings and the device's live track.
                #expect(rows["recordings"] == 3)
                // Every row was new, and the tables hold what the SQLite store's do.
                for table in report.tables { #expect(table.copiedRows == table.sourceRows, "\(table.table)") }
                let sqliteCounts = try await test.rowCounts()
                #expect(rows["tracks"] == sqliteCounts["track"] && rows["segments"] == sqliteCounts["segment"])
                #expect(rows["point_blocks"] == sqliteCounts["pointBlock"] && rows["track_imports"] == sqliteCounts["trackImport"])
                // 4,142 points are five blocks, 5,000 another five: the blocks were copied as they are.
                #expect((rows["point_blocks"] ?? 0) >= 10)

                // Users, passwords and sessions: anna logs in with the same password and stays logged in.
                #expect(Set(try await target.users()) == Set(try await source.users()))
                let anna = try #require(try await target.user(named: "anna"))
                #expect(PasswordHasher.verify(Self.password, against: try #require(anna.passwordHash)))
                #expect(try await target.sessionUser(tokenHash: Self.sessionToken, now: Date())?.id == made.anna.id)
                #expect(try await target.localUser() == made.local)

                // Devices, their fixes (the live feed's sequence included) and live share.
                #expect(try await target.devices(userID: made.anna.id) == (try await source.devices(userID: made.anna.id)))
                #expect(try await target.devices(userID: made.anna.id).map(\.id) == [made.device.id])
                let sourceFixes = try await source.deviceFixes(userID: made.anna.id, after: 0, limit: 1000)
                #expect(sourceFixes.count == 41)
                #expect(try await target.deviceFixes(userID: made.anna.id, after: 0, limit: 1000) == sourceFixes)
                #expect(try await target.lastDeviceFixSequence(userID: made.anna.id) == sourceFixes.last?.sequence)
                #expect(try await target.liveShare(token: made.liveToken, now: Date()) == (try await source.liveShare(token: made.liveToken, now: Date())))

                // Tracks: the same list (deleted ones and recordings too), figures and identical points.
                for user in [made.local, made.anna] {
                    for query in [TrackQuery(limit: 1000, includesRecordings: true), TrackQuery(limit: 1000, includesRecordings: true, deletedOnly: true)] {
                        let expected = try await source.tracks(query, userID: user.id).tracks
                        #expect(try await target.tracks(query, userID: user.id).tracks == expected)
                    }
                    let tracks = try await source.tracks(TrackQuery(limit: 1000, includesRecordings: true), userID: user.id).tracks
                    for summary in tracks {
                        let expected = try #require(try await source.track(id: summary.id, userID: user.id))
                        let copied = try #require(try await target.track(id: summary.id, userID: user.id))
                        #expect(copied == expected)
                        #expect(try copied.content.document() == expected.content.document())
                    }
                }
                let long = try #require(try await target.track(id: made.longTrackID, userID: made.local.id))
                #expect(try long.content.document().tracks[0].segments[0].points.count == 5000)

                // Recordings, with their options and figures.
                for id in made.recordingIDs {
                    #expect(try await target.recording(id: id, userID: made.local.id) == (try await source.recording(id: id, userID: made.local.id)))
                }
                #expect(try await target.recording(clientID: "client-1", userID: made.local.id)?.id == made.recordingIDs[0])
                #expect(try await target.activeRecordings(userID: made.local.id).map(\.id) == [made.recordingIDs[1]])

                // Places, labels, notes, share link; the deleted place stays deleted.
                #expect(try await target.places(PlaceQuery(), userID: made.local.id) == (try await source.places(PlaceQuery(), userID: made.local.id)))
                #expect(try await target.labels(userID: made.local.id) == (try await source.labels(userID: made.local.id)))
                #expect(try await target.place(id: made.deletedPlaceID, userID: made.local.id) == nil)
                for placeID in made.placeIDs {
                    let expected = try await source.notes(placeID: placeID, userID: made.local.id)
                    let copied = try await target.notes(placeID: placeID, userID: made.local.id)
                    #expect(copied.map(\.id) == expected.map(\.id) && copied.map(\.body) == expected.map(\.body))
                    #expect(copied.map(\.createdAt) == expected.map(\.createdAt))
                }
                #expect(try await target.shareLink(token: made.placeToken) == (try await source.shareLink(token: made.placeToken)))

                // Photos: the bytes of the files (and of the row kept before photo files), with their thumbnails.
                for photo in made.photos {
                    let copied = try #require(try await Self.photo(target, id: photo.id, userID: made.local.id))
                    #expect(copied.bytes == photo.bytes)
                    #expect(copied.thumbnail == photo.thumbnail)
                }

                // New rows after the copy get new ids: the sequences were set past the copied ones.
                let later = TrackerFix(time: Date(timeIntervalSince1970: 1_700_100_000), latitude: 46.6, longitude: 6.7)
                _ = try await target.ingest([later], deviceID: made.device.id, userID: made.anna.id, gapSeconds: 1800)
                #expect(try await target.lastDeviceFixSequence(userID: made.anna.id) > (sourceFixes.last?.sequence ?? .max))
                let library = TrackLibrary(store: target, userID: made.local.id)
                let laterFile = test.folder.appending(path: "later.gpx")
                try GeneratedRide.write(points: 2000, name: "After the move", to: laterFile)
                let again = try #require(try await library.importFile(at: laterFile).tracks.first)
                #expect(try await target.track(id: again.id, userID: made.local.id)?.content.document().tracks[0].segments[0].points.count == 2000)
            }
        }
    }

    @Test func anInterruptedCopyResumesAndASecondRunCopiesNothing() async throws {
        let test = try TestStore()
        _ = try await Self.makeLibrary(test)
        let directory = DataDirectory(url: test.folder)
        try await PostgresTestServer.withDatabase { url in
            try await Self.withTarget(url) { target in
                // Small batches, stopped after a few: users, devices, imports and some tracks are there, whole batches.
                var options = LibraryCopy.Options(batchRows: 8)
                options.stopAfterBatches = 4
                await #expect(throws: LibraryCopy.Interrupted.self) { try await LibraryCopy.copy(from: directory, to: target, options: options) }
                let partial = try await LibraryCopy.check(from: directory, to: target)
                #expect(!partial.differing.isEmpty)
                #expect(partial.tables.first { $0.table == "users" }?.matches == true)
                let tracks = try #require(partial.tables.first { $0.table == "tracks" })
                #expect(tracks.targetRows > 0 && tracks.targetRows < tracks.sourceRows)
                #expect(partial.tables.first { $0.table == "point_blocks" }?.targetRows == 0)
                // Further, and stopped again midway through the point blocks.
                options.stopAfterBatches = 14
                await #expect(throws: LibraryCopy.Interrupted.self) { try await LibraryCopy.copy(from: directory, to: target, options: options) }

                let resumed = try await LibraryCopy.copy(from: directory, to: target)
                #expect(resumed.differing.isEmpty, "\(resumed.tables.filter { !$0.matches })")
                #expect(resumed.copiedRows > 0)
                #expect(resumed.tables.first { $0.table == "users" }?.copiedRows == 0)

                // The same counts and checksums as a copy that was never interrupted.
                let whole = try await PostgresTestServer.withDatabase { other in
                    try await Self.withTarget(other) { fresh in try await LibraryCopy.copy(from: directory, to: fresh) }
                }
                #expect(resumed.tables.map(\.targetChecksum) == whole.tables.map(\.targetChecksum))
                #expect(resumed.tables.map(\.targetRows) == whole.tables.map(\.targetRows))

                let second = try await LibraryCopy.copy(from: directory, to: target)
                #expect(second.copiedRows == 0)
                #expect(second.differing.isEmpty)
                #expect(second.tables.map(\.targetChecksum) == whole.tables.map(\.targetChecksum))
            }
        }
    }

    @Test func aDatabaseWithAnotherLibrarysUserIsRefusedBeforeAnythingIsWritten() async throws {
        let test = try TestStore()
        _ = try await Self.makeLibrary(test)
        try await PostgresTestServer.withDatabase { url in
            try await Self.withTarget(url) { target in
                // `serve --database` made its own local user there: same name, another id.
                _ = try await target.localUser()
                _ = try await target.createUser(name: "stranger", passwordHash: nil)
                let error = await #expect(throws: RideStoreError.self) {
                    try await LibraryCopy.copy(from: DataDirectory(url: test.folder), to: target)
                }
                guard case .conflict(let message) = error else {
                    Issue.record("expected a conflict, got \(String(describing: error))")
                    return
                }
                #expect(message.contains("'stranger'") && message.contains("'local'") && message.contains("another library"))
                #expect(try await target.rowCount(table: "tracks") == 0)
                #expect(try await target.rowCount(table: "users") == 2)
            }
        }
    }

    @Test func theCheckNamesATableThatDiffers() async throws {
        let test = try TestStore()
        _ = try await Self.makeLibrary(test)
        let directory = DataDirectory(url: test.folder)
        try await PostgresTestServer.withDatabase { url in
            try await Self.withTarget(url) { target in
                #expect(try await LibraryCopy.copy(from: directory, to: target).differing.isEmpty)
                // One note's text, one byte of one point block: the same counts, other checksums.
                try await PostgresTestServer.administerDatabase(url, "UPDATE notes SET body = body || '!' WHERE body = 'Best croissants'")
                try await PostgresTestServer.administerDatabase(
                    url, "UPDATE point_blocks SET data = set_byte(data, 20, (get_byte(data, 20) + 1) % 256) WHERE id = (SELECT min(id) FROM point_blocks)")
                let check = try await LibraryCopy.check(from: directory, to: target)
                #expect(check.differing == ["point_blocks", "notes"])
                let notes = try #require(check.tables.first { $0.table == "notes" })
                #expect(notes.sourceRows == notes.targetRows && notes.sourceChecksum != notes.targetChecksum)
            }
        }
    }

    @Test func aMissingOrOlderLibraryIsSaidInWords() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-copy-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = #expect(throws: RideStoreError.self) { _ = try LibraryCopy.Source(directory: DataDirectory(url: folder)) }
        #expect("\(missing.map { "\($0)" } ?? "")".contains("no bikeride library here"))
        // A library from before accounts (migrations up to v5): upgrade it first.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let pool = try DatabasePool(path: DataDirectory(url: folder).databaseURL.path)
        try SQLiteRideStore.migrator.migrate(pool, upTo: "v4 place restore and photo files")
        try pool.close()
        let older = #expect(throws: RideStoreError.self) { _ = try LibraryCopy.Source(directory: DataDirectory(url: folder)) }
        let message = older.map { "\($0)" } ?? ""
        #expect(message.contains("older than this bikeride's") && message.contains("bikeride list --data-dir"))
    }

    @Test func theChecksumTellsTypesAndBoundariesApart() {
        func sum(_ rows: [[CopyValue]]) -> String {
            var checksum = RowChecksum()
            for row in rows { checksum.add(row) }
            return checksum.hex
        }
        #expect(sum([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")  // SHA-256 of nothing
        let distinct = [
            sum([[.text("ab"), .text("c")]]), sum([[.text("a"), .text("bc")]]), sum([[.integer(1)]]), sum([[.real(1)]]), sum([[.text("1")]]),
            sum([[.null]]), sum([[.text("")]]), sum([[.bytes(Data())]]), sum([[.real(0)]]), sum([[.real(-0.0)]]), sum([[.integer(1)], [.integer(2)]]),
            sum([[.integer(1), .integer(2)]]),
        ]
        #expect(Set(distinct).count == distinct.count)
        #expect(sum([[.bytes(Data([1, 2, 3])), .text("x")]]) == sum([[.bytes(Data([1, 2, 3])), .text("x")]]))
    }
}
