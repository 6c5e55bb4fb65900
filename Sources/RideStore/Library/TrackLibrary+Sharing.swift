import Foundation
import RideKit

/// What someone who holds a ride link sees of it (issue 23): the track through the owner's privacy zones and hidden
/// ends (`PrivacyClip`), without what the link's options leave out, and the figures of exactly that.
public struct SharedRide: Sendable {
    public var share: RideShare
    public var name: String
    public var kind: TrackKind
    /// The shown points: position, elevation, and time, heart rate, cadence, power as the options allow; nothing
    /// else of the point (names, extensions) travels.
    public var track: Track
    /// The figures of `track`, measured on what is shown.
    public var stats: TrackStats
    /// The elevation and speed profiles of what is shown (speeds from the times even when they are hidden).
    public var profile: TrackProfile
    /// True when something was left out for the owner's privacy (zones or hidden ends).
    public var isClipped: Bool
    /// What the bike computer or watch measured (its totals and laps), without what the options leave out: no
    /// start times with `hideStartTime`, no heart rate or power with theirs. Figures only, never a position.
    public var device: DeviceMeasurements?
}

extension TrackLibrary {
    /// The ride behind a link, whoever its owner; nil when the link is unknown, revoked, expired or its track gone
    /// (all the same to the caller: one 404).
    public func sharedRide(token: String, now: Date = Date()) async throws -> SharedRide? {
        guard let share = try await store.rideShare(token: token, now: now),
              let stored = try await store.track(id: share.trackID, userID: share.userID), stored.summary.deletedAt == nil
        else { return nil }
        let settings = try await store.privacySettings(userID: share.userID)
        let segments = try stored.lineSegments()
        let clipped = settings.clip(rideKey: Self.rideKey(track: share.trackID)).clip(segments.map(\.points))
        let options = share.options
        let shown = clipped.map { points in
            TrackSegment(points: points.map { point in
                TrackPoint(
                    latitude: point.latitude, longitude: point.longitude, elevation: point.elevation,
                    time: options.hideStartTime ? nil : point.time,
                    heartRate: options.hideHeartRate ? nil : point.heartRate, cadence: point.cadence,
                    powerWatts: options.hidePower ? nil : point.powerWatts)
            })
        }
        // Figures from the points with their times (durations and speeds stay when the clock time is hidden).
        let measured = Track(segments: clipped.map { TrackSegment(points: $0) })
        let originalCount = segments.reduce(0) { $0 + $1.points.count }
        return SharedRide(
            share: share, name: stored.summary.name, kind: stored.summary.kind, track: Track(name: stored.summary.name, segments: shown),
            stats: measured.stats(activity: stored.summary.kind.activity), profile: TrackProfile(track: measured, maximumSamples: 300),
            isClipped: clipped.reduce(0) { $0 + $1.count } != originalCount,
            device: stored.device.map { Self.shared($0, options: options) })
    }

    /// The device's figures as a link with `options` may show them.
    static func shared(_ device: DeviceMeasurements, options: RideShareOptions) -> DeviceMeasurements {
        func shown(_ figures: DeviceFigures) -> DeviceFigures {
            var figures = figures
            if options.hideStartTime { figures.startTime = nil }
            if options.hideHeartRate { figures.averageHeartRate = nil; figures.maxHeartRate = nil }
            if options.hidePower { figures.averagePowerWatts = nil; figures.maxPowerWatts = nil }
            return figures
        }
        return DeviceMeasurements(totals: device.totals.map(shown), laps: device.laps.map(shown))
    }

    /// The key a ride's cut is derived from (with the owner's secret): the same for every link to one track.
    public static func rideKey(track: TrackID) -> String { "track:\(track.rawValue)" }
    /// A device's live track's key; a device's fixes outside any track use the device's.
    public static func rideKey(liveTrack: TrackID?, device: DeviceID) -> String {
        liveTrack.map { rideKey(track: $0) } ?? "device:\(device.rawValue)"
    }
}
