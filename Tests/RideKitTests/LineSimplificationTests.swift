import Foundation
import Testing
import RideKit
import TestSupport

@Suite struct LineSimplificationTests {
    @Test(arguments: [0, 1, 2])
    func fewPointsAreAllKept(_ count: Int) {
        let points = (0..<count).map { Coordinate(latitude: Double($0) * 0.001, longitude: 0) }
        #expect(LineSimplification.douglasPeuckerIndices(of: points, toleranceMeters: 10) == Array(0..<count))
    }

    @Test func straightLineKeepsOnlyItsEnds() {
        let start = Coordinate(latitude: 45, longitude: 7)
        let points = (0...100).map { start.destination(distanceMeters: Double($0) * 10, bearingDegrees: 60) }
        #expect(LineSimplification.douglasPeuckerIndices(of: points, toleranceMeters: 0.01) == [0, 100])
    }

    @Test func cornerIsKeptAndWigglesUnderTheToleranceAreNot() {
        // An L: 500 m east, then 500 m north, each leg with 2 m wiggles.
        let start = Coordinate(latitude: 45, longitude: 7)
        var points: [Coordinate] = []
        for i in 0...50 { points.append(offset(start, east: Double(i) * 10, north: i % 2 == 0 ? 0 : 2)) }
        for i in 1...50 { points.append(offset(start, east: 500 + (i % 2 == 0 ? 0 : 2), north: Double(i) * 10)) }
        #expect(LineSimplification.douglasPeuckerIndices(of: points, toleranceMeters: 5) == [0, 50, 100])
        #expect(LineSimplification.douglasPeuckerIndices(of: points, toleranceMeters: 1).count > 50)
    }

    @Test func everyDroppedPointIsWithinTheTolerance() {
        var random = SeededGenerator(seed: 17)
        var position = Coordinate(latitude: 60, longitude: 10)
        var bearing = 0.0
        var points: [Coordinate] = []
        for _ in 0..<3_000 {
            points.append(position)
            bearing += random.symmetric(30)
            position = position.destination(distanceMeters: 5, bearingDegrees: bearing)
        }
        let kept = LineSimplification.douglasPeuckerIndices(of: points, toleranceMeters: 8)
        #expect(kept.first == 0 && kept.last == points.count - 1)
        for (a, b) in zip(kept, kept.dropFirst()) {
            let segment = [points[a], points[b]]
            for index in (a + 1)..<b {
                let distance = PolylineProjection.nearest(to: points[index], on: segment)!.distanceMeters
                #expect(distance <= 8 * 1.006, "point \(index) is \(distance) m off")
            }
        }
    }

    @Test func aMillionPointsDoNotExhaustTheStack() {
        var random = SeededGenerator(seed: 23)
        var latitude = 48.0, longitude = 2.0
        var points: [Coordinate] = []
        points.reserveCapacity(1_000_000)
        for _ in 0..<1_000_000 {
            latitude += random.symmetric(0.00005)
            longitude += 0.00003 + random.symmetric(0.00005)
            points.append(Coordinate(latitude: latitude, longitude: longitude))
        }
        let kept = LineSimplification.douglasPeuckerIndices(of: points, toleranceMeters: 20)
        #expect(kept.first == 0 && kept.last == 999_999)
        #expect(kept.count < points.count)
    }
}
