import Foundation
import RideKit
import ZIPFoundation

extension TrackLibrary {
    /// The manifest of a bikeride export, when the archive is one: a `manifest.json` at its root whose `format` is
    /// `LibraryExportManifest.formatName`. Nil for any other zip (a Strava export); an error for an export this
    /// version cannot read.
    static func libraryExportManifest(in archive: Archive, path: String, limits: ArchiveLimits) throws -> LibraryExportManifest? {
        guard let entry = archive["manifest.json"], entry.type == .file else { return nil }
        let bytes = try read(entry, of: archive, limits: limits, maximumBytes: min(limits.maximumIndexBytes, 64 << 20))
        struct Head: Decodable { var format: String?; var version: Int? }
        guard let head = try? JSONDecoder().decode(Head.self, from: Data(bytes)), head.format == LibraryExportManifest.formatName else { return nil }
        guard let version = head.version, version <= LibraryExportManifest.currentVersion, version >= 1 else {
            throw RideStoreError.invalidFile(
                path: path, reason: "a bikeride export of format version \(head.version.map(String.init) ?? "?"), which this bikeride cannot read (it reads version \(LibraryExportManifest.currentVersion)); nothing was imported")
        }
        do {
            return try JSONDecoder().decode(LibraryExportManifest.self, from: Data(bytes))
        } catch {
            throw RideStoreError.invalidFile(path: "\(path): manifest.json", reason: "not a valid bikeride manifest: \(error)")
        }
    }

    /// Gives back a library exported by `exportAll`: labels, settings, tracks (name, kind, source, description and
    /// device figures), places with their notes, labels and photos. Each entry is checked against the manifest's
    /// SHA-256 before it is used; an entry that is missing, damaged or refused fails alone (reported), the rest is
    /// imported.
    ///
    /// Importing the same export again adds nothing: a track is found by its GPX's content (as any imported file),
    /// a label by its name, a place by its name and exact position, a privacy zone by its circle; settings equal to
    /// the export's are left as they are. A place is made with its notes and photos or, if one of them fails, deleted
    /// again, so that the next import tries it whole.
    ///
    /// Hostile archives get the archive rules: entries are read into memory by the names the manifest lists (no file
    /// is ever written by an entry's name), each within `limits` (size, ratio, total), symlinks and folders are not
    /// read, and the number of entries is capped before anything is imported.
    func importLibraryExport(
        _ archive: Archive, path: String, manifest: LibraryExportManifest, options: ImportOptions, limits: ArchiveLimits,
        progress: (@Sendable (ArchiveProgress) async -> Void)?
    ) async throws -> ArchiveImportReport {
        var count = 0
        for _ in archive {
            count += 1
            if count > limits.maximumEntries {
                throw RideStoreError.invalidFile(
                    path: path, reason: "the archive holds more than \(limits.maximumEntries.formatted()) entries; nothing was imported")
            }
        }
        var listed: [String: LibraryExportManifest.Entry] = [:]
        for entry in manifest.entries where listed[entry.path] == nil { listed[entry.path] = entry }
        var report = ArchiveImportReport()
        var result = LibraryImportReport(manifest: manifest)
        var inflated = 0

        /// A listed entry's bytes, checked against the manifest.
        func entryBytes(_ name: String, maximumBytes: Int) throws -> [UInt8] {
            guard let expected = listed[name] else {
                throw RideStoreError.invalidFile(path: name, reason: "is not listed in manifest.json")
            }
            // Checked before reading too: a list naming one entry a million times reads no more than the cap.
            guard inflated <= limits.maximumTotalBytes else {
                throw RideStoreError.invalidFile(path: name, reason: "the archive inflates to more than \(limits.maximumTotalBytes.formatted()) bytes; the rest was not imported")
            }
            guard let entry = archive[name], entry.type == .file else {
                throw RideStoreError.invalidFile(path: name, reason: "is missing from the archive")
            }
            let bytes = try Self.read(entry, of: archive, limits: limits, maximumBytes: maximumBytes)
            inflated += bytes.count
            guard inflated <= limits.maximumTotalBytes else {
                throw RideStoreError.invalidFile(path: name, reason: "the archive inflates to more than \(limits.maximumTotalBytes.formatted()) bytes; the rest was not imported")
            }
            guard bytes.count == expected.bytes, ContentHash.of(bytes) == expected.sha256 else {
                throw RideStoreError.invalidFile(path: name, reason: "its SHA-256 is not the one manifest.json lists: the archive is damaged")
            }
            result.checksumsVerified += 1
            return bytes
        }
        func list<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            let bytes = try entryBytes(name, maximumBytes: limits.maximumIndexBytes)
            do {
                return try JSONDecoder().decode(T.self, from: Data(bytes))
            } catch {
                throw RideStoreError.invalidFile(path: name, reason: "not what a bikeride export writes there: \(error)")
            }
        }
        func fail(_ name: String, _ error: any Error) {
            if case RideStoreError.invalidFile(let entry, let reason) = error, entry == name {
                report.failures.append("\(name): \(reason)")
            } else {
                report.failures.append("\(name): \(error)")
            }
        }

