import Foundation
import RideKit

/// The family rules both stores follow (issue 23): who may share with whom, for how long, and when a share shows
/// the sharer's position. The stores only run their SQL.
///
/// - A user shares with another existing user, never with themself.
/// - For 1 to 8,760 hours (a year), or until revoked; sharing again with the same user replaces the expiry.
/// - A share shows while it is not expired at the moment of the question (to the millisecond, as stored); a
///   revoked share is deleted. Every answer is read from the database, so a revocation or an expiry holds at once
///   on every instance.
package enum FamilyShareRules {
    /// 1 hour to a year (8,760 h): less is no use to family, more is what "until revoked" is for.
    package static let hoursRange: ClosedRange<Double> = 1...8_760

    /// Why `hours` cannot be a share's duration, or nil (nil hours: until revoked).
    package static func problem(hours: Double?) -> String? {
        guard let hours else { return nil }
        guard hours.isFinite, hoursRange.contains(hours) else {
            return "hours must be a number from \(Int(hoursRange.lowerBound)) to \(Int(hoursRange.upperBound)), or null for until revoked"
        }
        return nil
    }

    /// When a share made at `now` for `hours` ends (nil: until revoked), or `RideStoreError.invalid`.
    package static func expiresAt(hours: Double?, now: Date) throws -> Date? {
        if let problem = problem(hours: hours) { throw RideStoreError.invalid(field: "hours", reason: problem) }
        return hours.map { StoreClock.rounded(now.addingTimeInterval($0 * 3600)) }
    }

    /// A name as it is looked up: trimmed; nil when no user can have it (empty, too long, a NUL), which is "no such
    /// user" and never reaches the SQL.
    package static func lookupName(_ name: String) -> String? { try? UserRules.name(name) }

    /// Checks a share from `sharer` to the user found by name (nil: no such user), and returns the viewer.
    package static func viewer(_ found: User?, sharer: UserID, name: String) throws -> User {
        guard let found else { throw RideStoreError.notFound(kind: "user", id: String(name.prefix(64))) }
        guard found.id != sharer else { throw RideStoreError.invalid(field: "user", reason: "you cannot share your position with yourself") }
        return found
    }

    /// A stored expiry, checked again: it must lie after `now` (a share that ended before it began stores nothing).
    package static func check(expiresAt: Date?, now: Date) throws {
        if let expiresAt, !shows(expiresAt: expiresAt, now: now) {
            throw RideStoreError.invalid(field: "hours", reason: "the share would end before it begins")
        }
    }

    /// True when a share with this expiry shows the sharer's position at `now`.
    package static func shows(expiresAt: Date?, now: Date) -> Bool {
        guard let expiresAt else { return true }
        return StoreClock.milliseconds(expiresAt) > StoreClock.milliseconds(now)
    }

    /// The shares of `rows` that still work at `now`, by the other user's name.
    package static func circle(_ rows: [FamilyShare], userID: UserID, now: Date) -> FamilyCircle {
        let working = rows.filter { shows(expiresAt: $0.expiresAt, now: now) }
        return FamilyCircle(
            sharing: working.filter { $0.sharerID == userID && $0.viewerID != userID }.sorted { $0.viewerName < $1.viewerName },
            sharedWithMe: working.filter { $0.viewerID == userID && $0.sharerID != userID }.sorted { $0.sharerName < $1.sharerName })
    }
}
