import Foundation
import Testing
import RideKit

@Suite struct TrackStatsDocumentTests {
    static let start = Coordinate(latitude: 35.6812, longitude: 139.7671)

    static func line(_ meters: Double, bearing: Double, seed: UInt64) -> [TrackPoint] {
        SyntheticRide(path: SyntheticRide.line(from: start, bearingDegrees: bearing), lengthMeters: meters, seed: seed).points()
    }

    @Test func documentStatsCoverEveryTrack() {
        let document = GPXDocument(tracks: [
            Track(segments: [TrackSegment(points: Self.line(1_000, bearing: 0, seed: 1))]),
            Track(segments: [TrackSegment(points: Self.line(2_000, bearing: 90, seed: 2))]),
        ])
        let result = document.stats()
        #expect(abs(result.distanceMeters - 3_000) < 0.01)
        #expect(result.segmentCount == 2)
    }

    @Test func documentWithoutTracksIsMeasuredOnItsRoutes() {
        let corners = [Self.start, offset(Self.start, east: 3_000, north: 0), offset(Self.start, east: 3_000, north: 4_000)]
        let route = Route(points: corners.map { TrackPoint(latitude: $0.latitude, longitude: $0.longitude) })
        #expect(abs(route.distanceMeters - 7_000) < 1)
        let result = GPXDocument(routes: [route]).stats()
        #expect(abs(result.distanceMeters - 7_000) < 1)
        #expect(result.pointCount == 3)
    }

    @Test func statsRoundTripThroughJSON() throws {
        var points = Self.line(1_500, bearing: 45, seed: 3)
        for index in points.indices { points[index].elevation = 100 + Double(index) * 0.1 }
        points[0].time = try GPXTime(parsing: "2023-11-14T23:13:20.5+05:30")
        let original = stats(of: points, activity: .run)
        let data = try JSONEncoder().encode(original)
        let decoded = try JSONDecoder().decode(TrackStats.self, from: data)
        #expect(decoded == original)
        #expect(decoded.startTime?.rfc3339 == "2023-11-14T23:13:20.5+05:30")
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"minLatitude\""))
    }

    @Test(arguments: ActivityKind.allCases)
    func everyActivityStopsBelowItsPlausibleSpeed(_ activity: ActivityKind) {
        #expect(activity.stoppedSpeedMetersPerSecond > 0)
        #expect(activity.stoppedSpeedMetersPerSecond < activity.maxPlausibleSpeedMetersPerSecond)
        #expect(ActivityKind(rawValue: activity.rawValue) == activity)
    }
}
