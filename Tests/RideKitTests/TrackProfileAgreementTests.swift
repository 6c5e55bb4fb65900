import Foundation
import Testing
import RideKit
import TestSupport

/// The charts and the figures tell one truth: on every real track, the elevation and speed profile ends at the
/// track's distance, never shows a speed over its maximum, and never an altitude the figures dropped.
@Suite struct TrackProfileAgreementTests {
    /// Every track of every well-formed GPX fixture and every FIT fixture that reads, with its activity.
    static let tracks: [(name: String, track: Track, activity: ActivityKind)] = {
        var result: [(String, Track, ActivityKind)] = []
        for path in Fixtures.wellFormedGPX {
            guard let document = try? GPXReader.read(contentsOf: Fixtures.url(path)) else { continue }
            for (index, track) in document.tracks.enumerated() where track.segments.contains(where: { $0.points.count > 1 }) {
                result.append(("\(path)#\(index)", track, .ride))
            }
        }
        for path in Fixtures.files(under: "fit") where path.lowercased().hasSuffix(".fit") {
            guard let bytes = try? Fixtures.bytes(path), let activity = try? DeviceFileReader.read(bytes: bytes, format: .fit, lenient: true)
            else { continue }
            for (index, track) in activity.document.tracks.enumerated() where track.segments.contains(where: { $0.points.count > 1 }) {
                result.append(("\(path)#\(index)", track, activity.kind?.activity ?? .ride))
            }
        }
        return result
    }()

    @Test func everyRealTrackIsCheckedHere() {
        #expect(Self.tracks.count >= 40)
    }

    @Test func theProfileEndsAtTheTracksDistanceAndStaysUnderItsMaximumSpeed() {
        for (name, track, activity) in Self.tracks {
            let stats = track.stats(activity: activity)
            let profile = TrackProfile(track: track, activity: activity)
            guard let last = profile.distanceMeters.last else {
                Issue.record("\(name): no samples")
                continue
            }
            #expect(abs(last - stats.distanceMeters) <= 1e-6 * max(1, stats.distanceMeters), "\(name): \(last) m against \(stats.distanceMeters) m")
            let fastest = profile.speedMetersPerSecond.compactMap { $0 }.max() ?? 0
            #expect(fastest <= stats.maxSpeedMetersPerSecond + 1e-9, "\(name): chart \(fastest) m/s, maximum \(stats.maxSpeedMetersPerSecond) m/s")
            if let low = stats.minElevationMeters, let high = stats.maxElevationMeters {
                for elevation in profile.elevationMeters.compactMap({ $0 }) {
                    #expect(elevation >= low - 1 && elevation <= high + 1, "\(name): \(elevation) m outside \(low)…\(high)")
                }
            }
        }
    }

    @Test func aWalkWithAltitudeDivesAndAWildFixChartsWhatWasWalked() throws {
        var points = TrackStatsAltitudeTests.walkWithDives()
        // One fix 300 m off for a second: no 400 km/h on the chart.
        points[500].latitude += 300 / 111_000
        let track = Track(segments: [TrackSegment(points: points)])
        let stats = track.stats(activity: .walk)
        let profile = TrackProfile(track: track, activity: .walk)
        #expect(abs(try #require(profile.distanceMeters.last) - stats.distanceMeters) < 1e-6)
        #expect(abs(stats.distanceMeters - 5_900) < 60)
        #expect(profile.elevationMeters.compactMap { $0 }.allSatisfy { $0 > 500 })
        let fastest = profile.speedMetersPerSecond.compactMap { $0 }.max() ?? 0
        #expect(fastest < 2, "walked at 1.4 m/s, charted \(fastest) m/s")
    }
}
