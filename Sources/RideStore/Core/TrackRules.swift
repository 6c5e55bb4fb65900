import Foundation
import RideKit

/// The rules of a track's row that both stores follow: what a name and a search may hold, how the list's cursor
/// and `LIKE` patterns are written, and how a new track's row is filled from its content and figures. Pure: each
/// store runs its own SQL with what these return.
package enum TrackRules {
    /// The longest name kept, in UTF-8 bytes.
    package static let maximumNameByteCount = 1000

    /// What one import saves: at least one track, or (a waypoints-only file asked to become places) at least one
    /// place and no track; replacing a track takes exactly one track; every name and place valid.
    package static func validate(_ batch: TrackImport) throws {
        if batch.tracks.isEmpty, batch.places.isEmpty || batch.replacing != nil {
            throw RideStoreError.invalid(field: "tracks", reason: "an import needs at least one track (or places, without a track)")
        }
        if batch.replacing != nil, batch.tracks.count != 1 {
            throw RideStoreError.invalid(field: "tracks", reason: "replacing a track takes exactly one track")
        }
        for track in batch.tracks { try validate(name: track.name) }
        for place in batch.places { try PlaceRules.validate(place) }
    }

    /// A track's (or a recording's) name: not empty once cleaned, at most 1,000 bytes, no NUL.
    package static func validate(name: String) throws {
        guard !TrackSummary.cleanedName(name).isEmpty else { throw RideStoreError.invalid(field: "name", reason: "must not be empty") }
        guard name.utf8.count <= maximumNameByteCount else { throw RideStoreError.invalid(field: "name", reason: "is longer than 1,000 bytes") }
        // No store takes a NUL in text alike (PostgreSQL refuses it): refused here, by both.
        guard !name.utf8.contains(0) else { throw RideStoreError.invalid(field: "name", reason: "must not contain a NUL character") }
    }

    /// The file name recorded with an import (searched as the track's file): as given, without NUL characters,
    /// which PostgreSQL refuses in text and no file system allows in a name.
    package static func importFileName(_ name: String?) -> String? {
        guard let name, name.utf8.contains(0) else { return name }
        return String(decoding: name.utf8.filter { $0 != 0 }, as: UTF8.self)
    }

    /// A search text both stores can take.
    package static func validate(search: String?) throws {
        if let search, search.utf8.contains(0) {
            throw RideStoreError.invalid(field: "search", reason: "must not contain a NUL character")
        }
    }

    /// `text` as a literal inside a `LIKE … ESCAPE '\'` pattern: `%`, `_` and `\` escaped with `\`.
    package static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// ASCII capitals as small letters, every other character as it is: how both stores fold a search, as
    /// SQLite's `LIKE` does (PostgreSQL's `ILIKE` would follow the database's locale).
    package static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// The list's cursor, "sortKey.id" (`TrackPage.nextCursor`): nil when it is not one.
    package static func parseCursor(_ cursor: String) -> (sortKey: Int64, id: String)? {
        guard let dot = cursor.lastIndex(of: "."), let sortKey = Int64(cursor[..<dot]),
            let id = ShortID(String(cursor[cursor.index(after: dot)...]))
        else { return nil }
        return (sortKey, id.rawValue)
    }

    /// Refuses an import that would take the user past `limit` points in all: `stored` are the points their
    /// tracks hold now (less those of the track the import replaces), read in the import's transaction, so that
    /// two uploads at once cannot both pass.
    package static func checkUserPoints(stored: Int, adding: Int, limit: Int?) throws {
        guard let limit, stored + adding > limit else { return }
        throw RideStoreError.limitExceeded(
            "this would make \(stored + adding) points in your tracks, more than the \(limit) this server keeps for one user "
                + "(serve --max-user-points); delete tracks you do not need, or ask the server's owner")
    }

    /// Refuses a recording's or a device's batch that would take its track past `limit` points: `stored` are the
    /// points the track holds now, read in the batch's transaction. The whole batch is refused, nothing stored.
    package static func checkTrackPoints(stored: Int, adding: Int, limit: Int?) throws {
        guard let limit, adding > 0, stored + adding > limit else { return }
        throw RideStoreError.limitExceeded(
            "this would make \(stored + adding) points in one track, more than the \(limit) this server keeps in one track "
                + "(serve --max-track-points); stop this ride and start a new one")
    }

    /// A track's row before it has content: no figures, no points, state `complete`.
    package static func emptyRecord(id: TrackID, userID: UserID, name: String, kind: TrackKind, source: TrackSource, now: Date) -> TrackRecord {
        TrackRecord(
            id: id, userId: userID, name: TrackSummary.cleanedName(name), kind: kind, source: source, state: .complete, importId: nil,
            importPosition: 0, createdAt: now, updatedAt: now, startTime: nil, endTime: nil,
            sortKey: TrackRecord.sortKey(start: nil, createdAt: now), utcOffsetMinutes: nil, distanceMeters: 0,
            ascentMeters: 0, descentMeters: 0, movingSeconds: 0, elapsedSeconds: 0, maxSpeedMetersPerSecond: 0,
            averageSpeedMetersPerSecond: 0, pointCount: 0, segmentCount: 0, waypointCount: 0, routeCount: 0,
            minLatitude: nil, minLongitude: nil, maxLatitude: nil, maxLongitude: nil, preview: Data(), stats: Data(),
            gpxVersion: "1.1", gpxCreator: nil, gpxHeader: Data(), documentName: nil, deletedAt: nil)
    }

    /// Sets the columns that come from a new track's content and figures.
    package static func fill(_ record: inout TrackRecord, with track: NewTrack, importID: ImportID?, position: Int, now: Date) throws {
        record.importId = importID
        record.importPosition = position
        record.updatedAt = now
        record.state = .complete
        if let documentName = track.documentName { record.documentName = documentName }
        record.device = try TrackRecord.encodedDevice(track.device)
        try record.apply(track.stats)
        record.pointCount = track.content.trackPointCount
        record.segmentCount = track.content.segmentCount
        record.waypointCount = track.content.waypoints.count
        record.routeCount = track.content.routes.count
        if record.pointCount == 0 { record.pointCount = track.content.routes.reduce(0) { $0 + $1.points.count } }
        record.preview = PreviewCodec.encode(track.preview.map(PreviewCodec.simplified) ?? PreviewCodec.preview(of: track.content))
        record.gpxVersion = track.content.version
        record.gpxCreator = track.content.creator
        record.gpxHeader = TrackHeaderCodec.encode(track.content)
    }

    /// The track of a new recording (a ride started in the browser, or a device's live track): one `trk` named as
    /// the track with one empty segment, no figures yet, in state `recording`. The store inserts the row and the
    /// content's segment.
    package static func recordingTrack(
        id: TrackID, userID: UserID, name: String, kind: TrackKind, source: TrackSource, now: Date
    ) throws -> (record: TrackRecord, content: TrackContent) {
        var record = emptyRecord(id: id, userID: userID, name: name, kind: kind, source: source, now: now)
        let content = TrackContent(
            creator: GPXWriter.defaultCreator, tracks: [PackedTrack(header: Track(name: TrackSummary.cleanedName(name)), segments: [PackedSegment()])])
        try fill(
            &record, with: NewTrack(name: name, kind: kind, content: content, stats: TrackStats(activity: kind.activity), preview: []),
            importID: nil, position: 0, now: now)
        record.state = .recording
        return (record, content)
    }

    /// A track's row changed as `changes` say (validated with `validate(name:)` first): a renamed track exports
    /// with its new name, so the single `trk` it holds (or, with none, its single route) is renamed too.
    package static func apply(_ changes: TrackChanges, to record: inout TrackRecord, now: Date) throws {
        if let name = changes.name {
            record.name = TrackSummary.cleanedName(name)
            var content = try TrackHeaderCodec.decode(record.gpxHeader, version: record.gpxVersion, creator: record.gpxCreator)
            if content.tracks.count == 1 {
                content.tracks[0].header.name = record.name
                record.gpxHeader = TrackHeaderCodec.encode(content)
            } else if content.tracks.isEmpty, content.routes.count == 1 {
                content.routes[0].header.name = record.name
                record.gpxHeader = TrackHeaderCodec.encode(content)
            }
        }
        if let kind = changes.kind { record.kind = kind }
        if let source = changes.source, source != record.source {
            // A simulated ride becomes a real one when the rider keeps it (and back): it then counts toward the
            // statistics (`StatisticsRules`). A file stays a file, a device's track a device's.
            let toggled: Set<TrackSource> = [.simulation, .recording]
            guard toggled.contains(source), toggled.contains(record.source) else {
                throw RideStoreError.invalid(
                    field: "source", reason: "only a ride recorded in bikeride changes source, between simulation and recording (this one is \(record.source.rawValue))")
            }
            record.source = source
        }
        if let stats = changes.stats { try record.apply(stats) }
        if let documentName = changes.documentName { record.documentName = documentName }
        record.updatedAt = now
    }
}
