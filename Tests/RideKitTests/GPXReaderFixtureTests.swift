import Foundation
import Testing

@testable import RideKit

@Suite struct GPXReaderFixtureTests {
    @Test(arguments: Fixtures.wellFormedGPX)
    func everyWellFormedFixtureParses(_ path: String) throws {
        let document = try GPXReader.read(contentsOf: Fixtures.url(path))
        let points = document.tracks.reduce(0) { $0 + $1.points.count } + document.routes.reduce(0) { $0 + $1.points.count }
            + document.waypoints.count
        print("\(path): \(document.tracks.count) trk, \(points) points")
    }
}
