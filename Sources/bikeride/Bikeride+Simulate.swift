import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RideKit

extension Bikeride {
    /// `bikeride simulate ROUTE --server URL`
    struct Simulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ride a route file through a running server's recordings API, as a phone would (demos and tests).",
            discussion: """
                Starts a recording on the server, sends a fix every --interval seconds of ride time along the route \
                (its rte points when it has no track points, else its track points) at --speed km/h, in batches, then \
                stops it, and prints the saved track's id. With --follow TRACK_ID the recording follows that saved \
                track as its planned route and the next turn is printed as it changes. By default the fixes are sent \
                as fast as the server answers; --realtime paces them as a ride would.
                """
        )

        @Argument(help: "The route to ride: GPX, .gpx436 or GeoJSON; - reads standard input.")
        var file: String

        @Option(help: "The server, e.g. http://127.0.0.1:8080.")
        var server: String

        @Option(help: "Speed in km/h (1–200).")
        var speed: Double = 18

        @Option(help: "Seconds of ride time between fixes (0.2–60).")
        var interval: Double = 1

        @Option(help: "Fixes per request (1–1000).")
        var batch: Int = 10

        @Option(help: "The recording's name (default: the route file's name).")
        var name: String?

        @Option(help: "ride, run or walk.")
        var activity: ActivityKind = .ride

        @Option(help: "Units of the turn texts: metric or imperial.")
        var units: UnitSystem = .metric

        @Option(help: "Follow this saved track (its id) as the planned route.")
        var follow: String?

        @Flag(help: "Send each batch when the ride reaches it, not as fast as possible.")
        var realtime = false

        @OptionGroup var read: ReadOptions

        func validate() throws {
            guard speed.isFinite, (1...200).contains(speed) else { throw ValidationError("--speed must be from 1 to 200 km/h") }
            guard interval.isFinite, (0.2...60).contains(interval) else { throw ValidationError("--interval must be from 0.2 to 60 seconds") }
            guard (1...1000).contains(batch) else { throw ValidationError("--batch must be from 1 to 1000 fixes") }
            guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
                throw ValidationError("--server must be an http:// or https:// address, such as http://127.0.0.1:8080")
            }
        }

        func run() async throws {
            let route: [TrackPoint]
            do {
                let (document, _) = try TrackFileReader.document(at: file, lenient: read.lenient)
                route = document.routeLinePoints
            } catch {
                printError("bikeride: \(error)")
                throw ExitCode.failure
            }
            let simulator = RideSimulator(route: route, speedMetersPerSecond: speed / 3.6, intervalSeconds: interval)
            guard simulator.routeLengthMeters > 0 else {
                printError("bikeride: \(file): no route to ride (fewer than two distinct valid points)")
                throw ExitCode.failure
            }
            let client = APIClient(base: server)
            let started = Date()
            let fixes = simulator.fixes(startingAt: GPXTime(date: started))
            do {
                var start: [String: Any] = [
                    "name": name ?? ((file == "-" ? "Simulated ride" : (file as NSString).lastPathComponent)),
                    "activity": activity.rawValue, "units": units.rawValue, "startedAt": GPXTime(date: started).rfc3339,
                ]
                if let follow { start["routeTrackId"] = follow }
                let recording = try await client.send("POST", "/api/recordings", start)
                guard let id = recording["id"] as? String else { throw SimulateError("the server's answer to the start has no id") }
                print("recording \(id): \(fixes.count) fixes along \(units.formatDistance(meters: simulator.routeLengthMeters)) at \(units.formatSpeed(metersPerSecond: speed / 3.6))")
                var lastCue: String?
                for (index, chunk) in stride(from: 0, to: fixes.count, by: batch).map({ fixes[$0..<min($0 + batch, fixes.count)] }).enumerated() {
                    if realtime, index > 0 { try await Task.sleep(for: .seconds(Double(chunk.count) * interval)) }
                    let answer = try await client.send("POST", "/api/recordings/\(id)/fixes", ["fixes": chunk.map(SimulatedRide.payload)])
                    // Each turn once, as it first comes up ("Turn right in 250 m"), and leaving the route.
                    if let navigation = answer["navigation"] as? [String: Any] {
                        let next = navigation["nextCue"] as? [String: Any]
                        let offRoute = navigation["offRoute"] as? Bool == true
                        let key = offRoute ? "off" : next.map { "\($0["latitude"] ?? ""),\($0["longitude"] ?? "")" }
                        if let key, key != lastCue {
                            print(offRoute ? "  off route" : "  \(next?["text"] as? String ?? "")")
                        }
                        lastCue = key
                    }
                }
                let stopped = try await client.send("POST", "/api/recordings/\(id)/stop", [:])
                let trackID = stopped["trackId"] as? String ?? "?"
                let distance = ((stopped["stats"] as? [String: Any])?["distanceMeters"] as? Double).map { units.formatDistance(meters: $0) } ?? "?"
                print("saved track \(trackID): \(distance)")
            } catch let error as SimulateError {
                printError("bikeride: \(error.message)")
                throw ExitCode.failure
            }
        }
    }
}

/// The fixes `bikeride simulate` sends.
enum SimulatedRide {
    /// A fix as the web app sends it (the browser's names).
    static func payload(_ fix: RecordingFix) -> [String: Any] {
        var object: [String: Any] = ["sequence": fix.sequence, "latitude": fix.latitude, "longitude": fix.longitude]
        if let altitude = fix.altitudeMeters { object["altitude"] = altitude }
        if let accuracy = fix.horizontalAccuracyMeters { object["accuracy"] = accuracy }
        if let speed = fix.speedMetersPerSecond { object["speed"] = speed }
        if let heading = fix.courseDegrees { object["heading"] = heading }
        if let time = fix.time { object["time"] = time.rfc3339 }
        return object
    }
}

/// A failure talking to the server, said in words.
struct SimulateError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// JSON requests to a bikeride server.
struct APIClient {
    var base: String

    func send(_ method: String, _ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        guard let url = URL(string: base.trimmingCharacters(in: CharacterSet(charactersIn: "/")) + path) else {
            throw SimulateError("cannot make a URL of \(base) and \(path)")
        }
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw SimulateError("cannot reach \(base): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        guard (200..<300).contains(status) else {
            let detail = (object["error"] as? [String: Any])?["message"] as? String ?? String(decoding: data.prefix(300), as: UTF8.self)
            throw SimulateError("\(method) \(path): \(status): \(detail)")
        }
        return object
    }
}
