import Foundation

/// A place an address search found: where it is and what it is called (DESIGN 2.5, "search for an address").
public struct GeocodedPlace: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Its own name ("Apple Park"), or nil for a plain address.
    public var name: String?
    /// The whole address as the service writes it ("Apple Park, 1 Apple Park Way, Cupertino, …").
    public var address: String

    public init(latitude: Double, longitude: Double, name: String? = nil, address: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.address = address
    }
}

/// Why an answer from a geocoding service could not be used.
public enum GeocodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body is not the JSON a Nominatim-compatible service sends.
    case unreadableAnswer(reason: String)

    public var description: String {
        switch self {
        case .unreadableAnswer(let reason): "its answer is not Nominatim JSON: \(reason)"
        }
    }
}

/// Reads the answers of a Nominatim-compatible service (`/search?format=jsonv2` and `/reverse?format=jsonv2`, as
/// nominatim.org, Photon's Nominatim mode or a self-hosted Nominatim send them).
///
///     try NominatimAnswer.search(Data(#"[{"lat":"37.33","lon":"-122.01","name":"Apple Park","display_name":"Apple Park, Cupertino"}]"#.utf8))
///     // [GeocodedPlace(latitude: 37.33, longitude: -122.01, name: "Apple Park", address: "Apple Park, Cupertino")]
///
/// The answer comes from another machine and is taken as hostile: the caller caps its size before this; here
/// results past `maximumResults` are dropped, texts are cut to `maximumTextLength` characters, and results without
/// a position inside the world's bounds are skipped. Time: linear in the body (Foundation's JSON parser).
public enum NominatimAnswer {
    public static let maximumResults = 10
    public static let maximumTextLength = 500

    /// The results of `/search`: a JSON array of places.
    public static func search(_ body: Data) throws(GeocodingError) -> [GeocodedPlace] {
        guard let array = try json(body) as? [Any] else { throw .unreadableAnswer(reason: "a search answers a JSON array") }
        return array.prefix(maximumResults * 4).compactMap { ($0 as? [String: Any]).flatMap(place) }.prefix(maximumResults).map { $0 }
    }

    /// The result of `/reverse`: one place, or nil when the service found nothing there (`{"error": "Unable to geocode"}`).
    public static func reverse(_ body: Data) throws(GeocodingError) -> GeocodedPlace? {
        guard let object = try json(body) as? [String: Any] else { throw .unreadableAnswer(reason: "a reverse lookup answers a JSON object") }
        if object["error"] != nil { return nil }
        guard let place = place(object) else { throw .unreadableAnswer(reason: "the place has no valid lat, lon and display_name") }
        return place
    }

    static func json(_ body: Data) throws(GeocodingError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: body)
        } catch {
            throw .unreadableAnswer(reason: "the body is not JSON")
        }
    }

    /// A place from one result; nil without a finite position in range or without a `display_name`.
    static func place(_ object: [String: Any]) -> GeocodedPlace? {
        // jsonv2 writes coordinates as strings; some services write numbers.
        func number(_ key: String) -> Double? {
            if let text = object[key] as? String, text.utf8.count <= 40 { return Double(text) }
            return (object[key] as? NSNumber).map(\.doubleValue)
        }
        func text(_ key: String) -> String? {
            guard let value = (object[key] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else { return nil }
            return String(value.prefix(maximumTextLength))
        }
        guard let latitude = number("lat"), let longitude = number("lon"), latitude.isFinite, longitude.isFinite,
              (-90...90).contains(latitude), (-180...180).contains(longitude), let address = text("display_name")
        else { return nil }
        return GeocodedPlace(latitude: latitude, longitude: longitude, name: text("name"), address: address)
    }
}
