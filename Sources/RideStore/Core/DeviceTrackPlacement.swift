/// Where a device's new fixes go, one at a time in time order (the device-ingest plan both stores follow): into
/// its live track, a new one after a gap, or no track when they come too late. The store inserts the fixes, then
/// asks for each one stored and does what the decision says in its own SQL.
///
/// ```
/// var placement = DeviceTrackPlacement(hasLiveTrack: true, bounds: (0, 60_000), gapMilliseconds: 1_800_000)
/// placement.place(120_000)    // .append(finishesLive: false, startsTrack: false)
/// placement.place(30_000)     // .rebuild: before the last fix, the track's points are written again in order
/// placement.place(4_000_000)  // .append(finishesLive: true, startsTrack: true): more than the gap after
/// ```
///
/// A live track that holds `maximumPoints` (`StorageLimits.maximumTrackPoints`, as uploads and recordings) is full:
/// the next fix after its last starts a new track, as a gap would, so a ride that goes on is kept whole across two
/// tracks and the app is answered as always (an app refused would send the same post for ever); a fix within the
/// full track's time is stored in no track (`.late`).
package struct DeviceTrackPlacement {
    /// What to do with one fix.
    package enum Decision: Equatable, Sendable {
        /// More than the gap before the live track's first fix: stored, in no track.
        case late
        /// After the live track's last fix: appended to its end. `finishesLive`: the live track ended more than the gap
        /// before, so it is finished first; `startsTrack`: a new live track is started for the fix (after finishing
        /// one, or when the device had none).
        case append(finishesLive: Bool, startsTrack: Bool)
        /// Within the live track's time but not after its last fix: its points are written again in time order.
        case rebuild
    }

    /// The live track's first and last fix times (ms), nil while it has no fix (or there is none).
    package private(set) var bounds: (first: Int64, last: Int64)?
    private var hasLiveTrack: Bool
    private let gap: Int64
    /// Points in the live track now, and the most one may hold (nil: no limit).
    private var pointCount: Int
    private let maximumPoints: Int?

    /// The device's state before the post: whether it has a live track, that track's fix times and point count.
    package init(hasLiveTrack: Bool, bounds: (Int64, Int64)?, gapMilliseconds: Int64, pointCount: Int = 0, maximumPoints: Int? = nil) {
        self.hasLiveTrack = hasLiveTrack
        self.bounds = hasLiveTrack ? bounds.map { (first: $0.0, last: $0.1) } : nil
        gap = gapMilliseconds
        self.pointCount = hasLiveTrack ? pointCount : 0
        self.maximumPoints = maximumPoints.map { max(1, $0) }
    }

    /// The decision for the next fix stored (at `time`, ms); fixes come in time order.
    package mutating func place(_ time: Int64) -> Decision {
        var finishesLive = false
        if hasLiveTrack, let (first, last) = bounds {
            if time > last + gap {
                finishesLive = true
                hasLiveTrack = false
                bounds = nil
            } else if time < first - gap {
                return .late
            } else if let maximumPoints, pointCount >= maximumPoints {
                guard time > last else { return .late }
                finishesLive = true
                hasLiveTrack = false
                bounds = nil
            }
        }
        let startsTrack = !hasLiveTrack
        if startsTrack { pointCount = 0 }
        pointCount += 1
        hasLiveTrack = true
        guard let (first, last) = bounds else {
            bounds = (time, time)
            return .append(finishesLive: finishesLive, startsTrack: startsTrack)
        }
        bounds = (min(first, time), max(last, time))
        return time > last ? .append(finishesLive: false, startsTrack: false) : .rebuild
    }
}
