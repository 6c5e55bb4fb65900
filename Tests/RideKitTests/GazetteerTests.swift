import Foundation
import Testing

@testable import RideKit

/// The offline gazetteer (issue 24). Positions are written by hand from each town's Wikipedia article (the
/// coordinates in its infobox, rounded to 2 decimals): an independent source from GeoNames, checked within 0.1°.
@Suite struct GazetteerTests {
    static let gazetteer = Gazetteer.shared!

    /// Wikipedia's coordinates (degrees north, east).
    static let known: [String: (Double, Double)] = [
        "Lausanne": (46.52, 6.63), "Zürich": (47.37, 8.54), "São Paulo": (-23.55, -46.63), "Munich": (48.14, 11.58),
        "Paris, France": (48.86, 2.35), "Paris, Texas": (33.66, -95.56), "Kraków": (50.06, 19.94),
        "Geneva": (46.20, 6.15), "Saint-Étienne": (45.43, 4.39), "Łódź": (51.78, 19.45),
    ]

    static func near(_ match: Gazetteer.Match?, _ name: String) -> Bool {
        guard let match, let (latitude, longitude) = known[name] else { return false }
        return abs(match.town.latitude - latitude) < 0.1 && abs(match.town.longitude - longitude) < 0.1
    }

    @Test(arguments: [
        ("Zürich", "zurich"), ("São Paulo", "sao paulo"), ("Straße", "strasse"), ("Saint-Étienne", "saint etienne"),
        ("ŁÓDŹ", "lodz"), ("  Paris  ", "paris"), ("Ærøskøbing", "aeroskobing"), ("Val-d'Or", "val d or"),
        ("KRAKÓW", "krakow"), ("Ｔｏｋｙｏ", "tokyo"), ("Ñuñoa", "nunoa"), ("--", ""),
    ])
    func foldingDropsAccentsCaseAndPunctuation(_ text: String, _ folded: String) {
        #expect(String(decoding: Gazetteer.fold(text), as: UTF8.self) == folded)
    }

    @Test(arguments: [
        ("Zurich", "Zürich"), ("zürich", "Zürich"), ("sao paulo", "São Paulo"), ("SAO PAULO", "São Paulo"),
        ("Lausanne", "Lausanne"), ("Lausan", "Lausanne"), ("krakow", "Kraków"), ("Geneva", "Geneva"),
        ("saint etienne", "Saint-Étienne"), ("Lodz", "Łódź"),
        // Other names of a large town: its name in its own language.
        ("München", "Munich"), ("munchen", "Munich"), ("Genf", "Geneva"),
    ])
    func aTownIsFoundFoldedAndByPrefix(_ query: String, _ town: String) {
        let first = Self.gazetteer.search(query).first
        #expect(Self.near(first, town), "\(query) → \(String(describing: first?.town))")
    }

    @Test func aWholeNameComesBeforeALongerOneAndThenPopulationDecides() throws {
        // Paris, France (2.1 million) before Paris, Texas (25,000): both the whole name.
        let paris = Self.gazetteer.search("Paris")
        #expect(Self.near(paris.first, "Paris, France"))
        #expect(paris.contains { Self.near($0, "Paris, Texas") })
        // Paris' arrondissements (GeoNames lists them as places) come after the towns called Paris.
        let firstDistrict = try #require(paris.firstIndex { $0.town.name.hasPrefix("Paris ") })
        #expect(paris[..<firstDistrict].allSatisfy { $0.town.name == "Paris" } && firstDistrict >= 2)
        // "Paris, Texas": the part after the comma names the state or country.
        #expect(Self.near(Self.gazetteer.search("Paris, Texas").first, "Paris, Texas"))
        #expect(Self.near(Self.gazetteer.search("paris, fr").first, "Paris, France"))
        // A later word of a name: "paulo" finds São Paulo, after towns whose name starts so.
        #expect(Self.gazetteer.search("paulo", limit: 50).contains { Self.near($0, "São Paulo") })
    }

    @Test func theVisibleRegionComesFirst() {
        // A box around north-east Texas (drawn by hand around Paris, Texas): its Paris first.
        let texas = Gazetteer.Region(south: 33, west: -96.5, north: 34.5, east: -94.5)
        #expect(Self.near(Self.gazetteer.search("Paris", region: texas).first, "Paris, Texas"))
        // Two letters, which thousands of towns start with: the region's town is still found, and first.
        let vaud = Gazetteer.Region(south: 46.45, west: 6.5, north: 46.6, east: 6.75)
        let la = Self.gazetteer.search("La", region: vaud)
        #expect(Self.near(la.first, "Lausanne"))
        for match in la where match.inRegion {
            #expect((46.45...46.6).contains(match.town.latitude) && (6.5...6.75).contains(match.town.longitude))
        }
        // Across the antimeridian (Fiji's Suva is at 18.14 S, 178.44 E).
        let pacific = Gazetteer.Region(south: -19, west: 178, north: -17, east: -178)
        let suva = Self.gazetteer.search("Su", region: pacific).first
        #expect(suva.map { abs($0.town.latitude + 18.14) < 0.1 && abs($0.town.longitude - 178.44) < 0.1 } == true)
    }

    /// The index against a plain scan of every town: the same towns, in the order the ranking rules give.
    @Test(arguments: ["lau", "san", "new", "saint", "bad", "port", "x", "sa", "zu", "a"])
    func theIndexAgreesWithAScanOfEveryTown(_ query: String) {
        let needle = Gazetteer.fold(query)
        var expected: [(quality: Int, district: Int, population: Int, name: String)] = []
        for town in Self.gazetteer.towns {
            let name = Gazetteer.fold(town.name)
            var qualities: [Int] = []
            if name == needle { qualities.append(0) } else if name.starts(with: needle) { qualities.append(2) }
            for alternate in town.alternates.map(Gazetteer.fold) where alternate != name {
                if alternate == needle { qualities.append(1) } else if alternate.starts(with: needle) { qualities.append(3) }
            }
            let words = name.split(separator: 0x20)
            if words.count > 1, words.dropFirst().contains(where: { $0.starts(with: needle) }) { qualities.append(4) }
            if let quality = qualities.min() { expected.append((quality, town.isDistrict ? 1 : 0, town.population, town.name)) }
        }
        expected.sort { ($0.quality, $0.district, -$0.population) < ($1.quality, $1.district, -$1.population) }
        let found = Self.gazetteer.search(query, limit: 10)
        // Where populations tie, the order among the tied towns is by name; compare the populations and qualities.
        #expect(found.map(\.quality) == expected.prefix(10).map(\.quality))
        #expect(found.map(\.town.population) == expected.prefix(10).map(\.population))
    }

    @Test func hostileQueriesAreBoundedAndFindNothingOdd() {
        #expect(Self.gazetteer.search("").isEmpty)
        #expect(Self.gazetteer.search(" ,.-'").isEmpty)
        #expect(Self.gazetteer.search(String(repeating: "a", count: 100_000)).isEmpty)
        #expect(Self.gazetteer.search(String(repeating: "é", count: 50_000)).isEmpty)
        #expect(Self.gazetteer.search("\u{0}\u{1}lausanne").first.map { Self.near($0, "Lausanne") } == true)
        let world = Gazetteer.Region(south: -90, west: -180, north: 90, east: 180)
        #expect(Self.gazetteer.search("s", region: world, limit: 10).count == 10)
        #expect(Self.gazetteer.towns.count > 30_000)
    }
}
