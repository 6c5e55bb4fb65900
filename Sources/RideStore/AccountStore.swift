import Foundation
import RideKit

/// The part of the store that a server shared by several people needs (issue 12): users' passwords,
/// sessions, device tokens, and the positions phone apps post. `RideStore` includes it.
///
/// Every method that touches someone's data takes their `UserID` and sees only their rows.
public protocol AccountStore: Sendable {
    // MARK: Users

    /// Every user, by name.
    func users() async throws -> [User]
    /// Sets (or, with nil, removes) a user's password hash; their sessions end.
    func setPasswordHash(_ hash: String?, userID: UserID) async throws
    /// Deletes a user with everything of theirs; false when there was no such user.
    func deleteUser(id: UserID) async throws -> Bool

    // MARK: Sessions

    /// Keeps a session (by the hash of its cookie's token) until `expiresAt`.
    func createSession(tokenHash: String, userID: UserID, expiresAt: Date) async throws
    /// The user of a live session, or nil when unknown or expired.
    func sessionUser(tokenHash: String, now: Date) async throws -> User?
    func deleteSession(tokenHash: String) async throws
    /// Ends every session of a user (password changed, user deleted).
    func deleteSessions(userID: UserID) async throws

    // MARK: Devices

    func device(id: DeviceID, userID: UserID) async throws -> Device?
    /// Gives a device a new token (the old one stops working at once).
    func replaceDeviceToken(id: DeviceID, userID: UserID, tokenHash: String) async throws -> Device

    // MARK: Positions from devices

    /// Stores the fixes a device posted, in one transaction: each (device, time) once — a replay stores
    /// nothing — and each new fix joins the device's live track in time order; a gap longer than
    /// `gapSeconds` finishes the live track (saved with its figures) and starts a new one.
    func ingest(_ fixes: [TrackerFix], deviceID: DeviceID, userID: UserID, gapSeconds: Double) async throws -> IngestResult
    /// Several devices' posts in one transaction (group commit: one flush to the disk for all of them), each as
    /// `ingest` would store it, each with its own outcome.
    func ingest(_ posts: [DevicePost], gapSeconds: Double) async throws -> [Result<IngestResult, RideStoreError>]
    /// Finishes (saves with their figures) the live tracks of devices silent for longer than `gapSeconds` at
    /// `now`, by their fixes' times and by when they last posted; returns those tracks.
    func finishIdleDeviceTracks(gapSeconds: Double, now: Date) async throws -> [TrackID]
    /// The user's device fixes stored after `sequence` (the live feed's event ids), oldest first.
    func deviceFixes(userID: UserID, after sequence: Int64, limit: Int) async throws -> [StoredDeviceFix]
    /// One device's fixes since a time, oldest first (a day's line on the live map).
    func deviceFixes(deviceID: DeviceID, userID: UserID, since: Date, limit: Int) async throws -> [StoredDeviceFix]
    /// Each device's latest fix.
    func latestDeviceFixes(userID: UserID) async throws -> [StoredDeviceFix]
    /// The highest sequence number of the user's device fixes (0 for none).
    func lastDeviceFixSequence(userID: UserID) async throws -> Int64

    // MARK: Live share links

    /// A read-only link to a device's position and path, for whoever holds `token` (made by the caller, see
    /// `ShareLink.isWellFormed`), until `expiresAt`; with `untilRideEnds`, also only while the device's live
    /// track at this moment is in progress (there must be one). Revoked with `revokeShareLink`.
    func createLiveShare(token: String, deviceID: DeviceID, userID: UserID, expiresAt: Date, untilRideEnds: Bool) async throws -> LiveShare
    /// The live link with this token, whoever its user; nil when unknown, revoked, expired, its device gone,
    /// or the ride it was made for has ended.
    func liveShare(token: String, now: Date) async throws -> LiveShare?
}

/// A live share link (issue 12): what it shows and until when.
public struct LiveShare: Sendable, Hashable {
    public var token: String
    public var userID: UserID
    public var deviceID: DeviceID
    public var deviceName: String
    /// The ride it is limited to, if any.
    public var trackID: TrackID?
    public var createdAt: Date
    public var expiresAt: Date