        // Everything needed to know what to do is read first: a broken list stops the import before it writes.
        let tracks = try list([ExportedTrack].self, "tracks.json")
        let places = try list([ExportedPlace].self, "places.json")
        let labels = try list([ExportedLabel].self, "labels.json")
        let settings = try list(ExportedSettings.self, "settings.json")
        // places.gpx is for other GPX tools (places.json has more): checked, not used.
        if listed["places.gpx"] != nil {
            do { _ = try entryBytes("places.gpx", maximumBytes: limits.maximumIndexBytes) } catch { fail("places.gpx", error) }
        }

        guard tracks.count + places.count + labels.count <= limits.maximumEntries else {
            throw RideStoreError.invalidFile(
                path: path, reason: "the export lists more than \(limits.maximumEntries.formatted()) tracks, places and labels; nothing was imported")
        }

        // Labels, by name.
        var labelIDs: [String: LabelID] = [:]
        for label in try await store.labels(userID: userID) { labelIDs[label.name.lowercased()] = label.id }
        for label in labels {
            if labelIDs[label.name.lowercased()] != nil {
                result.labelsAlreadyThere += 1
                continue
            }
            do {
                let made = try await store.createLabel(name: label.name, color: label.color, userID: userID)
                labelIDs[made.name.lowercased()] = made.id
                result.labelsCreated += 1
            } catch {
                fail("labels.json: \(label.name)", error)
            }
        }

        // Settings: zones added unless the same circle is there; the hidden ends and goals as the export has them.
        do {
            let current = try await store.privacySettings(userID: userID)
            for zone in settings.privacyZones {
                let circle = PrivacyZone(center: Coordinate(latitude: zone.latitude, longitude: zone.longitude), radiusMeters: zone.radiusMeters)
                if current.zones.contains(where: { $0.zone == circle }) { continue }
                do {
                    _ = try await store.addPrivacyZone(circle, name: zone.name, userID: userID)
                    result.privacyZonesAdded += 1
                } catch {
                    fail("settings.json: privacy zone", error)
                }
            }
            if current.hiddenEndMeters != settings.hideEndsMeters {
                _ = try await store.setHiddenEndMeters(settings.hideEndsMeters, userID: userID)
                result.settingsChanged += 1
            }
            let goals = try await store.weeklyGoals(userID: userID)
            for goal in settings.weeklyGoals where !goals.contains(goal) {
                try await store.setWeeklyGoal(goal, kind: goal.kind, userID: userID)
                result.settingsChanged += 1
            }
        } catch {
            fail("settings.json", error)
        }

