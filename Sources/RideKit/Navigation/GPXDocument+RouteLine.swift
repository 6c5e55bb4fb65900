import Foundation

extension GPXDocument {
    /// The line a file gives to follow or to ride: its routes (`rte`) when it has no track points (a planner's
    /// export), else its track points, every segment and track joined in order. The server applies the same rule
    /// to a stored track (`RecordingService.routeCoordinates(of:)`).
    public var routeLinePoints: [TrackPoint] {
        let trackPoints = tracks.flatMap { $0.segments.flatMap(\.points) }
        if trackPoints.isEmpty, !routes.isEmpty { return routes.flatMap(\.points) }
        return trackPoints
    }
}
