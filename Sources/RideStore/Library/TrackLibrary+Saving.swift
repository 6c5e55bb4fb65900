import Foundation
import RideKit

// Turning what a file held into tracks (one per `trk`, or one per file), named and kinded, and saving them.

extension TrackLibrary {
    /// Turns what was read into tracks and saves them in one `saveImport`.
    func save(
        _ handler: ImportContentHandler, source: ImportSource, path: String, options: ImportOptions, documentName: String?,
        replacing: TrackID?
    ) async throws -> FileImportOutcome {
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
            let kind = options.kind ?? Self.guessKind(content)
            var stats: TrackStats
            if let first = read.stats.first {
                stats = first
            } else if handler.routeStats.count == 1 {
                stats = handler.routeStats[0]
            } else {
                stats = try Self.stats(of: content, kind: kind)
            }
            if stats.activity != kind.activity { stats = try Self.stats(of: content, kind: kind) }
            let name = TrackFileFormat.trackName(
                firstTrack: content.tracks.first?.header.name, metadata: content.metadata.name, firstRoute: content.routes.first?.header.name)
            tracks.append(
                NewTrack(
                    name: Self.usableName(name, fallback: baseName), kind: kind, content: content, stats: stats,
                    documentName: documentName, preview: read.previews.first))
        } else {
            for (index, track) in read.tracks.enumerated() {
                var content = shared
                content.tracks = [track]
                if index == 0 { content.waypoints = handler.waypoints }
                let kind = options.kind ?? Self.guessKind(content)
                var stats = read.stats[index]
                if stats.activity != kind.activity { stats = try Self.stats(of: content, kind: kind) }
                let fallback = read.tracks.count > 1 ? "\(baseName) \(index + 1)" : baseName
                tracks.append(
                    NewTrack(
                        name: Self.usableName(
                            TrackFileFormat.trackName(firstTrack: track.header.name, metadata: index == 0 ? handler.metadata.name : nil, firstRoute: nil),
                            fallback: fallback),
                        kind: kind, content: content, stats: stats, preview: read.previews[index]))
            }
            for (index, route) in handler.routes.enumerated() {
                var content = shared
                content.routes = [route]
                if read.tracks.isEmpty, index == 0 { content.waypoints = handler.waypoints }
                let fallback = handler.routes.count > 1 ? "\(baseName) route \(index + 1)" : baseName
                tracks.append(
                    NewTrack(
                        name: Self.usableName(route.header.name, fallback: fallback), kind: options.kind ?? .route,
                        content: content, stats: handler.routeStats[index]))
            }
            if tracks.isEmpty {
                // Only waypoints (or nothing but metadata): kept as one entry, so that exporting gives the file back.
                var content = shared
                content.waypoints = handler.waypoints
                tracks.append(
                    NewTrack(
                        name: Self.usableName(handler.metadata.name, fallback: baseName), kind: options.kind ?? .route,
                        content: content, stats: TrackStats(activity: (options.kind ?? .route).activity), preview: []))
            }
        }

        var places: [NewPlace] = []
        if options.waypointsAsPlaces {
            places = try handler.waypoints.points().map(NewPlace.init(waypoint:))
        }
        let result = try await store.saveImport(
            TrackImport(source: source, tracks: tracks, places: places, allowsDuplicate: options.allowsDuplicates, replacing: replacing),
            userID: userID)
        let outcome = FileImportOutcome(path: path, result: result, pointCount: pointCount, byteCount: source.byteCount)
        if documentName == nil, replacing == nil, case .imported(_, let saved, _) = result {
            // The documents folder gets a copy now; a failure here loses nothing (the next sync writes it).
            _ = try? await writeDocuments(for: saved)
        }
        return outcome
    }

    /// The kind a file's GPX `type` names, else ride (a route when it has only routes).
    static func guessKind(_ content: TrackContent) -> TrackKind {
        for track in content.tracks {
            if let type = track.header.type, let kind = TrackKind(gpxType: type) { return kind }
        }
        if content.tracks.isEmpty { return .route }
        return .ride
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
