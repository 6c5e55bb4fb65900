import Foundation
import Testing
import RideKit
import TestSupport

/// A file's figures are the sums of its tracks' figures, each track measured on its own; and the average speed
/// is the distance over the moving time shown with it.
@Suite struct TrackStatsTotalsTests {
    /// `bikeride stats` of a file (streamed, the figures computed on the background thread).
    static func summary(of bytes: [UInt8]) throws -> GPXSummary {
        var handler = GPXSummaryHandler(activity: .ride)
        _ = try GPXReader.parse(bytes: bytes, into: &handler)
        return handler.summary()
    }

    static func expectSums(_ file: TrackStats, _ tracks: [TrackStats]) {
        // Exactly: the same additions in the same order, starting from the first track.
        #expect(file.distanceMeters == tracks.map(\.distanceMeters).reduce(0, +))
        #expect(file.ascentMeters == tracks.map(\.ascentMeters).reduce(0, +))
        #expect(file.descentMeters == tracks.map(\.descentMeters).reduce(0, +))
        #expect(file.movingSeconds == tracks.map(\.movingSeconds).reduce(0, +))
        #expect(file.stoppedSeconds == tracks.map(\.stoppedSeconds).reduce(0, +))
        #expect(file.elapsedSeconds == tracks.map(\.elapsedSeconds).reduce(0, +))
        #expect(file.pointCount == tracks.map(\.pointCount).reduce(0, +))
        #expect(file.maxSpeedMetersPerSecond == tracks.map(\.maxSpeedMetersPerSecond).max())
    }

    @Test func blueHillsIsTheSumOfItsThreeTracks() throws {
        let bytes = Array(try Data(contentsOf: Fixtures.url("gpx/togeojson/blue_hills.gpx")))
        let document = try GPXReader.read(bytes: bytes)
        #expect(document.tracks.count == 3)
        let tracks = document.tracks.map { $0.stats(activity: .ride) }
        Self.expectSums(try Self.summary(of: bytes).stats, tracks)
        Self.expectSums(document.stats(activity: .ride), tracks)
        // After a round trip through GPX (what import and export do), each track measures the same.
        let again = try GPXReader.read(bytes: GPXWriter.write(document))
        #expect(again.tracks.map { $0.stats(activity: .ride).distanceMeters } == tracks.map(\.distanceMeters))
    }

    /// Three synthetic tracks: a noisy ride with a stop, a hilly one, one without times.
    @Test func aSyntheticFileIsTheSumOfItsTracks() throws {
        let start = Coordinate(latitude: 45.5, longitude: 6.2)
        let first = RideWithStop(
            path: SyntheticRide.line(from: start, bearingDegrees: 30), lengthMeters: 3_000, speedMetersPerSecond: 7, stopAtMeters: 1_500,
            stopSeconds: 300, stopScatter: .independent(sigmaMeters: 4), seed: 3
        ).points()
        let second = SyntheticRide(
            path: SyntheticRide.circle(center: start, radiusMeters: 400), lengthMeters: 5_000, speedMetersPerSecond: 5,
            elevation: { 600 + 40 * sin($0 / 500) }, horizontalJitterMeters: 2, verticalNoiseMeters: 1, startSeconds: 1_700_100_000, seed: 4
        ).points()
        var third = SyntheticRide(path: SyntheticRide.line(from: start, bearingDegrees: 200), lengthMeters: 800, seed: 5).points()
        for index in third.indices { third[index].time = nil }
        let tracks = [first, second, third].map { Track(segments: [TrackSegment(points: $0)]) }
        let document = GPXDocument(tracks: tracks)
        let perTrack = tracks.map { $0.stats(activity: .ride) }
        Self.expectSums(document.stats(activity: .ride), perTrack)
        Self.expectSums(try Self.summary(of: GPXWriter.write(document)).stats, perTrack)
        // The track without times adds distance but no time.
        #expect(perTrack[2].movingSeconds == 0 && perTrack[2].distanceMeters > 700)
    }

    @Test func averageSpeedIsDistanceOverMovingTime() throws {
        for file in ["gpx/togeojson/blue_hills.gpx", "gpx/gpxpy/cerknicko-jezero.gpx", "gpx/georust-gpx/garmin-activity.gpx"] {
            let stats = try Self.summary(of: Array(try Data(contentsOf: Fixtures.url(file)))).stats
            #expect(stats.movingSeconds > 0)
            #expect(stats.averageSpeedMetersPerSecond == stats.distanceMeters / stats.movingSeconds, "\(file)")
            let pace = try #require(stats.averageMovingPaceSecondsPerKilometer)
            #expect(abs(pace * stats.averageSpeedMetersPerSecond - 1000) < 1e-9, "\(file)")
        }
        // The track page: 17.88 km in 1:24:57 reads 12.6 km/h, whatever was covered while stopped.
        var stats = TrackStats()
        stats.distanceMeters = 17_880
        stats.movingSeconds = 5_097
        stats.movingDistanceMeters = 16_560
        #expect(abs(stats.averageSpeedMetersPerSecond * 3.6 - 12.63) < 0.01)
        #expect(UnitSystem.metric.formatSpeed(metersPerSecond: stats.averageSpeedMetersPerSecond) == "12.6 km/h")
    }

    @Test func storedAverageIsDerivedAgainWhenDecoded() throws {
        var stats = TrackStats()
        stats.distanceMeters = 10_000
        stats.movingSeconds = 2_000
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(stats)) as! [String: Any]
        #expect(json["averageSpeedMetersPerSecond"] as? Double == 5)
        json["averageSpeedMetersPerSecond"] = 99.0
        let decoded = try JSONDecoder().decode(TrackStats.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(decoded.averageSpeedMetersPerSecond == 5)
    }
}
