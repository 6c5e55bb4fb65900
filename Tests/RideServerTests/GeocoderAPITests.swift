import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import RideKit
@testable import RideServer
import Testing

/// A Nominatim-compatible service on loopback (a Hummingbird app in the test) answering the recorded answers of
/// `Tests/nominatim/`, and noting what it was asked.
final class StandInGeocoder: Sendable {
    static let recorded = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "nominatim")

    struct Seen: Sendable {
        var path: String
        var query: String
        var userAgent: String
        var at: ContinuousClock.Instant
    }

    /// How it answers: the recorded answers, or something hostile.
    enum Behaviour: Sendable {
        case recorded
        case status(Int)
        case body(String)
        case huge
        case slow(seconds: Int)
    }

    private let requests = NIOLockedValueBox<[Seen]>([])
    var seen: [Seen] { requests.withLockedValue { $0 } }

    /// Runs `body` with the stand-in's base URL while it serves.
    func serve<T: Sendable>(_ behaviour: Behaviour = .recorded, _ body: @escaping @Sendable (String) async throws -> T) async throws -> T {
        let router = Router()
        let requests = self.requests
        router.get("**") { request, _ -> Response in
            requests.withLockedValue {
                $0.append(Seen(path: request.uri.path, query: request.uri.query ?? "", userAgent: request.headers[.userAgent] ?? "", at: .now))
            }
            switch behaviour {
            case .status(let code): return Response(status: .init(code: code), body: .init(byteBuffer: ByteBuffer(string: "down")))
            case .body(let text): return Self.json(text)
            case .huge: return Self.json("[" + String(repeating: #"{"lat":"1","lon":"1","display_name":"x"},"#, count: 40_000) + "{}]")
            case .slow(let seconds):
                try await Task.sleep(for: .seconds(seconds))
                return Self.json("[]")
            case .recorded: break
            }
            let file: String
            if request.uri.path == "/search" {
                file = (request.uri.queryParameters["q"].map(String.init)?.removingPercentEncoding ?? "").lowercased().contains("apple park") ? "search-apple-park.json" : ""
            } else if request.uri.path == "/reverse" {
                file = request.uri.queryParameters["lat"] == "0.00000" ? "reverse-ocean.json" : "reverse-de-anza.json"
            } else {
                return Response(status: .notFound)
            }
            return Self.json(file.isEmpty ? "[]" : try String(contentsOf: Self.recorded.appending(path: file), encoding: .utf8))
        }
        var logger = Logger(label: "stand-in-geocoder")
        logger.logLevel = .critical  // its shutdown by cancellation is logged as errors: not this test's business
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await app.runService(gracefulShutdownSignals: [])
                return nil
            }
            var iterator = ports.makeAsyncIterator()
            let port = try #require(await iterator.next())
            let result = try await body("http://127.0.0.1:\(port)")
            group.cancelAll()
            return result
        }
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension TestServer {
    /// A server whose geocoder is the stand-in at `url`, fast to test: requests 0.2 s apart, 2 s to answer.
    static func withGeocoder(_ url: String, configure: (inout Geocoder.Configuration) -> Void = { _ in }) async throws -> TestServer {
        var server = try await TestServer()
        try server.configuration.setGeocoder(url: url, contact: "ops@example.org")
        server.configuration.geocoder?.minimumIntervalSeconds = 0.2
        server.configuration.geocoder?.timeoutSeconds = 2
        configure(&server.configuration.geocoder!)
        return server
    }
}

@Suite(.serialized) struct GeocoderAPITests {
    @Test func searchAnswersTheServicesPlacesAndNamesBikerideAndItsContact() async throws {
        let standIn = StandInGeocoder()
        try await standIn.serve { url async throws in
            try await TestServer.withGeocoder(url).run(live: true) { client async throws in
                let response = try await client.get("/api/geocode?q=Apple%20Park")
                #expect(response.status == .ok, "\(response.text)")
                let results = try #require(try response.jsonObject()["results"] as? [[String: Any]])
                #expect(results.count == 2)
                #expect(results[0]["name"] as? String == "Apple Park")
                #expect(results[0]["latitude"] as? Double == 37.3348586 && results[0]["longitude"] as? Double == -122.0090486)
                #expect(results[0]["address"] as? String == "Apple Park, 1, Apple Park Way, Cupertino, Santa Clara County, California, 95014, United States")
                let nothing = try await client.get("/api/geocode?q=zzzz")
                #expect(try nothing.jsonObject()["results"] as? [Any] != nil)
            }
        }
        let first = try #require(standIn.seen.first)
        #expect(first.path == "/search")
        #expect(first.query.contains("format=jsonv2") && first.query.contains("q=Apple%20Park"))
        #expect(first.userAgent.hasPrefix("bikeride/") && first.userAgent.contains("ops@example.org"))
    }

    @Test func reverseGivesTheAddressOrNullWhereThereIsNone() async throws {
        let standIn = StandInGeocoder()
        try await standIn.serve { url async throws in
            try await TestServer.withGeocoder(url).run(live: true) { client async throws in
                let found = try await client.get("/api/geocode/reverse?lat=37.3230&lon=-122.0322")
                #expect(found.status == .ok, "\(found.text)")
                let result = try #require(try found.jsonObject()["result"] as? [String: Any])
                #expect(result["address"] as? String == "South De Anza Boulevard, Cupertino, Santa Clara County, California, 95014, United States")
                let ocean = try await client.get("/api/geocode/reverse?lat=0&lon=0")
                #expect(ocean.status == .ok && ocean.text == #"{"result":null}"#)
                for bad in ["lat=91&lon=0", "lat=NaN&lon=0", "lat=1e400&lon=0", "lat=1", "lon=1", "lat=a&lon=b"] {
                    #expect(try await client.get("/api/geocode/reverse?\(bad)").status == .badRequest, "\(bad)")
                }
            }
        }
        #expect(standIn.seen.map(\.query).first?.contains("lat=37.32300&lon=-122.03220") == true)
    }

    /// The same question twice asks the service once; different questions are spaced by the interval: the third
    /// leaves no sooner than two intervals after the first was asked (arrival times jitter; departures do not come early).
    @Test func answersAreCachedAndRequestsSpaced() async throws {
        let standIn = StandInGeocoder()
        let start = try await standIn.serve { url async throws in
            try await TestServer.withGeocoder(url).run(live: true) { client async throws in
                let start = ContinuousClock.now
                for _ in 0..<3 { #expect(try await client.get("/api/geocode?q=Apple%20Park").status == .ok) }
                #expect(try await client.get("/api/geocode?q=apple%20park%20").status == .ok)  // the same, in other case and spacing
                #expect(try await client.get("/api/geocode?q=Cupertino").status == .ok)
                #expect(try await client.get("/api/geocode/reverse?lat=37.3230&lon=-122.0322").status == .ok)
                #expect(try await client.get("/api/geocode/reverse?lat=37.323001&lon=-122.032201").status == .ok)  // same to 5 decimals
                return start
            }
        }
        let seen = standIn.seen
        try #require(seen.map(\.path) == ["/search", "/search", "/reverse"])
        #expect(start.duration(to: seen[2].at) >= .milliseconds(400))
    }

    @Test func tooManyWaitingIsRefusedWith429AndRetryAfter() async throws {
        let standIn = StandInGeocoder()
        try await standIn.serve { url async throws in
            let server = try await TestServer.withGeocoder(url) { configuration in
                configuration.minimumIntervalSeconds = 5
                configuration.maximumWaitSeconds = 1
            }
            try await server.run(live: true) { client async throws in
                #expect(try await client.get("/api/geocode?q=qqzz%20one").status == .ok)
                let busy = try await client.get("/api/geocode?q=qqzz%20two")  // no town is called so
                #expect(busy.status == .tooManyRequests)
                #expect(try busy.errorCode() == "geocoder_busy")
                #expect(busy.headers[.retryAfter].flatMap { Int($0) }.map { $0 >= 4 && $0 <= 6 } == true)
            }
        }
        #expect(standIn.seen.count == 1)
    }

    @Test(arguments: [
        StandInGeocoder.Behaviour.status(503), .body("<html>over quota</html>"), .body(#"{"not":"a list"}"#), .huge, .slow(seconds: 4),
    ])
    func upstreamFailuresAre502WithAClearMessage(behaviour: StandInGeocoder.Behaviour) async throws {
        let standIn = StandInGeocoder()
        try await standIn.serve(behaviour) { url async throws in
            try await TestServer.withGeocoder(url).run(live: true) { client async throws in
                let response = try await client.get("/api/geocode?q=Apple%20Park")
                #expect(response.status == .badGateway, "\(response.text)")
                #expect(try response.errorCode() == "geocoder_failed")
                let message = try #require((try response.jsonObject()["error"] as? [String: Any])?["message"] as? String)
                #expect(message.hasPrefix("the geocoder"))
            }
        }
    }

    /// Without a geocoder the reverse lookup answers 501; the search answers from the offline towns
    /// (`GeocodeSearchAPITests`).
    @Test func withoutAGeocoderTheReverseLookupAnswers501AndTheConfigSaysSo() async throws {
        try await TestServer().run { client async throws in
            let response = try await client.get("/api/geocode/reverse?lat=1&lon=1")
            #expect(response.status == .notImplemented)
            #expect(try response.errorCode() == "geocoder_off")
            #expect(try await client.get("/api/geocode?q=x").status == .ok)
            #expect(try await client.get("/api/config").jsonObject()["geocoder"] as? Bool == false)
        }
        let standIn = StandInGeocoder()
        try await standIn.serve { url async throws in
            try await TestServer.withGeocoder(url).run { client async throws in
                #expect(try await client.get("/api/config").jsonObject()["geocoder"] as? Bool == true)
                #expect(try await client.get("/api/geocode?q=").status == .badRequest)
                #expect(try await client.get("/api/geocode?q=\(String(repeating: "a", count: 201))").status == .badRequest)
            }
        }
        #expect(standIn.seen.isEmpty)
    }

    @Test func aGeocoderURLMustBeHTTP() {
        var configuration = ServerConfiguration()
        for bad in ["ftp://example.org", "nominatim.org", "http://", "https://example.org/search?q=1", "javascript:alert(1)"] {
            #expect(throws: ConfigurationError.self) { try configuration.setGeocoder(url: bad, contact: nil) }
        }
        #expect(throws: Never.self) { try configuration.setGeocoder(url: "https://nominatim.openstreetmap.org/", contact: "me (x)\n@y") }
        #expect(configuration.geocoder?.baseURL == "https://nominatim.openstreetmap.org")
        #expect(configuration.geocoder?.userAgent == "bikeride/0.1.0 (self-hosted GPS tracker; contact: me x@y)")
    }
}
