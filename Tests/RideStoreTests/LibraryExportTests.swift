import Foundation
import RideKit
@testable import RideStore
import TestSupport
import Testing
import ZIPFoundation

/// All your data out, and back in (issue 23): a library with imported tracks (GPX with several `trk`, a route, a FIT
/// file with the device's totals), a finished recording, a phone app's track, places with notes and photos, labels
/// and settings, exported to one zip and imported into an empty store of the same kind, gives the same library; the
/// same zip again adds nothing; damaged and hostile zips are refused entry by entry. On both stores.
@Suite struct LibraryExportTests {
    /// Fills `store`'s local user's library with one of everything.
    static func fill(_ store: any RideStore) async throws -> UserID {
        let user = try await store.localUser().id
        let library = TrackLibrary(store: store, userID: user)
        for fixture in ["gpx/gpxpy/gpx1.1_with_all_fields.gpx", "gpx/gpxpy/route.gpx", "gpx/gpxpy/track-with-empty-segment.gpx"] {
            _ = try await library.importFile(at: Fixtures.url(fixture))
        }
        let fit = try await library.importFile(at: Fixtures.url("fit/python-fitparse/garmin-edge-820-bike.fit"))
        #expect(fit.tracks.count == 1)
        var described = ImportOptions(oneTrackPerFile: true, kind: .run)
        described.trackName = "Morning run"
        described.trackDescription = "Along the lake, \"quoted\" & <escaped>"
        _ = try await library.importData(try GPXWriter.data(GeneratedRide.document(points: 3_000, name: "Generated")), fileName: "g.gpx", options: described)

        // A finished recording with a pause (two segments).
        let recording = try await store.startRecording(NewRecording(name: "Commute"), userID: user)
        _ = try await store.appendFixes(Self.fixes(0..<40), recordingID: recording.id, userID: user)
        _ = try await store.pauseRecording(id: recording.id, userID: user)
        _ = try await store.resumeRecording(id: recording.id, userID: user)
        _ = try await store.appendFixes(Self.fixes(40..<60), recordingID: recording.id, userID: user)
        // Two laps marked with the Lap button, at the times of fixes 20 and 50.
        for index: Int64 in [20, 50] {
            _ = try await store.addLapMark(recordingID: recording.id, timeMilliseconds: (1_700_100_000 + index * 2) * 1000, userID: user)
        }
        let recorded = try #require(try await store.track(id: recording.trackID, userID: user))
        _ = try await store.stopRecording(id: recording.id, userID: user, stats: try recorded.content.document().stats())

        // A phone app's track.
        let device = try await store.createDevice(NewDevice(name: "Phone", tokenHash: SecretToken.hash(SecretToken.make()), protocolName: "owntracks"), userID: user)
        let fixes = (0..<25).map { minute in
            TrackerFix(time: Date(timeIntervalSince1970: 1_700_000_000 + Double(minute) * 60), latitude: 46.5 + Double(minute) * 0.001, longitude: 6.6)
        }
        _ = try await store.ingest(fixes, deviceID: device.id, userID: user, gapSeconds: 1800)

        // Places, notes, photos, labels.
        let errands = try await store.createLabel(name: "Errands", color: "#3A7BD5", userID: user)
        let food = try await store.createLabel(name: "Food", color: "#D53A3A", userID: user)
        _ = try await store.createLabel(name: "Unused", color: "#000000", userID: user)
        let bakery = try await store.createPlace(NewPlace(latitude: 47.3769, longitude: 8.5417, name: "Bakery", address: "Bahnhofstrasse 1", labelIDs: [errands.id, food.id]), userID: user)
        let first = try await store.addNote(placeID: bakery.id, body: "Opens at 7 <b>not</b> 8", userID: user)
        _ = try await store.addPhoto(noteID: first.id, mediaType: "image/jpeg", bytes: Data(EXIFJPEG.make()), userID: user)
        _ = try await store.addPhoto(noteID: first.id, mediaType: "image/png", bytes: Self.png, userID: user)
        _ = try await store.addNote(placeID: bakery.id, body: "Closed on Sundays", userID: user)
        _ = try await store.createPlace(NewPlace(latitude: -33.8568, longitude: 151.2153, name: "Opera"), userID: user)

        // Settings.
        _ = try await store.addPrivacyZone(PrivacyZone(center: Coordinate(latitude: 47.37, longitude: 8.54), radiusMeters: 300), name: "Home", userID: user)
        _ = try await store.setHiddenEndMeters(200, userID: user)
        try await store.setWeeklyGoal(WeeklyGoal(kind: .ride, measure: .distance, target: 100_000), kind: .ride, userID: user)
        return user
    }

    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 300))

    static func fixes(_ range: Range<Int>) -> [RecordedFix] {
        range.map { index in
            RecordedFix(
                sequence: Int64(index),
                point: TrackPoint(
                    latitude: ((47.0 + Double(index) * 0.0001) * 1e7).rounded() / 1e7, longitude: 8.5, elevation: 400 + Double(index % 7),
                    time: GPXTime(secondsSince1970: 1_700_100_000 + Int64(index) * 2)))
        }
    }

    /// The library's export as bytes, written into a file.
    static func export(_ library: TrackLibrary, to file: URL) async throws -> LibraryExportManifest {
        var bytes: [UInt8] = []
        var chunks = 0
        let manifest = try await library.exportAll { chunk in
            bytes += chunk
            chunks += 1
        }
        #expect(chunks > manifest.entries.count, "written entry by entry, not at once")
        try Data(bytes).write(to: file)
        return manifest
    }

    /// Every track point's latitude and longitude in a GPX text, read with a pattern of the test's own (not the
    /// program's reader): `<trkpt lat=".." lon="..">` or `lon` first.
    static func trackPoints(gpx: String) -> [[Double]] {
        let pattern = try! Regex(#"<trkpt\s+(?:lat="([^"]+)"\s+lon="([^"]+)"|lon="([^"]+)"\s+lat="([^"]+)")"#)
        return gpx.matches(of: pattern).map { match in
            if let lat = match.output[1].substring, let lon = match.output[2].substring { return [Double(lat)!, Double(lon)!] }
            return [Double(match.output[4].substring!)!, Double(match.output[3].substring!)!]
        }
    }

    @Test(arguments: StoreKind.allCases) func anExportImportedIntoAnEmptyStoreGivesTheSameLibrary(_ kind: StoreKind) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let zip = folder.appending(path: "library.zip")

        try await withStore(kind) { source in
            let user = try await Self.fill(source)
            let library = TrackLibrary(store: source, userID: user)
            let manifest = try await Self.export(library, to: zip)
            let sourceTracks = try await source.tracks(TrackQuery(limit: 1000), userID: user).tracks
            #expect(Set(sourceTracks.map(\.source)) == [.file, .recording, .device])
            #expect(manifest.counts.tracks == sourceTracks.count)
            #expect(manifest.counts.points == sourceTracks.reduce(0) { $0 + $1.pointCount })
            #expect(manifest.counts.places == 2 && manifest.counts.notes == 2 && manifest.counts.photos == 2 && manifest.counts.labels == 3)
            #expect(manifest.counts.privacyZones == 1 && manifest.counts.weeklyGoals == 1)

            // ZIPFoundation reads the archive; each entry's SHA-256 is the manifest's, and each track's points (read
            // with the test's own pattern) are the source store's.
            let archive = try Archive(url: zip, accessMode: .read)
            var names = Set<String>()
            for entry in archive { names.insert(entry.path) }
            #expect(names == Set(manifest.entries.map(\.path) + ["manifest.json"]))
            for listed in manifest.entries {
                var bytes = Data()
                _ = try archive.extract(try #require(archive[listed.path])) { bytes.append($0) }
                #expect(bytes.count == listed.bytes)
                #expect(ContentHash.of(bytes) == listed.sha256, "\(listed.path)")
            }
            for summary in sourceTracks {
                var bytes = Data()
                _ = try archive.extract(try #require(archive["tracks/\(summary.id.rawValue).gpx"])) { bytes.append($0) }
                let stored = try #require(try await source.track(id: summary.id, userID: user))
                let expected = try stored.content.document().tracks.flatMap { $0.segments.flatMap { $0.points.map { [$0.latitude, $0.longitude] } } }
                #expect(Self.trackPoints(gpx: String(decoding: bytes, as: UTF8.self)) == expected, "\(summary.name)")
            }

            // The FIT file as it came, beside its GPX: byte for byte the fixture; no other track has one.
            let fitBytes = try Data(contentsOf: Fixtures.url("fit/python-fitparse/garmin-edge-820-bike.fit"))
            let fitEntries = manifest.entries.filter { $0.path.hasSuffix(".fit") }
            #expect(fitEntries.count == 1)
            let fitEntry = try #require(fitEntries.first)
            var exportedFit = Data()
            _ = try archive.extract(try #require(archive[fitEntry.path])) { exportedFit.append($0) }
            #expect(exportedFit == fitBytes)
            let fitTrack = try #require(sourceTracks.first { "tracks/\($0.id.rawValue).fit" == fitEntry.path })
            #expect(try await source.originalFile(trackID: fitTrack.id, userID: user)?.bytes == fitBytes)

            try await withStore(kind) { target in
                let targetUser = try await target.localUser().id
                let targetLibrary = TrackLibrary(store: target, userID: targetUser)
                let report = try await targetLibrary.importArchive(at: zip)
                #expect(report.failures.isEmpty, "\(report.failures)")
                let restored = try #require(report.libraryImport)
                #expect(restored.tracksImported == sourceTracks.count)
                #expect(restored.placesImported == 2 && restored.notesImported == 2 && restored.photosImported == 2 && restored.labelsCreated == 3)
                #expect(restored.checksumsVerified == manifest.entries.count)

                // The same tracks: name, kind, source, points (compared with the source store's), device totals.
                let targetTracks = try await target.tracks(TrackQuery(limit: 1000), userID: targetUser).tracks
                #expect(targetTracks.count == sourceTracks.count)
                for summary in sourceTracks {
                    let matches = targetTracks.filter { $0.name == summary.name && $0.pointCount == summary.pointCount }
                    let copy = try #require(matches.first, "\(summary.name) is missing")
                    #expect(copy.kind == summary.kind && copy.source == summary.source, "\(summary.name)")
                    #expect(copy.state == .complete)
                    let original = try #require(try await source.track(id: summary.id, userID: user))
                    let imported = try #require(try await target.track(id: copy.id, userID: targetUser))
                    #expect(try imported.content.document().tracks == original.content.document().tracks, "\(summary.name)")
                    #expect(try imported.content.document().routes == original.content.document().routes, "\(summary.name)")
                    #expect(imported.device == original.device, "\(summary.name)")
                    #expect(abs(copy.distanceMeters - summary.distanceMeters) <= 0.001 * max(1, summary.distanceMeters), "\(summary.name)")
                }
                #expect(targetTracks.contains { $0.name == "Morning run" && $0.kind == .run })
                // The laps marked while recording come back with their track.
                let commute = try #require(targetTracks.first { $0.name == "Commute" })
                #expect(try await target.lapMarks(trackID: commute.id, userID: targetUser) == [1_700_100_040_000, 1_700_100_100_000])
                // The FIT track came back from its FIT file, which the target keeps too; once, not beside its GPX.
                let fitCopies = targetTracks.filter { $0.name == fitTrack.name }
                #expect(fitCopies.count == 1)
                #expect(try await target.originalFile(trackID: try #require(fitCopies.first).id, userID: targetUser)?.bytes == fitBytes)

                // Places, notes, photos, labels and settings.
                let places = try await target.places(PlaceQuery(order: .name), userID: targetUser)
                #expect(places.map(\.name) == ["Bakery", "Opera"])
                #expect(places[0].labels.map(\.name).sorted() == ["Errands", "Food"])
                #expect(places[0].address == "Bahnhofstrasse 1")
                let notes = try await target.notes(placeID: places[0].id, userID: targetUser)
                #expect(notes.map(\.body) == ["Opens at 7 <b>not</b> 8", "Closed on Sundays"])
                #expect(notes[0].photos.map(\.mediaType) == ["image/jpeg", "image/png"])
                #expect(try await target.photo(id: notes[0].photos[0].id, userID: targetUser)?.bytes == Data(EXIFJPEG.make()))
                #expect(try await target.photo(id: notes[0].photos[1].id, userID: targetUser)?.bytes == Self.png)
                #expect(Set(try await target.labels(userID: targetUser).map { "\($0.name) \($0.color)" }) == ["Errands #3A7BD5", "Food #D53A3A", "Unused #000000"])
                let privacy = try await target.privacySettings(userID: targetUser)
                #expect(privacy.zones.map(\.zone) == [PrivacyZone(center: Coordinate(latitude: 47.37, longitude: 8.54), radiusMeters: 300)])
                #expect(privacy.hiddenEndMeters == 200)
                #expect(try await target.weeklyGoals(userID: targetUser) == [WeeklyGoal(kind: .ride, measure: .distance, target: 100_000)])

                // Exported again from the target: the same counts and the same tracks' and photos' checksums.
                let again = try await Self.export(targetLibrary, to: folder.appending(path: "again.zip"))
                #expect(again.counts == manifest.counts)
                func sums(_ manifest: LibraryExportManifest, _ prefix: String) -> [String] {
                    manifest.entries.filter { $0.path.hasPrefix(prefix) }.map(\.sha256).sorted()
                }
                #expect(sums(again, "tracks/") == sums(manifest, "tracks/"))
                #expect(sums(again, "photos/") == sums(manifest, "photos/"))

                // The same zip again adds nothing, and says so.
                let second = try await targetLibrary.importArchive(at: zip)
                let nothing = try #require(second.libraryImport)
                #expect(nothing.addedNothing, "\(nothing)")
                #expect(nothing.tracksAlreadyThere == sourceTracks.count && nothing.placesAlreadyThere == 2)
                #expect(second.message.contains("nothing new"))
                #expect(try await target.tracks(TrackQuery(limit: 1000), userID: targetUser).tracks.count == sourceTracks.count)
                #expect(try await target.places(PlaceQuery(), userID: targetUser).count == 2)
                #expect(try await target.privacySettings(userID: targetUser).zones.count == 1)
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func anExportImportedIntoItsOwnLibraryAddsNothing(_ kind: StoreKind) async throws {
        let zip = FileManager.default.temporaryDirectory.appending(path: "bikeride-own-\(UUID().uuidString).zip")
        defer { try? FileManager.default.removeItem(at: zip) }
        try await withStore(kind) { store in
            let user = try await Self.fill(store)
            let library = TrackLibrary(store: store, userID: user)
            let before = try await store.tracks(TrackQuery(limit: 1000), userID: user).tracks
            _ = try await Self.export(library, to: zip)
            let report = try await library.importArchive(at: zip)
            let restored = try #require(report.libraryImport)
            #expect(restored.addedNothing, "\(restored)")
            #expect(restored.tracksAlreadyThere == before.count)
            #expect(try await store.tracks(TrackQuery(limit: 1000), userID: user).tracks.map(\.id) == before.map(\.id))
        }
    }

    @Test(arguments: StoreKind.allCases) func anotherUsersLibraryStaysOutOfTheExport(_ kind: StoreKind) async throws {
        try await withStore(kind) { store in
            let user = try await store.localUser().id
            let other = try await store.createUser(name: "other", passwordHash: nil).id
            let mine = TrackLibrary(store: store, userID: user)
            let theirs = TrackLibrary(store: store, userID: other)
            _ = try await mine.importData(try GPXWriter.data(GeneratedRide.document(points: 10, name: "Mine")), fileName: "a.gpx")
            _ = try await theirs.importData(try GPXWriter.data(GeneratedRide.document(points: 20, name: "Theirs")), fileName: "b.gpx")
            _ = try await store.createPlace(NewPlace(latitude: 1, longitude: 2, name: "Their place"), userID: other)
            let manifest = try await mine.exportAll { _ in }
            #expect(manifest.counts.tracks == 1 && manifest.counts.points == 10 && manifest.counts.places == 0)
        }
    }

    // MARK: Damaged and hostile archives

    /// A zip made by the test from entries given (names as they are), with the manifest listing `listed` (the
    /// entries' real checksums unless `checksums` says otherwise).
    static func archive(
        _ entries: [(String, [UInt8])], tracks: [ExportedTrack], places: [ExportedPlace] = [], checksums: [String: String] = [:], version: Int = 1
    ) throws -> URL {
        var all = entries
        all.append(("tracks.json", try TrackLibrary.exportJSON(tracks)))
        all.append(("places.json", try TrackLibrary.exportJSON(places)))
        all.append(("labels.json", Array("[]".utf8)))
        all.append(("settings.json", Array(#"{"privacyZones": [], "hideEndsMeters": 0, "weeklyGoals": []}"#.utf8)))
        var manifest = LibraryExportManifest(
            createdAt: "2026-01-01T00:00:00Z", user: nil, counts: .init(),
            entries: all.map { .init(path: $0.0, bytes: $0.1.count, sha256: checksums[$0.0] ?? ContentHash.of($0.1)) })
        manifest.version = version
        all.append(("manifest.json", try TrackLibrary.exportJSON(manifest)))
        var zip = ZipWriter()
        var bytes: [UInt8] = []
        for (name, content) in all { bytes += zip.entry(named: name, bytes: content, modified: Date()) }
        bytes += zip.finish()
        let url = FileManager.default.temporaryDirectory.appending(path: "bikeride-hostile-\(UUID().uuidString).zip")
        try Data(bytes).write(to: url)
        return url
    }

    static func track(_ file: String, name: String = "Ride") -> ExportedTrack {
        ExportedTrack(id: "AAAAAAAA", file: file, name: name, kind: .ride, source: .file, createdAt: "2026-01-01T00:00:00Z", startTime: nil, pointCount: 0, device: nil)
    }

    @Test func aDamagedEntryFailsAloneAndTheRestIsImported() async throws {
        let good = try GPXWriter.write(GeneratedRide.document(points: 30, name: "Good"))
        let bad = try GPXWriter.write(GeneratedRide.document(points: 40, name: "Bad"))
        let url = try Self.archive(
            [("tracks/a.gpx", good), ("tracks/b.gpx", bad)], tracks: [Self.track("tracks/a.gpx", name: "Good"), Self.track("tracks/b.gpx", name: "Bad"), Self.track("tracks/missing.gpx")],
            checksums: ["tracks/b.gpx": String(repeating: "0", count: 64)])
        defer { try? FileManager.default.removeItem(at: url) }
        try await withLibrary(.sqlite) { library in
            let report = try await library.importArchive(at: url)
            #expect(report.tracks.map(\.name) == ["Good"])
            #expect(report.failures.count == 2)
            #expect(report.failures.contains { $0.hasPrefix("tracks/b.gpx:") && $0.contains("SHA-256") })
            #expect(report.failures.contains { $0.hasPrefix("tracks/missing.gpx:") })
            #expect(try await library.store.trackCount(userID: library.userID) == 1)
        }
    }

    @Test func traversalNamesAndBombsWriteNothingOutsideAndAreRefused() async throws {
        let ride = try GPXWriter.write(GeneratedRide.document(points: 30, name: "Climb"))
        // 8 MiB of one byte deflates to a few KiB: far beyond the ratio an entry may inflate by.
        let bomb = [UInt8](repeating: 0x20, count: 8 << 20)
        let escape = "../../bikeride-export-escape-\(UUID().uuidString).gpx"
        let url = try Self.archive(
            [(escape, ride), ("/tmp/absolute.gpx", ride), ("tracks/bomb.gpx", bomb)],
            tracks: [Self.track(escape, name: "Escaped"), Self.track("tracks/bomb.gpx", name: "Bomb")],
            places: [
                ExportedPlace(
                    id: "BBBBBBBB", name: "Photo bomb", latitude: 1, longitude: 2, address: nil, createdAt: "2026-01-01T00:00:00Z", labels: [],
                    notes: [.init(body: "x", createdAt: "2026-01-01T00:00:00Z", photos: [.init(file: "tracks/bomb.gpx", mediaType: "image/jpeg", bytes: 1)])])
            ])
        defer { try? FileManager.default.removeItem(at: url) }
        try await withLibrary(.sqlite) { library in
            let report = try await library.importArchive(at: url)
            // The traversal name is only a name: its bytes were read from the archive and imported, nothing written by it.
            #expect(report.tracks.map(\.name) == ["Escaped"])
            let outside = url.deletingLastPathComponent().appending(path: escape).standardizedFileURL
            #expect(!FileManager.default.fileExists(atPath: outside.path))
            #expect(report.failures.contains { $0.hasPrefix("tracks/bomb.gpx:") && $0.contains("inflates to more than") })
            // A place whose photo cannot be read is not made at all.
            #expect(report.failures.contains { $0.contains("Photo bomb") })
            #expect(try await library.store.places(PlaceQuery(), userID: library.userID).isEmpty)
        }
    }

    @Test func aListNamingOneEntryOverAndOverReadsNoMoreThanTheCap() async throws {
        let ride = try GPXWriter.write(GeneratedRide.document(points: 200, name: "Loop"))
        let tracks = Array(repeating: Self.track("tracks/loop.gpx", name: "Loop"), count: 50)
        let url = try Self.archive([("tracks/loop.gpx", ride)], tracks: tracks)
        defer { try? FileManager.default.removeItem(at: url) }
        var limits = ArchiveLimits()
        // The lists (tracks.json, and a few bytes of the others), and the ride three times.
        limits.maximumTotalBytes = try TrackLibrary.exportJSON(tracks).count + 1024 + 3 * ride.count
        try await withLibrary(.sqlite) { (library: TrackLibrary) async throws in
            let report = try await library.importArchive(at: url, limits: limits)
            #expect(report.imported == 1)
            #expect(report.imported + report.alreadyImported <= 3)
            #expect(report.failures.count >= 47)
            #expect(report.failures.allSatisfy { $0.contains("inflates to more than") })
            let count = try await library.store.trackCount(userID: library.userID)
            #expect(count == 1)
        }
    }

    /// The importer's reader (ZIPFoundation) reads the ZIP64 records an export writes past 4 GiB or 65,535 entries
    /// (forced here by lowering the thresholds).
    @Test func zip64ArchivesAreReadByTheImportersReader() throws {
        var zip = ZipWriter()
        zip.zip64Threshold = 64
        zip.zip64EntryThreshold = 2
        let contents = (0..<4).map { index in Array(String(repeating: "entry \(index) ", count: 50 * (index + 1)).utf8) }
        var bytes: [UInt8] = []
        for (index, content) in contents.enumerated() { bytes += zip.entry(named: "e\(index).txt", bytes: content, modified: Date()) }
        bytes += zip.finish()
        let archive = try Archive(data: Data(bytes), accessMode: .read)
        var read: [String: Data] = [:]
        for entry in archive {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            read[entry.path] = data
        }
        #expect(read.count == 4)
        for (index, content) in contents.enumerated() { #expect(read["e\(index).txt"] == Data(content)) }
    }

    @Test func anExportOfANewerFormatIsRefusedWhole() async throws {
        let url = try Self.archive([], tracks: [], version: 99)
        defer { try? FileManager.default.removeItem(at: url) }
        try await withLibrary(.sqlite) { (library: TrackLibrary) async throws in
            await #expect(throws: RideStoreError.self) { try await library.importArchive(at: url) }
            let count = try await library.store.trackCount(userID: library.userID)
            #expect(count == 0)
        }
    }
}
