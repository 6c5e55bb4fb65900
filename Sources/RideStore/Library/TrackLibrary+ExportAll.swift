import Crypto
import Foundation
import RideKit

extension TrackLibrary {
    /// Writes the user's whole library as one zip (see `LibraryExportManifest` for its layout), handing its bytes to
    /// `write` as they are made: the archive is never held whole. Tracks are read from the store one at a time (the
    /// list a page at a time), photos one at a time; what is held at once is one track's GPX (or one photo) and its
    /// deflated bytes, plus the small JSON lists of tracks and places and the zip's central directory.
    ///
    /// The tracks are those the Tracks list shows: complete ones, and phone apps' live tracks as they are now; a web
    /// recording still in progress and tracks deleted (awaiting purge) are left out.
    /// Returns the manifest written last.
    public func exportAll(to write: ([UInt8]) async throws -> Void) async throws -> LibraryExportManifest {
        let now = Date()
        var zip = ZipWriter()
        var entries: [LibraryExportManifest.Entry] = []
        var counts = LibraryExportManifest.Counts()

        func add(_ path: String, _ bytes: [UInt8], compress: Bool = true) async throws {
            let (prepared, hash) = try await Self.blocking { (ZipWriter.prepare(bytes, compress: compress), ContentHash.of(bytes)) }
            let chunk = zip.entry(named: path, prepared: prepared, modified: now)
            entries.append(.init(path: path, bytes: bytes.count, sha256: hash))
            try await write(chunk)
        }

        // Tracks in the list's order (newest first), a page at a time.
        var exportedTracks: [ExportedTrack] = []
        var cursor: String?
        repeat {
            let page = try await store.tracks(TrackQuery(limit: 200, cursor: cursor), userID: userID)
            for summary in page.tracks {
                guard let track = try await store.track(id: summary.id, userID: userID) else { continue }  // deleted meanwhile
                let file = "tracks/\(summary.id.rawValue).gpx"
                let gpx = try await Self.blocking {
                    let document = try track.content.document()
                    return GPXWriter.write(document, creator: document.creator)
                }
                try await add(file, gpx)
                // The file as it came, when kept (a FIT file): beside the GPX, already compressed by FIT's nature.
                var originalPath: String?
                if let original = try await store.originalFile(trackID: summary.id, userID: userID), original.format == .fit {
                    originalPath = "tracks/\(summary.id.rawValue).fit"
                    try await add(originalPath!, [UInt8](original.bytes))
                }
                let laps = try await store.lapMarks(trackID: summary.id, userID: userID)
                exportedTracks.append(
                    ExportedTrack(
                        id: summary.id.rawValue, file: file, name: summary.name, kind: summary.kind, source: summary.source,
                        createdAt: GPXTime(date: summary.createdAt).rfc3339, startTime: summary.startTime?.rfc3339, pointCount: summary.pointCount,
                        device: track.device, originalFile: originalPath,
                        lapMarks: laps.isEmpty ? nil : laps.map { GPXTime(secondsSince1970: $0 / 1000, nanoseconds: Int32($0 % 1000) * 1_000_000, fractionDigits: 3).rfc3339 }))
                counts.tracks += 1
                counts.points += summary.pointCount
            }
            cursor = page.nextCursor
        } while cursor != nil
        try await add("tracks.json", try Self.exportJSON(exportedTracks))

        // Places, their notes and photos; places.gpx for any GPX tool, places.json for bikeride.
        let places = try await store.places(PlaceQuery(order: .createdAt, limit: .max), userID: userID)
        var exportedPlaces: [ExportedPlace] = []
        var waypoints: [Waypoint] = []
        for place in places.reversed() {  // oldest first: imported in the order they were made
            let notes = try await store.notes(placeID: place.id, userID: userID)
            waypoints.append(place.waypoint(notes: notes))
            var exportedNotes: [ExportedPlace.Note] = []
            for note in notes {
                var photos: [ExportedPlace.Photo] = []
                for info in note.photos {
                    guard let photo = try await store.photo(id: info.id, userID: userID) else { continue }
                    let file = "photos/\(info.id.rawValue).\(Self.photoExtensions[photo.info.mediaType] ?? "bin")"
                    // Photos are compressed already: stored as they are.
                    try await add(file, Array(photo.bytes), compress: false)
                    photos.append(.init(file: file, mediaType: photo.info.mediaType, bytes: photo.bytes.count))
                    counts.photos += 1
                }
                exportedNotes.append(.init(body: note.body, createdAt: GPXTime(date: note.createdAt).rfc3339, photos: photos))
                counts.notes += 1
            }
            exportedPlaces.append(
                ExportedPlace(
                    id: place.id.rawValue, name: place.name, latitude: place.latitude, longitude: place.longitude, address: place.address,
                    createdAt: GPXTime(date: place.createdAt).rfc3339, labels: place.labels.map(\.name), notes: exportedNotes))
            counts.places += 1
        }
        try await add("places.json", try Self.exportJSON(exportedPlaces))
        try await add("places.gpx", GPXWriter.write(GPXDocument(creator: GPXWriter.defaultCreator, waypoints: waypoints)))

        let labels = try await store.labels(userID: userID)
        counts.labels = labels.count
        try await add("labels.json", try Self.exportJSON(labels.map { ExportedLabel(name: $0.name, color: $0.color) }))

        let privacy = try await store.privacySettings(userID: userID)
        let goals = try await store.weeklyGoals(userID: userID)
        counts.privacyZones = privacy.zones.count
        counts.weeklyGoals = goals.count
        let settings = ExportedSettings(
            privacyZones: privacy.zones.map {
                .init(latitude: $0.zone.center.latitude, longitude: $0.zone.center.longitude, radiusMeters: $0.zone.radiusMeters, name: $0.name)
            },
            hideEndsMeters: privacy.hiddenEndMeters, weeklyGoals: goals)
        try await add("settings.json", try Self.exportJSON(settings))

        let manifest = LibraryExportManifest(
            createdAt: GPXTime(date: now).rfc3339, user: try await store.user(id: userID)?.name, counts: counts, entries: entries)
        let manifestBytes = try Self.exportJSON(manifest)
        try await write(zip.entry(named: "manifest.json", bytes: manifestBytes, modified: now))
        try await write(zip.finish())
        return manifest
    }

    /// The file extension a photo's media type gets in an export.
    static let photoExtensions = ["image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/heic": "heic"]

    /// JSON as an export writes it: keys sorted and indented, so that two exports of the same library compare by line.
    static func exportJSON(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    /// The name an export's file is offered under: `bikeride-export-2026-11-27.zip`.
    public static func exportFileName(at date: Date = Date()) -> String {
        "bikeride-export-\(GPXTime(date: date).rfc3339.prefix(10)).zip"
    }
}
