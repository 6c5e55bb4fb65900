import Foundation
import RideKit

/// The rules of a phone app's posts that both stores follow: which fixes are taken, how a fix becomes a point,
/// what a device's live track is called, and when its figures are computed again.
package enum DeviceIngestRules {
    /// Fixes both stores take: coordinates in range, every other value finite. The server's payload readers
    /// make only such fixes (`TrackerFix.checked`); this keeps any other caller from storing NaN.
    package static func validate(_ fixes: [TrackerFix]) throws {
        for fix in fixes {
            guard Coordinate(latitude: fix.latitude, longitude: fix.longitude).isValid else {
                throw RideStoreError.invalid(field: "fix", reason: "position \(fix.latitude), \(fix.longitude) is not a valid coordinate")
            }
            let values = [fix.elevationMeters, fix.speedMetersPerSecond, fix.courseDegrees, fix.accuracyMeters, fix.batteryPercent]
            guard fix.time.timeIntervalSince1970.isFinite, values.allSatisfy({ $0?.isFinite ?? true }) else {
                throw RideStoreError.invalid(field: "fix", reason: "holds a value that is not a finite number")
            }
        }
    }

    /// The gap (ms) after which a device's next fix starts a new track: the configured one, a minute at least.
    package static func gapMilliseconds(_ gapSeconds: Double) -> Int64 { Int64(max(60, gapSeconds) * 1000) }

    /// A fix as a point of the device's track.
    package static func trackPoint(_ fix: TrackerFix) -> TrackPoint {
        TrackPoint(
            latitude: fix.latitude, longitude: fix.longitude, elevation: fix.elevationMeters, time: GPXTime(date: fix.time),
            speedMetersPerSecond: fix.speedMetersPerSecond, courseDegrees: fix.courseDegrees)
    }

    /// A device's live track's name: the device's and the first fix's day (UTC), "Phone 2024-05-04".
    package static func trackName(deviceName: String, at time: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return "\(deviceName) \(formatter.string(from: time))"
    }

    /// Whether a live track of `pointCount` points, whose figures cover `figuresPointCount` points up to the fix at
    /// `figuresUntil` (ms), gets them computed again now: at least 1 % more points, and either a minute more of
    /// riding or 5 % more points (60 at least: a device sending a fix a second is computed once a minute, not every
    /// 10 posts). So the list shows a live track's distance within about a minute, and the work stays linear in the
    /// points however a device posts (each computation over n points follows at least n/100 new ones).
    package static func figuresAreDue(pointCount: Int, figuresPointCount: Int?, figuresUntil: Int64?, lastFixTime: Int64) -> Bool {
        let added = pointCount - (figuresPointCount ?? 0)
        return added >= max(1, pointCount / 100) && (added >= max(60, pointCount / 20) || lastFixTime - (figuresUntil ?? 0) >= 60_000)
    }

    /// A device track's latest fixes, not in its blocks yet, end its last segment (where they will be appended).
    package static func appendWaiting(_ fixes: [TrackerFix], to content: inout TrackContent) {
        guard !fixes.isEmpty else { return }
        if content.tracks.isEmpty { content.tracks.append(PackedTrack(header: Track(), segments: [])) }
        if content.tracks[0].segments.isEmpty { content.tracks[0].segments.append(PackedSegment()) }
        let last = content.tracks[0].segments.count - 1
        content.tracks[0].segments[last].points.append(contentsOf: fixes.map(trackPoint))
    }
}
