import Foundation
import RideKit

extension TrackContent {
    /// Writes the content as a GPX 1.1 file, one packed block at a time: `write` receives the file in order, in
    /// chunks of tens of kilobytes, and no more than one block's points are unpacked at once, so that a
    /// 10-million-point track is downloaded in bounded memory.
    ///
    /// The same elements as `GPXWriter.data(document())`, with `kind` written as each `trk`'s `<type>` (as
    /// `GPXDocument.setActivityType` does) and `extraWaypoints` after the stored ones (cues). Extension namespaces
    /// other than the standard ones are declared where first used instead of on the root.
    public func writeGPX(
        kind: TrackKind, extraWaypoints: [TrackPoint] = [], write: ([UInt8]) async throws -> Void
    ) async throws {
        try await writeGPX(
            kind: kind, extraWaypoints: extraWaypoints,
            points: { role, part, position, body in
                let run: PackedPoints = switch role {
                case .trackSegment: tracks[part].segments[position].points
                case .route: routes[part].points
                case .waypoints: waypoints
                }
                for block in run.packedBlocks { try await body(try block.points()) }
            },
            write: write)
    }

    /// As `writeGPX(kind:extraWaypoints:write:)`, with the points of each run (role, part, position) of this content
    /// (its headers) handed over a block at a time by `points`: the content itself, or the store's pages
    /// (`TrackLibrary.writeGPX`).
    func writeGPX(
        kind: TrackKind, extraWaypoints: [TrackPoint],
        points: (TrackPointRun.Role, Int, Int, ([TrackPoint]) async throws -> Void) async throws -> Void,
        write: ([UInt8]) async throws -> Void
    ) async throws {
        try await withoutActuallyEscaping(write) { write in
            try await writeGPXEscaping(kind: kind, extraWaypoints: extraWaypoints, points: points, write: write)
        }
    }

    private func writeGPXEscaping(
        kind: TrackKind, extraWaypoints: [TrackPoint],
        points: (TrackPointRun.Role, Int, Int, ([TrackPoint]) async throws -> Void) async throws -> Void,
        write: @escaping ([UInt8]) async throws -> Void
    ) async throws {
        let output = ChunkCollector()
        var typed = GPXDocument(tracks: tracks.map(\.header))
        typed.setActivityType(kind)
        let headers = typed.tracks
        var writer = GPXWriter(creator: creator, metadata: metadata, chunkSize: 1 << 16) { output.chunks.append($0) }
        func drain() async throws {
            let chunks = output.chunks
            output.chunks.removeAll()
            for chunk in chunks { try await write(chunk) }
        }
        try await points(.waypoints, 0, 0) { block in
            for point in block { writer.writeWaypoint(point) }
            try await drain()
        }
        for point in extraWaypoints { writer.writeWaypoint(point) }
        for (part, route) in routes.enumerated() {
            writer.beginRoute(route.header)
            try await points(.route, part, 0) { block in
                for point in block { writer.writeRoutePoint(point) }
                try await drain()
            }
            writer.endRoute()
        }
        for (part, (track, header)) in zip(tracks, headers).enumerated() {
            writer.beginTrack(header)
            for (position, segment) in track.segments.enumerated() {
                writer.beginSegment()
                try await points(.trackSegment, part, position) { block in
                    for point in block { writer.writeTrackPoint(point) }
                    try await drain()
                }
                writer.endSegment(extensions: segment.extensions)
            }
            writer.endTrack()
        }
        try writer.finish(extensions: extensions)
        try await drain()
    }
}

/// The chunks a `GPXWriter`'s sink received since they were last taken.
private final class ChunkCollector {
    var chunks: [[UInt8]] = []
}
