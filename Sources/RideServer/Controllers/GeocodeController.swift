import Foundation
import Hummingbird
import RideKit

/// `GET /api/geocode?q=TEXT` and `GET /api/geocode/reverse?lat=&lon=` (issue 10): address search through the
/// configured `Geocoder`. Without one (`--geocoder-url` unset) both answer 501 `geocoder_off`, and `/api/config`
/// says `"geocoder": false`, so the web app hides its search box.
struct GeocodeController<Context: RequestContext>: Sendable {
    let geocoder: Geocoder?

    /// The longest query passed on.
    static var maximumQueryLength: Int { 200 }

    func addRoutes(to router: Router<Context>) {
        router.get("api/geocode") { request, _ in try await search(request) }
        router.get("api/geocode/reverse") { request, _ in try await reverse(request) }
    }

    /// → `{"results": [{latitude, longitude, name?, address}]}`, best first.
    func search(_ request: Request) async throws -> GeocodeResultsPayload {
        let geocoder = try configured()
        let query = (request.uri.formQueryValue("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { throw APIError.badRequest("missing_field", "q (the address or name to search for) is required") }
        guard query.count <= Self.maximumQueryLength else {
            throw APIError.badRequest("invalid_value", "q is longer than \(Self.maximumQueryLength) characters")
        }
        return GeocodeResultsPayload(results: try await Self.answer { try await geocoder.search(query) })
    }

    /// → `{"result": {latitude, longitude, name?, address}}`, or `{"result": null}` where the service knows no address.
    func reverse(_ request: Request) async throws -> GeocodeResultPayload {
        let geocoder = try configured()
        func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double {
            guard let text = request.uri.formQueryValue(name), text.utf8.count <= 40, let value = Double(text), value.isFinite, range.contains(value)
            else {
                throw APIError.badRequest("invalid_value", "\(name) must be a number from \(Int(range.lowerBound)) to \(Int(range.upperBound))")
            }
            return value
        }
        let latitude = try number("lat", -90...90)
        let longitude = try number("lon", -180...180)
        return GeocodeResultPayload(result: try await Self.answer { try await geocoder.reverse(latitude: latitude, longitude: longitude) })
    }

    func configured() throws -> Geocoder {
        guard let geocoder else {
            throw APIError(
                .notImplemented, code: "geocoder_off",
                message: "address search is off on this server: start it with --geocoder-url (a Nominatim-compatible service)")
        }
        return geocoder
    }

    /// The geocoder's errors as the API's: 502 for the service's failures, 429 while the queue is full.
    static func answer<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch GeocoderError.busy(let seconds) {
            throw APIError(
                .tooManyRequests, code: "geocoder_busy", message: GeocoderError.busy(retryAfterSeconds: seconds).description,
                retryAfterSeconds: seconds)
        } catch let error as GeocoderError {
            throw APIError(.badGateway, code: "geocoder_failed", message: error.description)
        }
    }
}

/// One place found.
struct GeocodedPlacePayload: Encodable {
    var latitude: Double
    var longitude: Double
    var name: String?
    var address: String

    init(_ place: GeocodedPlace) {
        latitude = place.latitude
        longitude = place.longitude
        name = place.name
        address = place.address
    }
}

/// `GET /api/geocode`.
struct GeocodeResultsPayload: ResponseEncodable {
    var results: [GeocodedPlacePayload]

    init(results: [GeocodedPlace]) { self.results = results.map(GeocodedPlacePayload.init) }
}

/// `GET /api/geocode/reverse`.
struct GeocodeResultPayload: ResponseEncodable {
    var result: GeocodedPlacePayload?

    init(result: GeocodedPlace?) { self.result = result.map(GeocodedPlacePayload.init) }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(result, forKey: .result)  // null, not absent, when nothing is there
    }

    enum CodingKeys: String, CodingKey { case result }
}
