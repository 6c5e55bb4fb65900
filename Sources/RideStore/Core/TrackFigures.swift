import Foundation
import RideKit

/// How a stored track's figures are computed again from its points (a recording stopped, a device's live track
/// grown or finished): the same in both stores, which only read the points (`PointRunAssembler`) and save the row.
package enum TrackFigures {
    /// The content to load a track's points into: its headers (names, metadata, extensions) when `readingHeaders`,
    /// else none. The figures need only the points, and a live device track's headers do not change as it grows
    /// (parsing them was a tenth of each of its refreshes).
    package static func emptyContent(of record: TrackRecord, readingHeaders: Bool) throws -> TrackContent {
        readingHeaders
            ? try TrackHeaderCodec.decode(record.gpxHeader, version: record.gpxVersion, creator: record.gpxCreator)
            : TrackContent(version: record.gpxVersion, creator: record.gpxCreator)
    }

    /// Sets every column that comes from a track's content, its points loaded: the figures (`stats` when the
    /// caller has them, as a stopped recording's are the recorder's; else computed from the points), the counts,
    /// the list's little map, and the headers when they were read (`emptyContent(readingHeaders: true)`).
    package static func apply(_ content: TrackContent, stats: TrackStats? = nil, headersRead: Bool, to record: inout TrackRecord) throws {
        var figures = try stats ?? TrackLibrary.stats(of: content, kind: record.kind)
        // A recording's figures are the recorder's, which does not keep the series best efforts need (its live
        // figures are finished at every batch): they are measured here, once, from the points.
        if figures.efforts == nil { figures.efforts = try TrackLibrary.stats(of: content, kind: record.kind).efforts }
        try record.apply(figures)
        record.segmentCount = content.segmentCount
        record.pointCount = content.trackPointCount
        record.preview = PreviewCodec.encode(PreviewCodec.preview(of: content))
        if headersRead { record.gpxHeader = TrackHeaderCodec.encode(content) }
    }

    /// A recording's track once it is stopped: its figures from its content, state `complete`.
    package static func finish(_ record: inout TrackRecord, content: TrackContent, stats: TrackStats? = nil, now: Date) throws {
        try apply(content, stats: stats, headersRead: true, to: &record)
        record.state = .complete
        record.updatedAt = now
    }
}
