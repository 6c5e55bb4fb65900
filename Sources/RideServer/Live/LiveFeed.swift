import Foundation
import RideKit
import RideStore

/// Wakes the live views of a user when their devices' fixes are stored. It carries no data: a woken view
/// reads the store from its last event id, so nothing is missed between a wake and a read, and a reconnect
/// (`Last-Event-ID`) resumes exactly where it stopped.
public actor LiveFeed {
    private var waiters: [UserID: [UUID: CheckedContinuation<Void, Never>]] = [:]
    /// Counts each user's notifications: a view reads it before it reads the store, and waits only while it is
    /// unchanged, so a notify between the read and the wait is never lost.
    private var versions: [UserID: UInt64] = [:]
    /// Waits ended (timed out) before they were parked: they must not park afterwards.
    private var ended: Set<UUID> = []

    public init() {}

    /// The user's notification count.
    public func version(_ userID: UserID) -> UInt64 { versions[userID, default: 0] }

    /// Wakes every view of the user.
    public func notify(_ userID: UserID) {
        versions[userID, default: 0] &+= 1
        guard let list = waiters.removeValue(forKey: userID) else { return }
        for continuation in list.values { continuation.resume() }
    }

    /// Returns when the user's version differs from `version` or after `seconds`, whichever is first.
    func wait(_ userID: UserID, after version: UInt64, seconds: Double) async {
        let id = UUID()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.park(userID, id, after: version) }
            group.addTask {
                try? await Task.sleep(nanoseconds: UInt64(max(0.01, seconds) * 1e9))
                await self.wake(userID, id)
            }
            await group.next()
            group.cancelAll()
            await self.wake(userID, id)
        }
        ended.remove(id)
    }

    private func park(_ userID: UserID, _ id: UUID, after version: UInt64) async {
        await withCheckedContinuation { continuation in
            if versions[userID, default: 0] != version || ended.contains(id) {
                continuation.resume()
            } else {
                waiters[userID, default: [:]][id] = continuation
            }
        }
    }

    private func wake(_ userID: UserID, _ id: UUID) {
        if let continuation = waiters[userID]?.removeValue(forKey: id) {
            continuation.resume()
        } else {
            ended.insert(id)
        }
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
