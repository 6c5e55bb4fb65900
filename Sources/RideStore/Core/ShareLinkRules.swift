import Foundation
import RideKit

/// When a share link shows something, the same in both stores: each reads the link's row by its token (with
/// whether its place, or its device, is still the owner's) and asks here.
package enum ShareLinkRules {
    /// What a link shows: a place, or a device's live position. The stored `targetKind`.
    package enum Target: String, Sendable {
        case place
        case device
        /// A ride (issue 23): `/ride/{token}`.
        case track
    }

    /// What the store keeps of a link's token (DESIGN 5): its SHA-256, lower-case hex, as for sessions and devices.
    /// Every lookup hashes the token in the address; a database leak gives no working link.
    package static func storedToken(_ token: String) -> String { SecretToken.hash(token) }

    /// A place link shows its place while it is not revoked and the place is still its owner's and not deleted.
    package static func placeLinkShows(targetKind: String, revokedAt: Date?, placeIsTheOwners: Bool) -> Bool {
        targetKind == Target.place.rawValue && revokedAt == nil && placeIsTheOwners
    }

    /// A live share shows its device while it is not revoked, not expired at `now` (to the millisecond, as stored), the device is still its owner's,
    /// and - made for one ride (`madeForRide`) - while that ride is still being recorded.
    package static func liveShareShows(
        targetKind: String, revokedAt: Date?, expiresAt: Date?, now: Date, deviceIsTheOwners: Bool, madeForRide: TrackID?, rideIsRecording: Bool
    ) -> Bool {
        guard targetKind == Target.device.rawValue, revokedAt == nil, deviceIsTheOwners, let expiresAt,
            StoreClock.milliseconds(expiresAt) > StoreClock.milliseconds(now)
        else { return false }
        return madeForRide == nil || rideIsRecording
    }
}
