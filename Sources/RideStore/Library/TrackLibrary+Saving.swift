import Foundation
import RideKit

// Turning what a file held into tracks (one per `trk`, or one per file), named and kinded, and saving them.

extension TrackLibrary {
    /// Turns what was read into tracks and saves them in one `saveImport`.
    func save(
        _ handler: ImportContentHandler, source: ImportSource, path: String, options: ImportOptions, documentName: String?,
        replacing: TrackID?, original: Data? = nil, writesDocuments: Bool = true
    ) async throws -> FileImportOutcome {
        if let error = handler.limitError {
            handler.discard()
            throw error
        }
        let baseName = Self.baseName(source.fileName)
        let shared = TrackContent(
            version: handler.version, creator: handler.creator, metadata: handler.metadata, extensions: handler.extensions)
        let read = try await Self.blocking { handler.finish() }
        var tracks: [NewTrack] = []
        let pointCount = read.tracks.isEmpty
            ? handler.routes.reduce(0) { $0 + $1.points.count }
            : handler.pointCount

        if options.oneTrackPerFile || replacing != nil {
            var content = shared
            content.waypoints = handler.waypoints
            content.routes = handler.routes
            content.tracks = read.tracks
            // A file of the documents folder that was edited down to nothing still replaces its track (the folder
            // mirrors the library); a new file without a point makes no track.
            if replacing == nil, content.trackPointCount == 0, !content.routes.contains(where: { $0.points.count > 0 }),
                let places = try Self.placesInstead(of: content, handler: handler, options: options) {
                return try await savePlacesOnly(places, source: source, path: path, handler: handler)
            }
            let kind = options.kind ?? Self.guessKind(content, timed: read.stats.contains { $0.startTime != nil })
            var stats: TrackStats
            if let first = read.stats.first {
                stats = first
            } else if handler.routeStats.count == 1 {
                stats = handler.routeStats[0]
            } else {
                stats = try Self.stats(of: content, kind: kind)
            }
            if stats.activity != kind.activity { stats = try Self.stats(of: content, kind: kind) }
            let name = options.trackName ?? TrackFileFormat.trackName(
                firstTrack: content.tracks.first?.header.name, metadata: content.metadata.name, firstRoute: content.routes.first?.header.name)
            if let description = options.trackDescription, !description.isEmpty, !content.tracks.isEmpty {
                content.tracks[0].header.description = description
            }
            tracks.append(
                NewTrack(
                    name: Self.usableName(name, fallback: baseName), kind: kind, content: content, stats: stats,
                    documentName: documentName, preview: read.previews.first))
        } else {
            // An empty `trk` or `rte` (no points at all) is not a ride of 0 m: it goes along with its nearest
            // neighbour that has points, so that the list shows only what was ridden or planned and exporting
            // the file's tracks still gives the whole file back, in its order.
            let trackGroups = Self.groupsAroundNonEmpty(read.tracks.map { $0.segments.contains { $0.points.count > 0 } })
            let routeGroups = Self.groupsAroundNonEmpty(handler.routes.map { $0.points.count > 0 })
            for (position, group) in trackGroups.enumerated() {
                let track = read.tracks[group.owner]
                var content = shared
                content.tracks = group.members.map { read.tracks[$0] }
                if position == 0 { content.waypoints = handler.waypoints }
                if position == 0, routeGroups.isEmpty { content.routes = handler.routes }
                let kind = options.kind ?? Self.guessKind(content, timed: read.stats[group.owner].startTime != nil)
                var stats = read.stats[group.owner]
                if stats.activity != kind.activity { stats = try Self.stats(of: content, kind: kind) }
                let fallback = trackGroups.count > 1 ? "\(baseName) \(position + 1)" : baseName
                tracks.append(
                    NewTrack(
                        name: Self.usableName(
                            TrackFileFormat.trackName(firstTrack: track.header.name, metadata: position == 0 ? handler.metadata.name : nil, firstRoute: nil),
                            fallback: fallback),
                        kind: kind, content: content, stats: stats, preview: read.previews[group.owner]))
            }
            for (position, group) in routeGroups.enumerated() {
                let route = handler.routes[group.owner]
                var content = shared
                content.routes = group.members.map { handler.routes[$0] }
                if trackGroups.isEmpty, position == 0 {
                    content.waypoints = handler.waypoints
                    content.tracks = read.tracks
                }
                let fallback = routeGroups.count > 1 ? "\(baseName) route \(position + 1)" : baseName
                tracks.append(
                    NewTrack(
                        name: Self.usableName(route.header.name, fallback: fallback), kind: options.kind ?? .route,
                        content: content, stats: handler.routeStats[group.owner]))
            }
            if tracks.isEmpty {
                // No point in any track or route. A device's indoor ride (or a library being copied back) is kept
                // as one entry, so that exporting gives the file back; anything else is no track (below).
                var content = shared
                content.waypoints = handler.waypoints
                content.tracks = read.tracks
                content.routes = handler.routes
                if let places = try Self.placesInstead(of: content, handler: handler, options: options) {
                    return try await savePlacesOnly(places, source: source, path: path, handler: handler)
                }
                let kind = options.kind ?? handler.device?.kind ?? .route
                tracks.append(
                    NewTrack(
                        name: Self.usableName(
                            handler.metadata.name ?? read.tracks.first?.header.name ?? handler.routes.first?.header.name, fallback: baseName),
                        kind: kind, content: content, stats: try Self.stats(of: content, kind: kind), preview: []))
            }
        }

        // A device's file is one activity (or one course): its totals and laps go with its first track, which
        // holds the activity's line (or, without positions, is the activity).
        if let device = handler.device.flatMap(DeviceMeasurements.init), !tracks.isEmpty { tracks[0].device = device }
        if let source = options.trackSource { for index in tracks.indices { tracks[index].source = source } }
        if let device = options.deviceMeasurements, !tracks.isEmpty { tracks[0].device = device }

        var places: [NewPlace] = []
        if options.waypointsAsPlaces {
            places = try handler.waypoints.points().map(NewPlace.init(waypoint:))
        }
        let result = try await store.saveImport(
            TrackImport(
                source: source, tracks: tracks, places: places, allowsDuplicate: options.allowsDuplicates, replacing: replacing,
                maximumUserPoints: limits.maximumUserPoints, originalBytes: original),
            userID: userID)
        var outcome = FileImportOutcome(path: path, result: result, pointCount: pointCount, byteCount: source.byteCount)
        outcome.readReport = handler.readReport
        if writesDocuments, documentName == nil, replacing == nil, case .imported(_, let saved, _) = result {
            // The documents folder gets a copy now; a failure here loses nothing (the next sync writes it).
            _ = try? await writeDocuments(for: saved)
        }
        return outcome
    }

