import Foundation
import RideKit

/// A privacy zone's id.
public typealias PrivacyZoneID = ID<IDKind.PrivacyZone>

/// A privacy zone as stored: the circle, an optional name the owner gave it ("Home"), when it was made.
public struct StoredPrivacyZone: Sendable, Hashable {
    public var id: PrivacyZoneID
    public var zone: PrivacyZone
    public var name: String?
    public var createdAt: Date

    public init(id: PrivacyZoneID, zone: PrivacyZone, name: String?, createdAt: Date) {
        self.id = id
        self.zone = zone
        self.name = name
        self.createdAt = createdAt
    }
}

/// What a user hides from everyone else (issue 23), and the secret each ride's cut is moved by.
public struct PrivacySettings: Sendable, Hashable {
    public var zones: [StoredPrivacyZone]
    /// Metres hidden at each end of every ride (`PrivacyRules.hiddenEndRange`).
    public var hiddenEndMeters: Double
    /// 32 random bytes, never shown: with a ride's id, where its cuts fall (`PrivacySettingsRules.seed`). Empty
    /// while the user has set nothing.
    public var secret: Data

    public init(zones: [StoredPrivacyZone] = [], hiddenEndMeters: Double = 0, secret: Data = Data()) {
        self.zones = zones
        self.hiddenEndMeters = hiddenEndMeters
        self.secret = secret
    }

    public var rules: PrivacyRules { PrivacyRules(zones: zones.map(\.zone), hiddenEndMeters: hiddenEndMeters) }

    /// The clip for what others see of one ride (a track, or a device's live track): its cut is the same every
    /// time the ride is shown, and another ride's falls elsewhere.
    public func clip(rideKey: String) -> PrivacyClip {
        PrivacyClip(rules: rules, seed: PrivacySettingsRules.seed(secret: secret, rideKey: rideKey))
    }
}

/// What a shared ride leaves out besides the private zones (`POST /api/tracks/{id}/share`).
public struct RideShareOptions: Sendable, Hashable, Codable {
    /// No date or clock time on the page or in the downloads (durations and speeds stay).
    public var hideStartTime: Bool
    public var hideHeartRate: Bool
    public var hidePower: Bool

    public init(hideStartTime: Bool = false, hideHeartRate: Bool = false, hidePower: Bool = false) {
        self.hideStartTime = hideStartTime
        self.hideHeartRate = hideHeartRate
        self.hidePower = hidePower
    }
}

/// A link that shows one track, read-only, to whoever holds its token (`/ride/{token}`): a share link of kind
/// `track`, revoked by `revokeShareLink`, until `expiresAt` when it has one.
public struct RideShare: Sendable, Hashable {
    public var token: String
    public var userID: UserID
    public var trackID: TrackID
    public var options: RideShareOptions
    public var createdAt: Date
    public var expiresAt: Date?

    public init(token: String, userID: UserID, trackID: TrackID, options: RideShareOptions, createdAt: Date, expiresAt: Date?) {
        self.token = token
        self.userID = userID
        self.trackID = trackID
        self.options = options
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// One of the links a user has out and working (place, live or ride), for the list in Settings.
public struct ActiveShare: Sendable, Hashable {
    /// `place`, `device` (a live link) or `track`.
    public var kind: String
    /// What the store keeps of the link's token (its SHA-256, DESIGN 5): the link itself cannot be shown again, but
    /// `revokeShareLink` takes this id too.
    public var id: String
    public var targetID: ShortID
    /// The place's, device's or track's name when it has one.
    public var targetName: String?
    public var createdAt: Date
    public var expiresAt: Date?

    public init(kind: String, id: String, targetID: ShortID, targetName: String?, createdAt: Date, expiresAt: Date?) {
        self.kind = kind
        self.id = id
        self.targetID = targetID
        self.targetName = targetName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
