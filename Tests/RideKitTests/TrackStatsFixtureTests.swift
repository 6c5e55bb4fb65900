import Testing
import RideKit
import TestSupport

/// Stats that upstream projects assert on their own fixtures (../shared/fixtures/SOURCES.md), read as
/// `bikeride stats` reads them; where bikeride defines a figure differently, the test says how the two
/// relate.
@Suite struct TrackStatsFixtureTests {
    static func summary(_ file: String, activity: ActivityKind = .ride) throws -> GPXSummary {
        var handler = GPXSummaryHandler(activity: activity)
        let report = try GPXReader.parse(contentsOf: Fixtures.url("gpx/" + file), into: &handler)
        return handler.summary(report: report)
    }

    @Test func trackWithoutTimesHasItsLengthAndNoDuration() throws {
        // ruby-gpx: 588 points, distance ≈ 40.76 km, duration 0.
        let summary = try Self.summary("ruby-gpx/one_segment_mixed_times.gpx")
        #expect(summary.points == 588)
        #expect(abs(summary.stats.distanceMeters - 40_760) < 0.001 * 40_760)
        #expect(summary.stats.elapsedSeconds == 0)
        #expect(summary.stats.movingSeconds == 0)
        #expect(summary.stats.averageSpeedMetersPerSecond == 0)
    }

    @Test func emptySegmentsAfterARealOneLeaveDurationAndAverageAlone() throws {
        // ruby-gpx: duration 21 s, moving duration 21 s, average speed 6.674040636626879 — in km/h, and
        // defined as distance / the segments' durations. bikeride's average is moving distance / moving
        // time; every interval of this file is moving, so the two are the same figure: 1.854 m/s.
        let summary = try Self.summary("ruby-gpx/with_empty_tracks.gpx")
        #expect(summary.tracks == 1)
        #expect(summary.stats.elapsedSeconds == 21)
        #expect(summary.stats.movingSeconds == 21)
        #expect(summary.stats.movingDistanceMeters == summary.stats.distanceMeters)
        #expect(relativeError(summary.stats.averageSpeedMetersPerSecond * 3.6, 6.674040636626879) < 0.005)
    }

    @Test func recordedSpeedsSetTheMaximumOfTheOpenTracksFile() throws {
        // OpenTracks: max speed 5.0 m/s and moving time 101 s. The file records speeds 5, 4 and 3 m/s, and
        // they set bikeride's maximum too — as the median of the three (4.0), since one reading alone cannot
        // set it. The positions go 38 m out and come back to the same spot in 101 s: 0.76 m/s, which is
        // under a ride's stopped speed (1 m/s) and over a walk's (0.3 m/s), so the same 101 s are moving for
        // a walk, as OpenTracks counts them, and stopped for a ride.
        let ride = try Self.summary("opentracks/gpx11_with_speed_no_namespace.gpx")
        #expect(ride.points == 3)
        #expect(ride.stats.maxSpeedMetersPerSecond == 4)
        #expect(ride.stats.movingSeconds == 0)
        #expect(ride.stats.stoppedSeconds == 101)
        let walk = try Self.summary("opentracks/gpx11_with_speed_no_namespace.gpx", activity: .walk)
        #expect(walk.stats.movingSeconds == 101)
        #expect(walk.stats.maxSpeedMetersPerSecond == 4)
    }

    @Test func fileWithoutElevationsHasNoClimbAndNoElevationRange() throws {
        // gpxpy: no elevations, so no extremes and uphill/downhill 0.
        let bare = try Self.summary("gpxpy/cerknicko-jezero-without-elevations.gpx")
        #expect(bare.stats.ascentMeters == 0 && bare.stats.descentMeters == 0)
        #expect(bare.stats.minElevationMeters == nil && bare.stats.maxElevationMeters == nil)
        // The same track with elevations measures the same (to the centimetre: the two files' coordinates
        // are not written identically).
        let full = try Self.summary("gpxpy/cerknicko-jezero.gpx")
        #expect(abs(full.stats.distanceMeters - bare.stats.distanceMeters) < 0.1)
        #expect(full.stats.ascentMeters > 100)
    }

    @Test func fileWhoseTimesWereStrippedHasNoTimeFigures() throws {
        // gpxpy: has_times() is false. 6 of its 296 points kept a time (57 s of a 4.6 km track): leftovers,
        // so bikeride gives no elapsed or moving time, and no speed, but the whole distance.
        let summary = try Self.summary("gpxpy/cerknicko-without-times.gpx")
        #expect(summary.stats.elapsedSeconds == 0)
        #expect(summary.stats.movingSeconds == 0)
        #expect(summary.stats.averageSpeedMetersPerSecond == 0)
        #expect(summary.stats.maxSpeedMetersPerSecond == 0)
        // Without times, stops cannot be told (StationarityClassifier): the wander of the fixes during the 46
        // minutes this rider stood still (gpxpy's stopped time) counts, so the distance is a little longer.
        let timed = try Self.summary("gpxpy/cerknicko-jezero.gpx")
        #expect(summary.stats.distanceMeters >= timed.stats.distanceMeters)
        #expect(relativeError(summary.stats.distanceMeters, timed.stats.distanceMeters) < 0.02)
    }

    @Test func carDriveRecordedAsARideKeepsOnlyItsPlausibleSpeeds() throws {
        // gpxpy's first_and_last_elevation.gpx: 10 fixes minutes apart, one leg at 6.3 m/s, then seven at
        // 54 m/s (196 km/h), and a last fix an hour back in time. As a ride, legs over 40 m/s are data errors,
        // so the maximum is the one plausible leg's speed, while distance and moving time keep the whole drive.
        let summary = try Self.summary("gpxpy/first_and_last_elevation.gpx")
        #expect(abs(summary.stats.maxSpeedMetersPerSecond - 6.29) < 0.01)
        // gpxpy 1.6.2 measures 195,708.1 m (Tests/tools/gpxpy_stats.py: length_2d) on a sphere of the
        // equatorial radius, which at these latitudes (45–46°N, legs both north–south and east–west) is within
        // 0.2 % of the ellipsoid (docs/stats.md): so within 0.3 %.
        #expect(relativeError(summary.stats.distanceMeters, 195_708.1) < 0.003)
        #expect(summary.stats.movingSeconds == 7_200)
    }
}
