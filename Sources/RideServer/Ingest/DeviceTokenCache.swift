import Foundation
import RideStore

/// The devices of recently seen tokens, for a few seconds: a phone app posts every few seconds, and looking its
/// token up in the store for every post was a read, and a hand-over between threads, per post (the largest
/// cost left on the ingestion path by a profile).
///
/// Safe to be a little late, because the store stays the judge: the write of a post checks that its device
/// still exists (a device deleted since is refused there, 401), and a token rotated or a device deleted
/// through this server is forgotten at once (`forget`). Only a change made elsewhere (another instance, the
/// command line) is seen up to `lifetime` later: an old token then works for at most that long.
///
/// Bounded: at most `capacity` tokens; when full, it starts again empty.
final class DeviceTokenCache: @unchecked Sendable {
    struct Entry {
        var device: Device
        /// The name of the device's user, once a post asked for it (OwnTracks sends it with the token).
        var userName: String?
        var expires: ContinuousClock.Instant
    }

    let lifetime: Duration
    let capacity: Int
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    init(lifetime: Duration = .seconds(5), capacity: Int = 10_000) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
    }

    /// The entry of a token hash, if it is fresh.
    func entry(_ tokenHash: String, now: ContinuousClock.Instant = .now) -> Entry? {
        lock.withLock {
            guard let entry = entries[tokenHash] else { return nil }
            guard entry.expires > now else {
                entries[tokenHash] = nil
                return nil
            }
            return entry
        }
    }

    func remember(_ device: Device, userName: String?, tokenHash: String, now: ContinuousClock.Instant = .now) {
        lock.withLock {
            if entries.count >= capacity, entries[tokenHash] == nil { entries.removeAll(keepingCapacity: true) }
            entries[tokenHash] = Entry(device: device, userName: userName, expires: now + lifetime)
        }
    }

    /// Forgets every token of the device (its token was rotated, or it was deleted).
    func forget(deviceID: DeviceID) {
        lock.withLock { entries = entries.filter { $0.value.device.id != deviceID } }
    }
}
