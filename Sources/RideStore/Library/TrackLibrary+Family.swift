import Foundation
import RideKit

/// A user who shares their live position with the library's user, and what of it may be shown (issue 23).
public struct FamilyMember: Sendable, Hashable {
    public var share: FamilyShare
    /// Their latest position, when they have one and it is not hidden.
    public var fix: TrackerFix?
    /// True when their latest position lies inside their privacy zones (or the hidden start of their ride) and so is
    /// not shown: "hidden near a private place".
    public var hidden: Bool

    public init(share: FamilyShare, fix: TrackerFix?, hidden: Bool) {
        self.share = share
        self.fix = fix
        self.hidden = hidden
    }
}

extension TrackLibrary {
    /// The users who share their live position with this library's user at `now`, by name, each with their latest
    /// position as others may see it (`shownLatestPosition`). Read from the store on every call: a revocation or an
    /// expiry holds at once, on every instance.
    public func familyMembers(now: Date = Date()) async throws -> [FamilyMember] {
        try await Self.familyMembers(of: userID, store: store, now: now)
    }

    /// `familyMembers(now:)` for any viewer (an OwnTracks post knows its device's user, not a library).
    public static func familyMembers(of viewer: UserID, store: any RideStore, now: Date = Date()) async throws -> [FamilyMember] {
        var members: [FamilyMember] = []
        for share in try await store.familyCircle(userID: viewer, now: now).sharedWithMe {
            let shown = try await shownLatestPosition(of: share.sharerID, store: store)
            members.append(FamilyMember(share: share, fix: shown.fix, hidden: shown.hidden))
        }
        return members
    }

    /// The latest fix of any of a user's devices as someone else may see it: through the user's privacy zones and
    /// the hidden start of the ride it belongs to, as the live link shows it (the same `PrivacyClip`, the same cut
    /// for the same ride). `hidden` when there is a latest fix and it may not be shown.
    ///
    /// Cost: one read of the latest fixes and the settings; with a hidden length, also the ride's fixes of the last
    /// 24 hours (at most 20,000).
    public static func shownLatestPosition(of owner: UserID, store: any RideStore) async throws -> (fix: TrackerFix?, hidden: Bool) {
        guard let latest = try await store.latestDeviceFixes(userID: owner).max(by: { $0.fix.time < $1.fix.time }) else { return (nil, false) }
        let settings = try await store.privacySettings(userID: owner)
        if settings.rules.isEmpty { return (latest.fix, false) }
        var path = [latest]
        if settings.hiddenEndMeters > 0, let track = latest.trackID {
            // The ride so far: its first metres are hidden as on the live link (a fix outside any ride is hidden whole).
            let earlier = try await store.deviceFixes(
                deviceID: latest.deviceID, userID: owner, since: latest.fix.time.addingTimeInterval(-24 * 3600), limit: 20_000)
            path = earlier.filter { $0.trackID == track && $0.fix.time < latest.fix.time } + [latest]
        }
        let clip = settings.clip(rideKey: rideKey(liveTrack: latest.trackID, device: latest.deviceID))
        let points = path.map { TrackPoint(latitude: $0.fix.latitude, longitude: $0.fix.longitude, time: GPXTime(date: $0.fix.time)) }
        let last = clip.clip([points], ends: .startOnly).last?.last
        let shown = last.map { $0.latitude == latest.fix.latitude && $0.longitude == latest.fix.longitude && $0.time == GPXTime(date: latest.fix.time) } ?? false
        return shown ? (latest.fix, false) : (nil, true)
    }
}