    /// Indices grouped so that each group has exactly one `true` (its owner) and the `false`s before it (after
    /// it, for the last group); no group at all when there is no `true`.
    ///
    ///     groupsAroundNonEmpty([false, true, false, true, false])  // [(1, [0, 1]), (3, [2, 3, 4])]
    static func groupsAroundNonEmpty(_ flags: [Bool]) -> [(owner: Int, members: [Int])] {
        var groups: [(owner: Int, members: [Int])] = []
        var pending: [Int] = []
        for (index, flag) in flags.enumerated() {
            if flag {
                groups.append((index, pending + [index]))
                pending = []
            } else {
                pending.append(index)
            }
        }
        if !pending.isEmpty, !groups.isEmpty { groups[groups.count - 1].members += pending }
        return groups
    }

    /// The kind of `content` when the user did not say (`TrackKind.guessed`): a route when no track point has a
    /// time (`timed` false: only `rte`, or `trk` from a planner), else what a `trk` `type` names, else a ride.
    static func guessKind(_ content: TrackContent, timed: Bool) -> TrackKind {
        TrackKind.guessed(trackTypes: content.tracks.lazy.map(\.header.type), hasTimedTrackPoint: timed)
    }

    /// For a file without a point in any track or route: nil when it is kept as one entry all the same (a device's
    /// indoor ride, which is a ride without a line; a bikeride library being copied back as it was); the places
    /// its waypoints make when `waypointsAsPlaces` asks; else refused with `RideStoreError.nothingToImport`,
    /// since a 0 m track of nothing is no ride and no route.
    static func placesInstead(of content: TrackContent, handler: ImportContentHandler, options: ImportOptions) throws -> [NewPlace]? {
        if handler.device != nil || options.trackSource != nil { return nil }
        let waypointCount = content.waypoints.count
        guard waypointCount > 0 else {
            throw RideStoreError.nothingToImport(
                "the file has no track or route points (no trkpt, rtept or position); nothing was stored")
        }
        guard options.waypointsAsPlaces else {
            throw RideStoreError.nothingToImport(Self.waypointsOnlyReason(waypointCount))
        }
        guard waypointCount <= Self.maximumImportedPlaces else {
            throw RideStoreError.nothingToImport(
                "the file has \(waypointCount) waypoints, more than \(Self.maximumImportedPlaces) places one import makes; nothing was stored")
        }
        return try content.waypoints.points().map { waypoint in
            var place = NewPlace(waypoint: waypoint)
            place.name = String(place.name.prefix(Self.maximumPlaceNameLength))
            return place
        }
    }

    static func waypointsOnlyReason(_ count: Int) -> String {
        "the file has only waypoints (\(count) wpt), no track or route points, so it makes no track; import its waypoints "
            + "as places instead (`bikeride import --waypoints-as-places`, `POST /api/tracks?waypointsAsPlaces=1`, or "
            + "`POST /api/places/import`); nothing was stored"
    }

    /// A waypoints-only file's places, saved in one transaction (the file's import recorded with no track).
    func savePlacesOnly(
        _ places: [NewPlace], source: ImportSource, path: String, handler: ImportContentHandler
    ) async throws -> FileImportOutcome {
        let result = try await store.saveImport(
            TrackImport(source: source, tracks: [], places: places, allowsDuplicate: true), userID: userID)
        var outcome = FileImportOutcome(path: path, result: result, pointCount: 0, byteCount: source.byteCount)
        outcome.readReport = handler.readReport
        return outcome
    }

    static func baseName(_ fileName: String?) -> String {
        guard let fileName, !fileName.isEmpty else { return "Track" }
        let base = (fileName as NSString).deletingPathExtension
        return base.isEmpty ? fileName : base
    }

    /// A name as the store keeps it (`TrackSummary.cleanedName`), at most 200 characters; `fallback` when blank.
    static func usableName(_ name: String?, fallback: String) -> String {
        let cleaned = TrackSummary.cleanedName(name ?? "")
        if !cleaned.isEmpty { return String(cleaned.prefix(200)) }
        let fallback = fallback.trimmingCharacters(in: .whitespaces)
        return fallback.isEmpty ? "Track" : String(fallback.prefix(200))
    }
}
