import Foundation
import RideKit
import RideStore

/// Following a route while recording (docs/navigation.md, docs/server.md "Following a route"): the logic is
/// RideKit's `RouteFollower`; here only where its route comes from and which fixes it is fed.
///
/// The follower is fed the fixes the `Recorder` stored, as the store gives them back, so a follower rebuilt
/// after a restart (the route loaded again, the stored fixes replayed) answers as the one that ran without a
/// break. The one difference: the store keeps no accuracy, so a rebuilt follower does not widen its off-route
/// threshold for the poor fixes (worse than 15 m) of the ride so far.
extension RecordingService {
    /// The line a track gives to follow: its routes (`rte`s) when it has some and no track points (a planner's
    /// export), else its track points, segments and tracks joined in order.
    static func routeCoordinates(of content: TrackContent) throws -> [Coordinate] {
        if content.trackPointCount == 0, !content.routes.isEmpty {
            var coordinates: [Coordinate] = []
            for route in content.routes { coordinates += try route.points.points().map(\.coordinate) }
            return coordinates
        }
        var coordinates: [Coordinate] = []
        coordinates.reserveCapacity(content.trackPointCount)
        for track in content.tracks {
            for segment in track.segments { coordinates += try segment.points.points().map(\.coordinate) }
        }
        return coordinates
    }

    /// The route's line: a track of the library's user, not deleted; otherwise "no track with id …" (404).
    static func routeCoordinates(trackID text: String, in library: TrackLibrary) async throws -> [Coordinate] {
        guard let id = TrackID(text),
              let track = try await library.mine.track(id: id), track.summary.deletedAt == nil
        else { throw RideStoreError.notFound(kind: "track", id: text) }
        return try routeCoordinates(of: track.content)
    }

    /// A follower for the route, speaking the recording's units; a route without length is refused (422).
    static func makeFollower(route: [Coordinate], units: UnitSystem) throws -> RouteFollower {
        var configuration = RouteFollower.Configuration()
        configuration.units = units
        do {
            return try RouteFollower(route: route, configuration: configuration)
        } catch let error as NavigationError {
            throw APIError(.unprocessableContent, code: "route_too_short", message: "cannot follow this route: \(error.description)")
        }
    }

    /// A follower for the route that has seen the recording's fixes so far (the rebuild after a restart, and
    /// the new route chosen mid-ride: the same answer either way).
    static func makeFollower(route: [Coordinate], units: UnitSystem, replaying recorder: Recorder) throws -> RouteFollower {
        var follower = try makeFollower(route: route, units: units)
        for segment in recorder.segments {
            for point in segment.points { _ = follower.update(with: routeFix(point, accuracyMeters: nil, follower: follower)) }
        }
        return follower
    }

    /// A stored point as the follower's fix. A point without a time (a client that sends none) takes the time
    /// of the last one, so that live and replayed fixes are the same.
    static func routeFix(_ point: TrackPoint, accuracyMeters: Double?, follower: RouteFollower) -> RouteFix {
        RouteFix(
            coordinate: point.coordinate, accuracyMeters: accuracyMeters,
            time: point.time?.date ?? follower.state.lastFixTime ?? Date(timeIntervalSince1970: 0))
    }

    /// Feeds the fixes a batch stored; the answer after the last of them (or as before when none was stored).
    static func follow(_ accepted: [AcceptedFix], with follower: inout RouteFollower) -> Navigation {
        var navigation = follower.navigation
        for item in accepted {
            navigation = follower.update(with: routeFix(item.fix.trackPoint, accuracyMeters: item.fix.horizontalAccuracyMeters, follower: follower))
        }
        return navigation
    }

    /// Records the route chosen (or nil: none) for a recording in progress.
    static func setRoute(_ routeTrackID: String?, recordingID: String, in library: TrackLibrary) async throws -> Recording {
        var route: TrackID?
        if let routeTrackID {
            guard let id = TrackID(routeTrackID) else { throw RideStoreError.notFound(kind: "track", id: routeTrackID) }
            route = id
        }
        return try await library.mine.setRecordingRoute(id: try storeID(recordingID), routeTrackID: route)
    }
}
