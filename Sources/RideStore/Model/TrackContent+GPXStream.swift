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
        for block in waypoints.packedBlocks {
            for point in try block.points() { writer.writeWaypoint(point) }
            try await drain()
        }
        for point in extraWaypoints { writer.writeWaypoint(point) }
        for route in routes {
            writer.beginRoute(route.header)
            for block in route.points.packedBlocks {
                for point in try block.points() { writer.writeRoutePoint(point) }
                try await drain()
            }
            writer.endRoute()
        }
        for (track, header) in zip(tracks, headers) {
            writer.beginTrack(header)
            for segment in track.segments {
                writer.beginSegment()
                for block in segment.points.packedBlocks {
                    for point in try block.points() { writer.writeTrackPoint(point) }
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
