import RideKit
import Testing

@Suite struct RideSimulatorTests {
    @Test func theCupertinoLoopIsAClosedLoopOfAboutSixKilometres() {
        let simulator = RideSimulator(route: RideSimulator.cupertinoLoop, speedMetersPerSecond: 5)
        #expect(RideSimulator.cupertinoLoop.first?.coordinate == RideSimulator.cupertinoLoop.last?.coordinate)
        #expect((5_500...7_000).contains(simulator.routeLengthMeters), "\(simulator.routeLengthMeters)")
    }

    @Test(arguments: [1.5, 5.0, 12.0])
    func fixesLieOnTheRouteAtTheChosenSpeed(speed: Double) {
        let simulator = RideSimulator(route: RideSimulator.cupertinoLoop, speedMetersPerSecond: speed)
        let fixes = simulator.fixes(startingAt: GPXTime(secondsSince1970: 1_700_000_000))
        #expect(fixes.first?.coordinate == RideSimulator.cupertinoLoop.first?.coordinate)
        #expect(fixes.last!.coordinate.distanceMeters(to: RideSimulator.cupertinoLoop.last!.coordinate) < 0.01)
        #expect(fixes.map(\.sequence) == Array(1...Int64(fixes.count)))
        let seconds = fixes.last!.time!.timeIntervalSince1970 - fixes.first!.time!.timeIntervalSince1970
        #expect(abs(seconds - simulator.routeLengthMeters / speed) < 0.01)
        // Consecutive fixes are one interval of travel apart, less only where the route turns a corner.
        for (a, b) in zip(fixes, fixes.dropFirst()) {
            #expect(a.coordinate.distanceMeters(to: b.coordinate) <= speed + 1e-6)
        }
    }

    @Test func recordingTheSimulatedRideMeasuresTheRoutesLength() throws {
        let simulator = RideSimulator(route: RideSimulator.cupertinoLoop, speedMetersPerSecond: 5)
        var recorder = Recorder()
        try recorder.start()
        let update = try recorder.append(simulator.fixes(startingAt: GPXTime(secondsSince1970: 1_700_000_000)))
        #expect(abs(update.stats.distanceMeters / simulator.routeLengthMeters - 1) < 0.005)
    }

    @Test func emptyAndOnePointRoutes() {
        #expect(RideSimulator(route: [], speedMetersPerSecond: 5).fixes(startingAt: GPXTime(secondsSince1970: 0)).isEmpty)
        let one = RideSimulator(route: [TrackPoint(latitude: 1, longitude: 2)], speedMetersPerSecond: 5)
        #expect(one.fixes(startingAt: GPXTime(secondsSince1970: 0)).count == 1)
    }

    @Test func aTrackIsReplayedThroughAllItsSegments() {
        let track = Track(segments: [
            TrackSegment(points: [TrackPoint(latitude: 0, longitude: 0), TrackPoint(latitude: 0, longitude: 0.001)]),
            TrackSegment(points: [TrackPoint(latitude: 0, longitude: 0.002)]),
        ])
        let simulator = RideSimulator(track: track, speedMetersPerSecond: 10)
        let fixes = simulator.fixes(startingAt: GPXTime(secondsSince1970: 0))
        #expect(abs(simulator.routeLengthMeters - 222.64) < 0.1)
        #expect(fixes.count == 24)  // 0, 10, … 220 m, and the end at 222.6 m
    }
}
