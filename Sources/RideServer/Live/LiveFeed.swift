import Foundation
import RideKit
import RideStore

/// Wakes the live views of a user when their devices' fixes are stored. It carries no data: a woken view
/// reads the store from its last event id, so nothing is missed between a wake and a read, and a reconnect
/// (`Last-Event-ID`) resumes exactly where it stopped.
///
/// A post to this process notifies at once (`IngestController`); on PostgreSQL a post to another instance
/// reaches here through the database's notifications (`LiveNotificationRelay`). A view also looks by itself
/// every `ServerConfiguration.livePollSeconds`, the safety net when a notification is lost.
public actor LiveFeed {
    private var waiters: [UserID: [UUID: CheckedContinuation<Bool, Never>]] = [:]
    /// Counts each user's notifications: a view reads it before it reads the store, and waits only while it is
    /// unchanged, so a notify between the read and the wait is never lost.
    private var versions: [UserID: UInt64] = [:]
    /// Counts `notifyEveryone()`, part of every user's version.
    private var everyone: UInt64 = 0

    public init() {}

    /// The user's notification count.
    public func version(_ userID: UserID) -> UInt64 { versions[userID, default: 0] &+ everyone }

    /// Wakes every view of the user.
    public func notify(_ userID: UserID) {
        versions[userID, default: 0] &+= 1
        guard let list = waiters.removeValue(forKey: userID) else { return }
        for continuation in list.values { continuation.resume(returning: true) }
    }

    /// Wakes every view of every user (the database's notifications resumed after a break: what was posted
    /// meanwhile was not announced).
    public func notifyEveryone() {
        everyone &+= 1
        let all = waiters
        waiters = [:]
        for list in all.values {
            for continuation in list.values { continuation.resume(returning: true) }
        }
    }

    /// Returns when the user's version differs from `version` (true) or after `seconds` (false), whichever is
    /// first. The check and the parking happen in one turn of the actor, so a notify cannot fall between them.
    @discardableResult
    func wait(_ userID: UserID, after version: UInt64, seconds: Double) async -> Bool {
        guard self.version(userID) == version else { return true }
        let id = UUID()
        // Runs on the actor only after this turn, when the waiter is parked.
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0.01, seconds) * 1e9))
            await self?.timeOut(userID, id)
        }
        let woken = await withCheckedContinuation { continuation in waiters[userID, default: [:]][id] = continuation }
        timer.cancel()
        return woken
    }

    private func timeOut(_ userID: UserID, _ id: UUID) {
        waiters[userID]?.removeValue(forKey: id)?.resume(returning: false)
    }
}

/// A device fix as the live feed and the devices list show it.
struct LiveFixPayload: Codable, Sendable {
    var sequence: Int64
    var deviceId: String
    var trackId: String?
    var time: String
    var latitude: Double
    var longitude: Double
    var elevationMeters: Double?
    var speedMetersPerSecond: Double?
    var courseDegrees: Double?
    var accuracyMeters: Double?
    var batteryPercent: Double?

    init(_ stored: StoredDeviceFix) {
        sequence = stored.sequence
        deviceId = stored.deviceID.rawValue
        trackId = stored.trackID?.rawValue
        time = GPXTime(date: stored.fix.time).rfc3339
        latitude = stored.fix.latitude
        longitude = stored.fix.longitude
        elevationMeters = stored.fix.elevationMeters
        speedMetersPerSecond = stored.fix.speedMetersPerSecond
        courseDegrees = stored.fix.courseDegrees
        accuracyMeters = stored.fix.accuracyMeters
        batteryPercent = stored.fix.batteryPercent
    }
}
