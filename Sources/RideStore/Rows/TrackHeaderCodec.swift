import Foundation
import RideKit

/// Stores a track's headers — the file's metadata and root extensions, each `trk`'s fields, each segment's
/// extensions, each route's fields — as a GPX document without a single point, written by RideKit's
/// `GPXWriter` and read back by its `GPXReader`.
///
/// Why GPX: the writer and reader are already proven lossless on every fixture (RideKit's round-trip tests),
/// so headers need no second serialisation of metadata, links, persons and extension trees to keep in step.
/// The text is a few hundred bytes a track and is read only when a whole track is opened.
package enum TrackHeaderCodec {
    package static func encode(_ content: TrackContent) -> Data {
        let skeleton = GPXDocument(
            metadata: content.metadata,
            routes: content.routes.map(\.header),
            tracks: content.tracks.map { track in
                var header = track.header
                header.segments = track.segments.map { TrackSegment(points: [], extensions: $0.extensions) }
                return header
            },
            extensions: content.extensions)
        return GPXWriter.data(skeleton)
    }

    /// The headers, with empty point runs to be filled from the stored blocks.
    package static func decode(_ data: Data, version: String, creator: String?) throws -> TrackContent {
        let skeleton: GPXDocument
        do {
            skeleton = try GPXReader.read(data: data)
        } catch {
            throw RideStoreError.damaged("a track's GPX headers cannot be read: \(error)")
        }
        return TrackContent(
            version: version, creator: creator, metadata: skeleton.metadata, extensions: skeleton.extensions,
            routes: skeleton.routes.map { PackedRoute(header: $0, points: PackedPoints()) },
            tracks: skeleton.tracks.map { track in
                PackedTrack(header: track, segments: track.segments.map { PackedSegment(extensions: $0.extensions) })
            })
    }
}
