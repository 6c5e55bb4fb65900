import Foundation
import TestSupport
import Testing
import RideKit

/// The EGM96 geoid (`EGM96Geoid`) against PROJ's `cs2cs`, an independent implementation reading NGA's grid itself
/// (Debian's proj-bin and proj-data: `WGS 84` 3D heights to `EGM96 height`). Both interpolate the same 15' nodes
/// bilinearly; bikeride's nodes are rounded to decimetres, and an interpolation is a weighted mean of four nodes, so
/// the two must agree within 5 cm (6 cm with cs2cs's printed 0.1 mm).
@Suite struct EGM96GeoidTests {
    static let toleranceMeters = 0.06

    /// Places chosen for what they test (not for a value of bikeride's): the poles, the antimeridian from both sides,
    /// the deepest and highest geoid, nodes and cell middles, steep geoid in mountains and trenches.
    static let places: [(name: String, latitude: Double, longitude: Double)] = [
        ("south pole", -90, 0),
        ("south pole, another meridian", -90, 123.4),
        ("north pole", 90, 0),
        ("near the north pole", 89.93, -45.1),
        ("near the south pole", -89.91, 170.2),
        ("antimeridian, east side", 0, 180),
        ("antimeridian, west side", 0, -180),
        ("Fiji, east of 180°", -16.8, -179.97),
        ("Fiji, west of 180°", -17.2, 179.93),
        ("Bering Strait", 65.8, -179.99),
        ("geoid low south of India", 4.7, 78.8),
        ("geoid high near New Guinea", -8.3, 147.3),
        ("Munich", 48.137, 11.575),
        ("Cupertino", 37.323, -122.032),
        ("Sierra Nevada de Santa Marta", 10.84, -73.69),
        ("Andes, Aconcagua", -32.653, -70.011),
        ("Himalaya, Everest", 27.988, 86.925),
        ("Mariana Trench", 11.35, 142.2),
        ("Puerto Rico Trench", 19.7, -66.5),
        ("Iceland", 64.147, -21.942),
        ("Cape Town", -33.925, 18.424),
        ("Hawaii", 19.82, -155.47),
        ("Null Island", 0, 0),
        ("a grid node", 45.25, 7.5),
        ("a cell's middle", 45.125, 7.625),
    ]

    @Test(.enabled(if: PROJGeoid.cs2cs != nil, "cs2cs is missing: apt-get install proj-bin proj-data (scripts/test.sh installs them)"))
    func namedPlacesAgreeWithPROJ() throws {
        let geoid = try #require(EGM96Geoid.shared)
        let expected = try PROJGeoid.undulations(Self.places.map { ($0.latitude, $0.longitude) })
        for (place, proj) in zip(Self.places, expected) {
            let ours = try #require(geoid.undulationMeters(latitude: place.latitude, longitude: place.longitude))
            #expect(abs(ours - proj) <= Self.toleranceMeters, "\(place.name): \(ours) m, PROJ \(proj) m")
        }
    }

    @Test(.enabled(if: PROJGeoid.cs2cs != nil, "cs2cs is missing: apt-get install proj-bin proj-data (scripts/test.sh installs them)"))
    func randomPlacesAgreeWithPROJ() throws {
        let geoid = try #require(EGM96Geoid.shared)
        var random = SeededGenerator(seed: 96)
        // Uniform on the sphere (latitude from the sine), so that the tropics count as much as they weigh.
        let positions = (0..<5000).map { _ in (latitude: asin(random.symmetric(1)) * 180 / .pi, longitude: random.symmetric(180)) }
        let expected = try PROJGeoid.undulations(positions)
        var worst = 0.0
        for (position, proj) in zip(positions, expected) {
            let ours = try #require(geoid.undulationMeters(latitude: position.latitude, longitude: position.longitude))
            worst = max(worst, abs(ours - proj))
        }
        print("EGM96Geoid against PROJ's cs2cs at \(positions.count) random places: at most \(worst) m apart")
        #expect(worst <= Self.toleranceMeters, "worst difference from PROJ: \(worst) m")
        #expect(expected.min()! < -90 && expected.max()! > 70, "the random places should reach both extremes' regions")
    }

    @Test func theExtremesAreWhereGeodesyPutsThem() throws {
        // EGM96's lowest geoid lies south of India (about −107 m), its highest near New Guinea (about +85 m).
        let geoid = try #require(EGM96Geoid.shared)
        let low = try #require(geoid.undulationMeters(latitude: 4.75, longitude: 78.75))
        let high = try #require(geoid.undulationMeters(latitude: -8.25, longitude: 147.25))
        #expect((-108 ... -105).contains(low))
        #expect((84...86).contains(high))
    }

    @Test func theAntimeridianIsContinuousAndThePolesHaveOneValue() throws {
        let geoid = try #require(EGM96Geoid.shared)
        let east = try #require(geoid.undulationMeters(latitude: -16.8, longitude: 180))
        let west = try #require(geoid.undulationMeters(latitude: -16.8, longitude: -180))
        #expect(abs(east - west) < 1e-9)
        let poles = try [0.0, 90, -90, 179.9].map { try #require(geoid.undulationMeters(latitude: 90, longitude: $0)) }
        #expect(poles.allSatisfy { abs($0 - poles[0]) < 1e-9 })
    }

    @Test func seaLevelIsTheEllipsoidalHeightLessTheUndulation() throws {
        let geoid = try #require(EGM96Geoid.shared)
        let n = try #require(geoid.undulationMeters(latitude: 48.137, longitude: 11.575))
        #expect(geoid.seaLevelMeters(ellipsoidalMeters: 600, latitude: 48.137, longitude: 11.575) == 600 - n)
    }

    @Test(arguments: [(Double.nan, 0.0), (0, .infinity), (90.0001, 0), (-91, 0), (0, 180.5), (0, -181)])
    func invalidPositionsHaveNoUndulation(latitude: Double, longitude: Double) throws {
        let geoid = try #require(EGM96Geoid.shared)
        #expect(geoid.undulationMeters(latitude: latitude, longitude: longitude) == nil)
    }
}
