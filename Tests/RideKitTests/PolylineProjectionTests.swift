import Testing
import RideKit

@Suite struct PolylineProjectionTests {
    let line = [
        Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 0.01), Coordinate(latitude: 0.01, longitude: 0.01),
    ]

    @Test func emptyPolylineHasNoNearestPoint() {
        #expect(PolylineProjection.nearest(to: Coordinate(latitude: 0, longitude: 0), on: []) == nil)
    }

    @Test func singleVertexIsTheNearestPoint() {
        let vertex = Coordinate(latitude: 1, longitude: 1)
        let result = PolylineProjection.nearest(to: Coordinate(latitude: 1.001, longitude: 1), on: [vertex])
        #expect(result?.segmentIndex == 0)
        #expect(result?.fraction == 0)
        #expect(result?.coordinate == vertex)
        #expect(abs((result?.distanceMeters ?? 0) - vertex.distanceMeters(to: Coordinate(latitude: 1.001, longitude: 1))) < 1e-9)
    }

    @Test func pointBesideTheFirstSegmentProjectsOntoIt() throws {
        let query = Coordinate(latitude: 0.001, longitude: 0.004)
        let result = try #require(PolylineProjection.nearest(to: query, on: line))
        #expect(result.segmentIndex == 0)
        #expect(abs(result.fraction - 0.4) < 1e-6)
        #expect(abs(result.coordinate.latitude) < 1e-9)
        #expect(abs(result.coordinate.longitude - 0.004) < 1e-9)
        // 0.001° of latitude at the equator on WGS-84: the meridian arc, 110.574 m.
        #expect(abs(result.distanceMeters - 110.574) < 0.01)
    }

    @Test func pointBeyondTheCornerSnapsToTheVertex() throws {
        let result = try #require(PolylineProjection.nearest(to: Coordinate(latitude: -0.001, longitude: 0.011), on: line))
        #expect(result.coordinate == Coordinate(latitude: 0, longitude: 0.01))
        #expect(result.fraction == 1 || result.fraction == 0)
    }

    @Test func pointBesideTheSecondSegmentReportsItsIndex() throws {
        let result = try #require(PolylineProjection.nearest(to: Coordinate(latitude: 0.0075, longitude: 0.0102), on: line))
        #expect(result.segmentIndex == 1)
        #expect(abs(result.fraction - 0.75) < 1e-4)
    }

    @Test func offRouteDistanceOfARiderMatchesTheConstruction() throws {
        // A rider 25 m to the side of a 2 km straight road, 700 m along it.
        let a = Coordinate(latitude: 52.52, longitude: 13.40)
        let b = a.destination(distanceMeters: 2_000, bearingDegrees: 75)
        let rider = a.destination(distanceMeters: 700, bearingDegrees: 75).destination(distanceMeters: 25, bearingDegrees: 165)
        let result = try #require(PolylineProjection.nearest(to: rider, on: [a, b]))
        #expect(abs(result.distanceMeters - 25) < 0.05)
        #expect(abs(result.fraction - 0.35) < 1e-3)
    }
}
