import Foundation
import Hummingbird
import RideKit
import RideStore

/// `GET /api/simulation?speedKmh=18&intervalSeconds=1[&trackId=ID]`: a ride as fixes — the built-in loop
/// around Cupertino, or any saved track of the user's (its routes when it has no track points, as when it is
/// followed) — for the web app's demo mode and for tests without a GPS (DESIGN 2.1, "Simulated ride").
struct SimulationController<Context: UserRequestContext> {
    let library: TrackLibrary
    /// The most fixes one simulation answers with.
    static var maximumFixCount: Double { 100_000 }

    struct SimulatedFix: Encodable {
        var latitude: Double
        var longitude: Double
        var altitude: Double?
        var accuracy: Double?
        var speed: Double?
        var heading: Double?
        /// Seconds after the start.
        var offsetSeconds: Double
    }

    struct Simulation: ResponseEncodable {
        var name: String
        var routeLengthMeters: Double
        var fixes: [SimulatedFix]
    }

    func addRoutes(to router: Router<Context>) {
        router.get("api/simulation") { request, context -> Simulation in
            let library = try library.scoped(to: context)
            func number(_ name: String, default value: Double) throws -> Double {
                guard let text = request.uri.queryParameters[name[...]] else { return value }
                guard let number = Double(String(text)), number.isFinite else {
                    throw APIError.badRequest("invalid_value", "\(name) must be a number")
                }
                return number
            }
            let speedKmh = try number("speedKmh", default: 18)
            let interval = try number("intervalSeconds", default: 1)
            // 1–100 km/h and 0.2–60 s: a walk to a fast descent; bounds keep the answer small.
            guard (1...100).contains(speedKmh), (0.2...60).contains(interval) else {
                throw APIError.badRequest("invalid_value", "speedKmh must be 1–100 and intervalSeconds 0.2–60")
            }
            var name = "Cupertino loop"
            var route = RideSimulator.cupertinoLoop
            if let text = request.uri.queryParameters["trackId"].map(String.init) {
                // Any saved track of the user's, along the line it would be followed on.
                guard let id = TrackID(text), let track = try await library.mine.track(id: id),
                      track.summary.deletedAt == nil
                else { throw RideStoreError.notFound(kind: "track", id: text) }
                name = track.summary.name
                route = try RecordingService.routeCoordinates(of: track.content).map { TrackPoint(latitude: $0.latitude, longitude: $0.longitude) }
            }
            let simulator = RideSimulator(route: route, speedMetersPerSecond: speedKmh / 3.6, intervalSeconds: interval)
            guard simulator.routeLengthMeters > 0 else {
                throw APIError(.unprocessableContent, code: "route_too_short", message: "this track has no line to ride along")
            }
            // A long track ridden slowly would make a huge answer: 100,000 fixes is a day at one a second.
            let fixCount = simulator.routeLengthMeters / (speedKmh / 3.6 * interval)
            guard fixCount <= Self.maximumFixCount else {
                throw APIError(
                    .unprocessableContent, code: "simulation_too_long",
                    message: "this ride would take \(Int(fixCount)) fixes, more than \(Self.maximumFixCount): choose a higher speed or a longer interval")
            }
            let start = GPXTime(secondsSince1970: 0)
            let fixes = simulator.fixes(startingAt: start).map { fix in
                SimulatedFix(
                    latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitudeMeters, accuracy: fix.horizontalAccuracyMeters,
                    speed: fix.speedMetersPerSecond, heading: fix.courseDegrees, offsetSeconds: fix.time?.timeIntervalSince1970 ?? 0)
            }
            return Simulation(name: name, routeLengthMeters: simulator.routeLengthMeters, fixes: fixes)
        }
    }
}
