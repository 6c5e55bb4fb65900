import Foundation
import RideKit

extension StoredTrack {
    /// The lines a map draws of the track: its segments, or its routes' points when it has no `trk` (a
    /// planned route), points unpacked.
    public func lineSegments() throws -> [TrackSegment] {
        if content.tracks.isEmpty {
            return try content.routes.map { TrackSegment(points: try $0.points.points()) }
        }
        var segments: [TrackSegment] = []
        for packed in content.tracks {
            for segment in packed.segments { segments.append(TrackSegment(points: try segment.points.points())) }
        }
        return segments
    }

    /// The latitude in the middle of the track's box: where a map's pixel is measured when its line is
    /// simplified for a zoom.
    public var middleLatitude: Double {
        if let bounds = summary.bounds { return (bounds.minLatitude + bounds.maxLatitude) / 2 }
        return summary.preview.first?.latitude ?? 0
    }
}
