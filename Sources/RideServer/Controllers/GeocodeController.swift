import Foundation
import Hummingbird
import RideKit
import RideStore

/// `GET /api/geocode?q=TEXT[&bbox=W,S,E,N]` and `GET /api/geocode/reverse?lat=&lon=` (issues 10 and 24).
///
/// The search works on every server: the user's own places and tracks whose names match come first, then, with a
/// geocoder configured (`--geocoder-url`), the service's addresses (asked within the visible region `bbox` first),
/// then towns from the offline gazetteer (GeoNames, CC BY 4.0: the answer's `attribution` says so). The reverse
/// lookup needs the geocoder: without one it answers 501 `geocoder_off`, and `/api/config` says `"geocoder": false`.
struct GeocodeController<Context: UserRequestContext>: Sendable {
    let geocoder: Geocoder?
    let library: TrackLibrary
    /// The offline towns, indexed on the first search (`Gazetteer.shared`; `bikeride serve` warms it at start).
    let gazetteer: @Sendable () async -> Gazetteer?

    /// The longest query passed on.
    static var maximumQueryLength: Int { 200 }
    /// At most this many results in all, of the user's places and of the user's tracks.
    static var maximumResults: Int { 10 }
    static var maximumOwn: Int { 3 }
    static var attribution: String { "Towns: GeoNames (geonames.org), CC BY 4.0" }

    func addRoutes(to router: Router<Context>) {
        router.get("api/geocode") { request, context in try await search(request, context) }
        router.get("api/geocode/reverse") { request, _ in try await reverse(request) }
    }

    /// → `{"results": [{kind, latitude, longitude, name?, address, id?, bounds?}], "attribution"?, "geocoderError"?}`,
    /// best first: `kind` is `place`, `track`, `address` (the geocoder's) or `town` (the gazetteer's).
    func search(_ request: Request, _ context: Context) async throws -> GeocodeResultsPayload {
        let library = try self.library.scoped(to: context)
        let query = (request.uri.formQueryValue("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !query.isEmpty else { throw APIError.badRequest("missing_field", "q (the address or name to search for) is required") }
        guard query.count <= Self.maximumQueryLength else {
            throw APIError.badRequest("invalid_value", "q is longer than \(Self.maximumQueryLength) characters")
        }
        guard !query.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.badRequest("invalid_value", "q must not contain control characters")
        }
        let region = try request.uri.formQueryValue("bbox").map(Self.region)

        var results: [GeocodedPlacePayload] = []
        let places = try await library.mine.places(PlaceQuery(search: query, order: .name, limit: Self.maximumOwn))
        results += places.map { GeocodedPlacePayload(kind: "place", id: $0.id.description, latitude: $0.latitude, longitude: $0.longitude, name: $0.name, address: $0.address ?? $0.name) }
        let tracks = try await library.mine.tracks(TrackQuery(search: query, limit: Self.maximumOwn)).tracks
        for track in tracks {
            guard let bounds = track.bounds else { continue }
            results.append(GeocodedPlacePayload(
                kind: "track", id: track.id.description, latitude: (bounds.minLatitude + bounds.maxLatitude) / 2,
                longitude: (bounds.minLongitude + bounds.maxLongitude) / 2, name: track.name, address: track.name,
                bounds: [bounds.minLatitude, bounds.minLongitude, bounds.maxLatitude, bounds.maxLongitude]))
        }

        var addresses: [GeocodedPlace] = []
        var geocoderError: String?
        if let geocoder {
            do {
                addresses = try await Self.answer { try await geocoder.search(query, region: region) }
            } catch let error as APIError {
                // The offline towns still answer; without any result the service's failure is the answer.
                geocoderError = error.message
                if await gazetteer()?.search(query, region: region, limit: 1).isEmpty ?? true, results.isEmpty { throw error }
            }
        }
        results += addresses.map { GeocodedPlacePayload($0, kind: "address") }

        var attribution: String?
        if let gazetteer = await gazetteer(), results.count < Self.maximumResults {
            let towns = gazetteer.search(query, region: region, limit: Self.maximumResults).filter { match in
                // A town the service already gave (within 5 km) is not listed twice.
                !addresses.contains { Coordinate(latitude: $0.latitude, longitude: $0.longitude).distanceMeters(to: Coordinate(latitude: match.town.latitude, longitude: match.town.longitude)) < 5000 }
            }
            let added = towns.prefix(Self.maximumResults - results.count)
            results += added.map { match in
                GeocodedPlacePayload(
                    kind: "town", latitude: match.town.latitude, longitude: match.town.longitude,
                    name: match.matchedName == match.town.name ? match.town.name : "\(match.town.name) (\(match.matchedName))",
                    address: match.town.address)
            }
            if !added.isEmpty { attribution = Self.attribution }
        }
        return GeocodeResultsPayload(results: results, attribution: attribution, geocoderError: geocoderError)
    }

    /// `bbox=WEST,SOUTH,EAST,NORTH` (degrees, as Leaflet's `toBBoxString()` writes them); `WEST > EAST` crosses the
    /// antimeridian.
    static func region(_ text: String) throws -> Gazetteer.Region {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { $0.utf8.count <= 40 ? Double($0.trimmingCharacters(in: .whitespaces)) : nil }
        guard text.utf8.count <= 200, parts.count == 4, numbers.count == 4, numbers.allSatisfy(\.isFinite),
              (-180...180).contains(numbers[0]), (-180...180).contains(numbers[2]),
              (-90...90).contains(numbers[1]), (-90...90).contains(numbers[3]), numbers[1] <= numbers[3]
        else {
            throw APIError.badRequest(
                "invalid_value", "bbox must be WEST,SOUTH,EAST,NORTH in degrees (longitudes -180 to 180, latitudes -90 to 90, south not above north)")
        }
        return Gazetteer.Region(south: numbers[1], west: numbers[0], north: numbers[3], east: numbers[2])
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
    /// `place`, `track`, `address` or `town`; absent on the reverse lookup's answer.
    var kind: String?
    /// The place's or track's id.
    var id: String?
    var latitude: Double
    var longitude: Double
    var name: String?
    var address: String
    /// A track's extent: [south, west, north, east].
    var bounds: [Double]?

    init(kind: String? = nil, id: String? = nil, latitude: Double, longitude: Double, name: String?, address: String, bounds: [Double]? = nil) {
        self.kind = kind
        self.id = id
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.address = address
        self.bounds = bounds
    }

    init(_ place: GeocodedPlace, kind: String? = nil) {
        self.init(kind: kind, latitude: place.latitude, longitude: place.longitude, name: place.name, address: place.address)
    }
}

/// `GET /api/geocode`.
struct GeocodeResultsPayload: ResponseEncodable {
    var results: [GeocodedPlacePayload]
    /// The gazetteer's licence asks for attribution where its towns are shown.
    var attribution: String?
    /// Why the geocoder gave nothing (its failure, or too many lookups at once), when other results answer.
    var geocoderError: String?
}

/// `GET /api/geocode/reverse`.
struct GeocodeResultPayload: ResponseEncodable {
    var result: GeocodedPlacePayload?

    init(result: GeocodedPlace?) { self.result = result.map { GeocodedPlacePayload($0) } }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(result, forKey: .result)  // null, not absent, when nothing is there
    }

    enum CodingKeys: String, CodingKey { case result }
}
