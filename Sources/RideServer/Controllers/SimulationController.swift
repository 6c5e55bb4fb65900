import Foundation
import Hummingbird
import RideKit

/// `GET /api/simulation?speedKmh=18&intervalSeconds=1`: the built-in ride around Cupertino as fixes, for
/// the web app's demo mode and for tests without a GPS (DESIGN 2.1, "Simulated ride").
struct SimulationController<Context: RequestContext> {
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
        router.get("api/simulation") { request, _ in
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
            let simulator = RideSimulator(route: RideSimulator.cupertinoLoop, speedMetersPerSecond: speedKmh / 3.6, intervalSeconds: interval)
            let start = GPXTime(secondsSince1970: 0)
            let fixes = simulator.fixes(startingAt: start).map { fix in
                SimulatedFix(
                    latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitudeMeters, accuracy: fix.horizontalAccuracyMeters,
                    speed: fix.speedMetersPerSecond, heading: fix.courseDegrees, offsetSeconds: fix.time?.timeIntervalSince1970 ?? 0)
            }
            return Simulation(name: "Cupertino loop", routeLengthMeters: simulator.routeLengthMeters, fixes: fixes)
        }
    }
}
