import Foundation
import Testing

@testable import RideKit

@Suite struct NominatimAnswerTests {
    static let folder = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "nominatim")

    @Test func readsARecordedSearchAnswer() throws {
        let places = try NominatimAnswer.search(try Data(contentsOf: Self.folder.appending(path: "search-apple-park.json")))
        #expect(places.count == 2)
        #expect(places[0] == GeocodedPlace(
            latitude: 37.3348586, longitude: -122.0090486, name: "Apple Park",
            address: "Apple Park, 1, Apple Park Way, Cupertino, Santa Clara County, California, 95014, United States"))
        #expect(places[1].name == "Apple Park Visitor Center")
    }

    @Test func readsARecordedReverseAnswerAndNothingThere() throws {
        let place = try NominatimAnswer.reverse(try Data(contentsOf: Self.folder.appending(path: "reverse-de-anza.json")))
        #expect(place?.address == "South De Anza Boulevard, Cupertino, Santa Clara County, California, 95014, United States")
        #expect(place?.latitude == 37.3229733)
        #expect(try NominatimAnswer.reverse(try Data(contentsOf: Self.folder.appending(path: "reverse-ocean.json"))) == nil)
    }

    @Test func hostileAnswersAreRefusedOrCapped() throws {
        #expect(throws: GeocodingError.self) { try NominatimAnswer.search(Data("<html>busy</html>".utf8)) }
        #expect(throws: GeocodingError.self) { try NominatimAnswer.search(Data(#"{"lat":"1"}"#.utf8)) }
        #expect(throws: GeocodingError.self) { try NominatimAnswer.reverse(Data("[]".utf8)) }
        // Positions out of range, NaN, or missing are skipped; long texts are cut; at most 10 results.
        let bad = #"[{"lat":"91","lon":"0","display_name":"x"},{"lat":"nan","lon":"0","display_name":"x"},{"lon":"0","display_name":"x"}]"#
        #expect(try NominatimAnswer.search(Data(bad.utf8)).isEmpty)
        let long = String(repeating: "a", count: 5000)
        let many = "[" + (0..<50).map { _ in #"{"lat":1.5,"lon":2.5,"display_name":"\#(long)"}"# }.joined(separator: ",") + "]"
        let places = try NominatimAnswer.search(Data(many.utf8))
        #expect(places.count == NominatimAnswer.maximumResults)
        #expect(places[0].address.count == NominatimAnswer.maximumTextLength && places[0].latitude == 1.5)
    }
}