    public init(token: String, userID: UserID, deviceID: DeviceID, deviceName: String, trackID: TrackID?, createdAt: Date, expiresAt: Date) {
        self.token = token
        self.userID = userID
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.trackID = trackID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// What one device posted, for `ingest(_:gapSeconds:)`.
public struct DevicePost: Sendable, Hashable {
    public var fixes: [TrackerFix]
    public var deviceID: DeviceID
    public var userID: UserID
    /// Points the device's live track may hold (the server's `--max-track-points`); when it is full, the next fix
    /// starts a new track (`DeviceTrackPlacement`). nil: no limit.
    public var maximumTrackPoints: Int?

    public init(fixes: [TrackerFix], deviceID: DeviceID, userID: UserID, maximumTrackPoints: Int? = nil) {
        self.fixes = fixes
        self.deviceID = deviceID
        self.userID = userID
        self.maximumTrackPoints = maximumTrackPoints
    }
}

/// A device's fix as stored, with its place in the user's feed.
public struct StoredDeviceFix: Sendable, Hashable {
    /// Increases with every fix stored (any user's): the live feed's event id.
    public var sequence: Int64
    public var deviceID: DeviceID
    public var trackID: TrackID?
    public var fix: TrackerFix
    public var receivedAt: Date

    public init(sequence: Int64, deviceID: DeviceID, trackID: TrackID?, fix: TrackerFix, receivedAt: Date) {
        self.sequence = sequence
        self.deviceID = deviceID
        self.trackID = trackID
        self.fix = fix
        self.receivedAt = receivedAt
    }
}

/// What storing a device's post did.
public struct IngestResult: Sendable, Hashable {
    /// Fixes stored for the first time.
    public var storedCount: Int = 0
    /// Fixes the store had already (a replay, or the same time twice).
    public var duplicateCount: Int = 0
    /// Fixes stored but older than the live track by more than the gap (kept, in no track).
    public var lateCount: Int = 0
    /// The live track the fixes joined (nil when none did).
    public var liveTrackID: TrackID?
    /// Tracks finished by a gap in this post.
    public var finishedTrackIDs: [TrackID] = []

    public init() {}
}

// MARK: - What several server processes on one store share

/// A store that several `bikeride serve` processes use at once (PostgreSQL, DESIGN 1): what happens on one of
/// them reaches the others. The embedded SQLite store has one process, and is not one.
public protocol MultiInstanceStore: Sendable {
    /// Tells this process, as soon as they are committed, that some process stored device fixes of a user: a
    /// live view waiting here reads the store at once instead of at its next poll. One connection listens for
    /// as long as the stream is iterated, and connects again by itself (with a growing pause) when it breaks;
    /// `.resumed` says it listens (again), after which whatever was missed meanwhile should be looked for.
    func liveNotifications() -> AsyncStream<LiveNotification>
    /// Failed logins counted in the store, so that the limit holds across every process.
    func loginFailureCounter(limits: LoginLimits) -> any LoginFailureCounter
}

/// What `MultiInstanceStore.liveNotifications()` says.
public enum LiveNotification: Sendable, Hashable {
    /// Some process stored fixes of the user's devices.
    case fixesStored(UserID)
    /// Listening started or started again: notifications sent while it was down are lost, so every view looks.
    case resumed
}

/// Login attempts, counted over a sliding window per name and address, per address, and per name, so that guessing
/// a password online takes years, not hours, and no one can lock the real user out: in the server's memory with one
/// process (`LoginRateLimiter`, the SQLite store), in the database when several processes share it (PostgreSQL),
/// where attempts on any of them add up. The rule itself is `LoginLimits.retryAfter(failures:name:address:now:)`.
///
/// An attempt is counted **before** its password is hashed (`reserve`, which checks and counts in one step) and
/// settled after: so a burst of concurrent guesses is counted as it arrives, not once each guess has been hashed.
public protocol LoginFailureCounter: Sendable {
    /// Checks whether `name` may be tried from `address` now and, when it may, counts the attempt at once as a
    /// failure (its reservation), in one step that concurrent calls cannot interleave. Returns the seconds to wait
    /// (nothing counted), or nil (counted at `now`: settle it with `settle`).
    func reserve(name: String, address: String?, now: Date) async throws -> Int?
    /// The end of an attempt reserved at `reservedAt`: a failure stays counted; a success, or an attempt never
    /// evaluated (the hashing queue was full), takes its count back, and a success also forgets the failures of the
    /// name from that address (the other addresses' and the name's other counts stay).
    func settle(name: String, address: String?, reservedAt: Date, outcome: LoginOutcome) async throws
}

/// How a reserved login attempt ended.
public enum LoginOutcome: Sendable, Hashable {
    case failed
    case succeeded
    /// Refused before its password was looked at (too many logins being checked at once).
    case notEvaluated
}

/// How many failed logins may be made within a window, and the rule that says who waits.
///
/// - **A name from one address** (`pair:`): `failuresPerName` failures, then that address waits for the oldest
///   of them to leave the window: guessing slows to that many a window per address.
/// - **An address** (`address:`): `failuresPerAddress` failures, whatever the names (one address trying many).
/// - **A name from everywhere** (`name:`): past `failuresPerName` failures, only addresses with no failure for
///   the name in the window may try, each once before it waits too. The real user, from an address that has not
///   failed, is never locked out by someone else's guesses.
public struct LoginLimits: Sendable, Hashable {
    public var failuresPerName: Int
    public var failuresPerAddress: Int
    public var windowSeconds: Double

    /// 5 failures per name and address, 20 per address, in 15 minutes.
    public init(failuresPerName: Int = 5, failuresPerAddress: Int = 20, windowSeconds: Double = 900) {
        self.failuresPerName = failuresPerName
        self.failuresPerAddress = failuresPerAddress
        self.windowSeconds = windowSeconds
    }

    /// The keys an attempt counts under, each with the most failures it needs read (its limit): the name (case
    /// folded), and when the address is known, the address and the name from that address.
    public func keys(name: String, address: String?) -> [(key: String, limit: Int)] {
        var keys = [(key: nameKey(name), limit: failuresPerName)]
        if let address {
            keys.append((key: "address:" + address, limit: failuresPerAddress))
            keys.append((key: pairKey(name: name, address: address), limit: failuresPerName))
        }
        return keys
    }

    public func nameKey(_ name: String) -> String { "name:" + name.lowercased() }

    /// The name from one address; nil without an address.
    public func pairKey(name: String, address: String?) -> String {
        "pair:" + (address ?? "") + " " + name.lowercased()
    }

    /// Seconds to wait before `name` may be tried from `address`, or nil when it may be tried now, given the failure
    /// times (any order, only the newest `limit` needed) of each of `keys(name:address:)`.
    public func retryAfter(failures: [String: [Date]], name: String, address: String?, now: Date) -> Int? {
        var waits: [Double?] = []
        let nameWait = wait(failureTimes: failures[nameKey(name)] ?? [], limit: failuresPerName, now: now)
        if let address {
            let pair = failures[pairKey(name: name, address: address)] ?? []
            waits.append(wait(failureTimes: pair, limit: failuresPerName, now: now))
            waits.append(wait(failureTimes: failures["address:" + address] ?? [], limit: failuresPerAddress, now: now))
            // The name's budget binds only addresses that have failed for it: a clean one may still try.
            if pair.contains(where: { now.timeIntervalSince($0) < windowSeconds }) { waits.append(nameWait) }
        } else {
            waits.append(nameWait)
        }
        return Self.retryAfter(waits)
    }

    /// Seconds until a key with these failure times (any order) is under its limit again, or nil when it is
    /// under now: the `limit`-th newest failure inside the window must leave it first.
    public func wait(failureTimes: [Date], limit: Int, now: Date) -> Double? {
        let recent = failureTimes.filter { now.timeIntervalSince($0) < windowSeconds }.sorted(by: >)
        guard limit > 0, recent.count >= limit else { return nil }
        return windowSeconds - now.timeIntervalSince(recent[limit - 1])
    }

    /// Whole seconds to wait, at least 1, from the longest of `waits`.
    public static func retryAfter(_ waits: [Double?]) -> Int? {
        guard let wait = waits.compactMap({ $0 }).max() else { return nil }
        return max(1, Int(wait.rounded(.up)))
    }
}