        // Tracks, one transaction each, found again by their content, or by their name, start and number of points (the
        // export imported into the library it came from, whose files had other bytes).
        var haveTracks = Set<TrackKey>()
        var cursor: String?
        repeat {
            let page = try await store.tracks(TrackQuery(limit: 500, cursor: cursor), userID: userID)
            for summary in page.tracks {
                haveTracks.insert(TrackKey(name: summary.name, startTime: summary.startTime?.rfc3339, pointCount: summary.pointCount))
            }
            cursor = page.nextCursor
        } while cursor != nil
        report.filesTotal = tracks.count
        await progress?(ArchiveProgress(filesDone: 0, filesTotal: tracks.count))
        for (done, track) in tracks.enumerated() {
            if !options.allowsDuplicates, haveTracks.contains(TrackKey(name: track.name, startTime: track.startTime, pointCount: track.pointCount)) {
                report.alreadyImported += 1
                result.tracksAlreadyThere += 1
                await progress?(ArchiveProgress(filesDone: done + 1, filesTotal: tracks.count))
                continue
            }
            do {
                // The FIT file as it came, when the export has it (the other library then keeps it too), else the GPX:
                // one of the two, never both, so the track is not doubled.
                let original = track.originalFile.flatMap { listed[$0] != nil && $0.hasSuffix(".fit") ? $0 : nil }
                let file = original ?? track.file
                // The GPX is checked against the manifest even when the FIT is read (every entry is).
                if original != nil { _ = try entryBytes(track.file, maximumBytes: limits.maximumEntryBytes) }
                let bytes = try entryBytes(file, maximumBytes: limits.maximumEntryBytes)
                var trackOptions = ImportOptions(oneTrackPerFile: true, kind: track.kind, allowsDuplicates: options.allowsDuplicates)
                trackOptions.trackName = track.name
                trackOptions.trackSource = track.source
                trackOptions.deviceMeasurements = track.device
                let outcome = try await importData(
                    Data(bytes), fileName: (file as NSString).lastPathComponent, format: original == nil ? .gpx : .fit, options: trackOptions)
                switch outcome.result {
                case .imported(_, let saved, _):
                    // The laps its rider marked, on the one track its file made (a mark the rules refuse is dropped).
                    let marks = (track.lapMarks ?? []).compactMap { text in
                        (try? GPXTime(parsing: text)).map { Int64(($0.date.timeIntervalSince1970 * 1000).rounded()) }
                    }
                    if !marks.isEmpty, saved.count == 1 { try? await store.setLapMarks(marks, trackID: saved[0].id, userID: userID) }
                    report.imported += 1
                    report.tracks += saved
                    result.tracksImported += 1
                case .duplicate:
                    report.alreadyImported += 1
                    result.tracksAlreadyThere += 1
                }
            } catch {
                fail(track.file, error)
            }
            await progress?(ArchiveProgress(filesDone: done + 1, filesTotal: tracks.count))
        }

        // Places, each with its notes and photos.
        let existing = try await store.places(PlaceQuery(order: .createdAt, limit: .max), userID: userID)
        var known = Set(existing.map { PlaceKey(name: $0.name, latitude: $0.latitude, longitude: $0.longitude) })
        for place in places {
            let key = PlaceKey(name: TrackSummary.cleanedName(place.name), latitude: place.latitude, longitude: place.longitude)
            if known.contains(key) {
                result.placesAlreadyThere += 1
                continue
            }
            var made: Place?
            do {
                // Photos are read (and checked) before the place is made: a damaged archive makes no half place.
                var photos: [[UInt8]] = []
                for note in place.notes {
                    for photo in note.photos { photos.append(try entryBytes(photo.file, maximumBytes: limits.maximumEntryBytes)) }
                }
                let created = try await store.createPlace(
                    NewPlace(
                        latitude: place.latitude, longitude: place.longitude, name: place.name, address: place.address,
                        labelIDs: place.labels.compactMap { labelIDs[$0.lowercased()] },
                        createdAt: (try? GPXTime(parsing: place.createdAt))?.date),
                    userID: userID)
                made = created
                var photoIndex = 0
                var notes = 0
                for note in place.notes {
                    let added = try await store.addNote(placeID: created.id, body: note.body, userID: userID)
                    notes += 1
                    for photo in note.photos {
                        _ = try await store.addPhoto(noteID: added.id, mediaType: photo.mediaType, bytes: Data(photos[photoIndex]), userID: userID)
                        photoIndex += 1
                    }
                }
                result.placesImported += 1
                result.notesImported += notes
                result.photosImported += photoIndex
                known.insert(key)
            } catch {
                if let made { _ = try? await store.deletePlaces(ids: [made.id], userID: userID) }
                fail("places.json: \(place.name)", error)
            }
        }

        report.libraryImport = result
        return report
    }
}

/// A track as an import recognises it besides its content.
private struct TrackKey: Hashable {
    var name: String
    var startTime: String?
    var pointCount: Int
}

/// A place as an import recognises it: its name and exact position.
private struct PlaceKey: Hashable {
    var name: String
    var latitude: Double
    var longitude: Double
}
