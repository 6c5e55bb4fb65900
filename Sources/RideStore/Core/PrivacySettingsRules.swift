import Crypto
import Foundation
import RideKit

/// The privacy rules both stores follow (issue 23): what a zone and a hidden length may be, how many zones a
/// user keeps, the secret that moves each ride's cut, and when a ride share link shows its track.
package enum PrivacySettingsRules {
    /// Bytes of a user's secret.
    static let secretByteCount = 32
    /// The longest zone name kept.
    static let maximumNameLength = 100

    /// A zone to store, or `RideStoreError.invalid` naming what is wrong (a position out of range or NaN, a
    /// radius out of 100 m – 2 km, a name too long).
    package static func zone(_ zone: PrivacyZone, name: String?) throws -> (PrivacyZone, String?) {
        if let problem = PrivacyZone.problem(latitude: zone.center.latitude, longitude: zone.center.longitude, radiusMeters: zone.radiusMeters) {
            throw RideStoreError.invalid(field: "zone", reason: problem)
        }
        let cleaned = name?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let cleaned, cleaned.count > maximumNameLength {
            throw RideStoreError.invalid(field: "name", reason: "must be at most \(maximumNameLength) characters")
        }
        return (zone, cleaned?.isEmpty == true ? nil : cleaned)
    }

    /// Refuses a zone beyond the user's `PrivacyRules.maximumZoneCount`.
    package static func checkRoom(existingCount: Int) throws {
        guard existingCount < PrivacyRules.maximumZoneCount else {
            throw RideStoreError.invalid(field: "zone", reason: "at most \(PrivacyRules.maximumZoneCount) privacy zones")
        }
    }

    package static func hiddenEndMeters(_ meters: Double) throws -> Double {
        if let problem = PrivacyRules.problem(hiddenEndMeters: meters) { throw RideStoreError.invalid(field: "hideEndsMeters", reason: problem) }
        return meters
    }

    /// A new secret: 256 bits from the system's generator.
    package static func newSecret() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<secretByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The seed of a ride's cut: the first 8 bytes of HMAC-SHA256(secret, rideKey). Nobody without the secret can
    /// tell from shown rides where the cuts of another fall, and the same ride is cut the same way every time.
    package static func seed(secret: Data, rideKey: String) -> UInt64 {
        let code = HMAC<SHA256>.authenticationCode(for: Data(rideKey.utf8), using: SymmetricKey(data: secret))
        return Data(code).prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// A ride link shows its track while it is not revoked, not expired at `now` (to the millisecond, as stored;
    /// no expiry never expires), and the track is still its owner's and not deleted.
    package static func rideShareShows(targetKind: String, revokedAt: Date?, expiresAt: Date?, now: Date, trackIsTheOwners: Bool) -> Bool {
        guard targetKind == ShareLinkRules.Target.track.rawValue, revokedAt == nil, trackIsTheOwners else { return false }
        guard let expiresAt else { return true }
        return StoreClock.milliseconds(expiresAt) > StoreClock.milliseconds(now)
    }

    /// Whether a link of any kind is still working, for the list of a user's shares: not revoked, not expired.
    package static func isActive(revokedAt: Date?, expiresAt: Date?, now: Date) -> Bool {
        guard revokedAt == nil else { return false }
        guard let expiresAt else { return true }
        return StoreClock.milliseconds(expiresAt) > StoreClock.milliseconds(now)
    }

    /// The options as stored (JSON), and back; a row with none shows everything but the zones.
    package static func encode(_ options: RideShareOptions) -> String {
        (try? String(decoding: JSONEncoder().encode(options), as: UTF8.self)) ?? "{}"
    }

    package static func decode(_ text: String?) -> RideShareOptions {
        guard let text, let options = try? JSONDecoder().decode(RideShareOptions.self, from: Data(text.utf8)) else {
            // Unreadable options hide all that they could: a damaged row must not show more.
            return RideShareOptions(hideStartTime: true, hideHeartRate: true, hidePower: true)
        }
        return options
    }
}
