import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RideKit

/// Address search through a Nominatim-compatible service (`--geocoder-url`), as nominatim.org's usage policy asks:
/// at most one request a second, a User-Agent that names the application and a contact, and answers cached.
///
/// - **Rate.** Requests to the service are spaced `minimumIntervalSeconds` apart (1 s): a request waits its turn in
///   a queue; when its turn would come more than `maximumWaitSeconds` (5 s) from now, it is refused at once
///   (`GeocoderError.busy`, HTTP 429 with `Retry-After`) rather than held.
/// - **Cache.** Answers (found or not) are kept in memory, least recently used dropped beyond `cacheCapacity`
///   entries, each for `cacheLifetimeSeconds`. Reverse lookups are keyed on the position rounded to 5 decimals (~1 m).
/// - **Hostile answers.** At most `maximumAnswerBytes` are read (502 beyond), each request has `timeoutSeconds` in
///   all, and the body is read by `NominatimAnswer` (results and text lengths capped).
public actor Geocoder {
    /// How the geocoder reaches its service.
    public struct Configuration: Sendable, Hashable {
        /// The service's base URL, e.g. `https://nominatim.openstreetmap.org`; `/search` and `/reverse` are added.
        public var baseURL: String
        /// Sent with every request; nominatim.org refuses requests without one that identifies the application.
        public var userAgent: String
        public var minimumIntervalSeconds: Double = 1
        public var maximumWaitSeconds: Double = 5
        public var timeoutSeconds: Int64 = 10
        public var maximumAnswerBytes: Int = 1 << 20
        public var cacheCapacity: Int = 1000
        public var cacheLifetimeSeconds: Double = 24 * 3600

        public init(baseURL: String, userAgent: String = Configuration.defaultUserAgent) {
            var base = baseURL
            while base.hasSuffix("/") { base.removeLast() }
            self.baseURL = base
            self.userAgent = userAgent
        }

        /// `bikeride/0.1.0 (self-hosted GPS tracker; contact: …)`: the contact is the operator's (`--geocoder-contact`,
        /// an e-mail address or a URL, which nominatim.org asks for).
        public static func userAgent(contact: String?) -> String {
            let cleaned = (contact ?? "").unicodeScalars.filter { $0.value >= 0x20 && $0.value < 0x7F && $0 != "(" && $0 != ")" }
            let text = String(String.UnicodeScalarView(cleaned)).trimmingCharacters(in: .whitespaces).prefix(200)
            return "bikeride/0.1.0 (self-hosted GPS tracker; contact: \(text.isEmpty ? "none given, see --geocoder-contact" : text))"
        }

        public static var defaultUserAgent: String { userAgent(contact: nil) }
    }

    public let configuration: Configuration
    private let client: HTTPClient
    private var cache: LRUCache<String, CachedAnswer>
    /// When the next request may leave.
    private var nextSlot: ContinuousClock.Instant = .now

    struct CachedAnswer: Sendable {
        var places: [GeocodedPlace]
        var storedAt: ContinuousClock.Instant
    }

    public init(configuration: Configuration, client: HTTPClient = .shared) {
        self.configuration = configuration
        self.client = client
        cache = LRUCache(capacity: max(1, configuration.cacheCapacity))
    }

    /// Places matching an address or a name, best first (at most `NominatimAnswer.maximumResults`). With a region
    /// (the map's visible part), the service is asked within it first (`viewbox=…&bounded=1`), and only when it knows
    /// nothing there, everywhere.
    public func search(_ query: String, region: Gazetteer.Region? = nil) async throws(GeocoderError) -> [GeocodedPlace] {
        let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
        if let region {
            // Rounded to 3 decimals (~100 m): the cache still answers a map moved by a few pixels.
            let box = [region.west, region.north, region.east, region.south].map { String(format: "%.3f", $0) }.joined(separator: ",")
            let key = "search:" + box + ":" + query.lowercased()
            let places: [GeocodedPlace]
            if let cached = cached(key) {
                places = cached
            } else {
                places = try await searchService(query: "format=jsonv2&limit=5&viewbox=\(box)&bounded=1&q=" + Self.percentEncoded(query))
                store(places, key)
            }
            if !places.isEmpty { return places }
        }
        let key = "search:" + query.lowercased()
        if let cached = cached(key) { return cached }
        let places = try await searchService(query: "format=jsonv2&limit=5&q=" + Self.percentEncoded(query))
        store(places, key)
        return places
    }

    private func searchService(query: String) async throws(GeocoderError) -> [GeocodedPlace] {
        let body = try await fetch("/search", query: query)
        do {
            return try NominatimAnswer.search(body)
        } catch {
            throw .badAnswer(error.description)
        }
    }

    /// The address at a position, or nil when the service knows none there.
    public func reverse(latitude: Double, longitude: Double) async throws(GeocoderError) -> GeocodedPlace? {
        let position = String(format: "%.5f,%.5f", latitude, longitude)
        let key = "reverse:" + position
        if let cached = cached(key) { return cached.first }
        let parts = position.split(separator: ",")
        let body = try await fetch("/reverse", query: "format=jsonv2&lat=\(parts[0])&lon=\(parts[1])&zoom=18")
        let place: GeocodedPlace?
        do {
            place = try NominatimAnswer.reverse(body)
        } catch {
            throw .badAnswer(error.description)
        }
        store(place.map { [$0] } ?? [], key)
        return place
    }

    /// Text for a query value: every byte but `A–Z a–z 0–9 - . _ ~` percent-encoded (a space is `%20`, `&` is `%26`).
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return result
    }

    private func cached(_ key: String) -> [GeocodedPlace]? {
        guard let entry = cache[key] else { return nil }
        guard entry.storedAt.duration(to: .now) < .seconds(configuration.cacheLifetimeSeconds) else {
            cache[key] = nil
            return nil
        }
        return entry.places
    }

    private func store(_ places: [GeocodedPlace], _ key: String) {
        cache[key] = CachedAnswer(places: places, storedAt: .now)
    }

    /// Takes the next slot of the queue, or refuses when it is too far off.
    private func reserveSlot() throws(GeocoderError) -> ContinuousClock.Instant {
        let now = ContinuousClock.now
        let slot = max(now, nextSlot)
        let wait = now.duration(to: slot)
        guard wait <= .seconds(configuration.maximumWaitSeconds) else {
            throw .busy(retryAfterSeconds: Int(ceil(Double(wait.components.seconds) + 1)))
        }
        nextSlot = slot + .seconds(configuration.minimumIntervalSeconds)
        return slot
    }

    private func fetch(_ path: String, query: String) async throws(GeocoderError) -> Data {
        let slot = try reserveSlot()
        do {
            try await Task.sleep(until: slot, clock: .continuous)
        } catch {
            throw .unreachable("the request was cancelled")
        }
        var request = HTTPClientRequest(url: configuration.baseURL + path + "?" + query)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(configuration.timeoutSeconds))
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw .unreachable("it did not answer within \(configuration.timeoutSeconds) s")
        } catch {
            throw .unreachable(String(describing: error).prefix(200).description)
        }
        guard response.status == .ok else {
            throw .badAnswer("it answered HTTP \(response.status.code) \(response.status.reasonPhrase.prefix(60))")
        }
        do {
            let buffer = try await response.body.collect(upTo: configuration.maximumAnswerBytes)
            return Data(buffer.readableBytesView)
        } catch is NIOTooManyBytesError {
            throw .badAnswer("its answer is larger than \(configuration.maximumAnswerBytes >> 10) KiB")
        } catch {
            throw .unreachable("the answer was cut off (\(String(describing: error).prefix(200)))")
        }
    }
}

/// Why an address search failed; `GeocodeController` maps each to an HTTP status.
public enum GeocoderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The service could not be reached, or did not answer in time (502).
    case unreachable(String)
    /// The service answered, but not with a usable answer (502).
    case badAnswer(String)
    /// Too many lookups are waiting for the one-a-second limit (429).
    case busy(retryAfterSeconds: Int)

    public var description: String {
        switch self {
        case .unreachable(let reason): "the geocoder cannot be reached: \(reason)"
        case .badAnswer(let reason): "the geocoder failed: \(reason)"
        case .busy(let seconds): "too many address lookups at once (the geocoder takes one a second); try again in \(seconds) s"
        }
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
