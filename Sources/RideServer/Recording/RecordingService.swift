import Foundation
import Logging
import RideKit
import RideStore

/// Runs recordings: one `Recorder` per recording in progress, rebuilt from the store and kept in memory only
/// while it is proven current, with every change stored before it is answered (DESIGN 2.1: the client forgets
/// fixes on that answer). How a recording maps to the store is `RecordingService+Store.swift`.
///
/// Instances are stateless (DESIGN 3): several `serve` instances on one PostgreSQL database may each receive
/// some of a ride's batches. A cached recorder carries the stored recording's `RecordingVersion` it was built
/// at; a batch is written with that version as a condition checked in the store's own transaction, so a cache
/// that missed another instance's batch, Pause or Resume writes nothing and is rebuilt from the store, and the
/// batch is applied again. Requests that write nothing (a replayed batch, the recording's state) and Pause,
/// Resume, Stop and route changes read the stored version first. Every answer and the saved track therefore
/// come from what the database holds.
///
/// Requests for one recording run one at a time on this instance, in arrival order (a batch and a Pause from
/// the same phone must not interleave across the store's suspension points); different recordings run
/// concurrently.
public actor RecordingService {
    /// Where recordings are stored: the store, for the library's user.
    public let library: TrackLibrary
    private let metrics: ServerMetrics
    private var recordings: [String: CachedRecording] = [:] {
        didSet { evictIfFull() }
    }
    /// When each cached recorder was last used (a counter), to drop the least recently used.
    private var lastUse: [String: UInt64] = [:]
    private var useCounter: UInt64 = 0
    /// Recorders kept in memory; more are dropped least recently used first and rebuilt from the store
    /// when asked for (rides abandoned without Stop would otherwise stay forever).
    public let maximumCachedRecordings: Int
    /// Client ids (UUIDs) of recordings started offline → the recordings' ids (fixed once made: a cache that
    /// needs no proof).
    private var aliases: [String: String] = [:]
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
    /// How often a request reads the recording again when other instances keep changing it meanwhile.
    static let maximumAttempts = 4

    public init(library: TrackLibrary, metrics: ServerMetrics = ServerMetrics(), maximumCachedRecordings: Int = 1_000) {
        self.library = library
        self.metrics = metrics
        self.maximumCachedRecordings = max(1, maximumCachedRecordings)
    }

    /// Number of recorders in memory.
    public var cachedCount: Int { recordings.count }

    private func evictIfFull() {
        guard recordings.count > maximumCachedRecordings else { return }
        let idle = lastUse.filter { recordings[$0.key] != nil && !busy.contains($0.key) }
        if let oldest = idle.min(by: { $0.value < $1.value })?.key {
            forget(oldest)
        }
    }

    /// Starts a recording.
    public func start(_ request: NewRecordingInfo) async throws -> (info: RecordingInfo, recorder: Recorder) {
        try await create(request)
    }

    /// Starts a recording under the client's own id, once: when the client has started one under that id
    /// before (a start queued offline and sent again), answers that recording as it is now, and `created` is
    /// false.
    public func start(_ request: NewRecordingInfo, clientID: String) async throws -> (info: RecordingInfo, recorder: Recorder, created: Bool) {
        var request = request
        request.clientID = clientID
        // Two starts with one client id must not both create: they take turns under the client id's key.
        return try await exclusive("client:" + clientID) {
            if let id = try await Self.recordingID(clientID: clientID, in: self.library) {
                self.remember(alias: clientID, for: id)
                let (info, recorder) = try await self.snapshot(id: id)
                return (info, recorder, false)
            }
            let (info, recorder) = try await self.create(request)
            self.remember(alias: clientID, for: info.id)
            return (info, recorder, true)
        }
    }

    private func create(_ request: NewRecordingInfo) async throws -> (info: RecordingInfo, recorder: Recorder) {
        var recorder = Recorder(options: request.options)
        try recorder.start()
        // The route is checked before anything is stored: a start with a route that cannot be followed fails whole.
        var follower: RouteFollower?
        if let routeTrackID = request.routeTrackID {
            follower = try Self.makeFollower(route: try await Self.routeCoordinates(trackID: routeTrackID, in: library), units: request.options.units)
        }
        let (info, version) = try await Self.createRecording(request, in: library)
        touch(info.id)
        recordings[info.id] = CachedRecording(
            info: info, recorder: recorder, version: version,
            route: info.routeTrackID == nil ? nil : FollowedRoute(follower: follower))
        metrics.increment(.recordingsStarted)
        return (info, recorder)
    }

    /// The recording's own id for `key`, which is either that id or a client's id for it (a UUID): every
    /// request of a recording started offline names it by the client's id, and must reach the same `Recorder`.
    public func resolve(_ key: String) async throws -> String {
        if recordings[key] != nil { return key }
        if let id = aliases[key] { return id }
        guard let clientID = Self.clientID(key) else { return key }
        guard let id = try await Self.recordingID(clientID: clientID, in: library) else {
            throw RideStoreError.notFound(kind: "recording", id: key)
        }
        remember(alias: key, for: id)
        return id
    }

    /// `key` as a client's recording id (a UUID, in lower case), or nil when it is not one.
    public static func clientID(_ key: String) -> String? {
        guard key.utf8.count == 36, let uuid = UUID(uuidString: key) else { return nil }
        return uuid.uuidString.lowercased()
    }

    private func remember(alias: String, for id: String) {
        // Bounded like the recorders: past the limit the table starts again (a miss costs one lookup).
        if aliases.count >= maximumCachedRecordings * 2 { aliases.removeAll() }
        aliases[alias] = id
    }

    /// The recording as it is now.
    public func snapshot(id key: String) async throws -> (info: RecordingInfo, recorder: Recorder) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            let entry = try await self.proven(id)
            return (entry.info, entry.recorder)
        }
    }

    /// Applies a batch: validated whole, the new fixes stored, then answered.
    public func append(_ fixes: [RecordingFix], to key: String) async throws -> (info: RecordingInfo, update: RecordingUpdate) {
        let (info, update, _) = try await follow(fixes, to: key)
        return (info, update)
    }

    /// Applies a batch like `append`, and answers where the rider is on the recording's route (nil when it
    /// follows none, or its route track is gone).
    public func follow(_ fixes: [RecordingFix], to key: String) async throws -> (info: RecordingInfo, update: RecordingUpdate, navigation: Navigation?) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            for _ in 0..<Self.maximumAttempts {
                var (entry, fromCache) = try await self.cachedOrStored(id)
                // Built (after a restart, or when the cache was stale) from the fixes stored before this batch,
                // which it is then fed.
                let route = try await self.route(for: entry)
                var next = entry.recorder
                let update = try next.append(fixes)
                if update.storedCount > 0 || update.lastSequence != entry.recorder.lastSequence {
                    do {
                        entry.version = try await Self.appendFixes(
                            update.accepted, lastSequence: update.lastSequence, recordingID: id, expecting: entry.version, in: self.library)
                    } catch is RecordingChangedError {
                        // Another instance changed the ride since this cache was built: nothing was written.
                        self.forget(id)
                        self.metrics.increment(.recordingCacheMisses)
                        continue
                    }
                } else if fromCache, try await !self.isCurrent(id, entry.version) {
                    // Nothing to write (a batch sent again), so no write proved the cache: a read does.
                    continue
                }
                var navigation: Navigation?
                if var follower = route?.follower {
                    navigation = Self.follow(update.accepted, with: &follower)
                    entry.route = FollowedRoute(follower: follower)
                } else {
                    entry.route = route
                }
                entry.recorder = next
                self.keep(entry)
                self.metrics.increment(.fixesStored, by: update.storedCount)
                self.metrics.increment(.fixesDuplicate, by: update.duplicateCount)
                self.metrics.increment(.fixesSkipped, by: update.skippedCount)
                return (entry.info, update, navigation)
            }
            throw Self.keptChanging(id)
        }
    }

    /// The recording as it is now, and where the rider is on its route (nil when it follows none).
    public func current(_ key: String) async throws -> (info: RecordingInfo, recorder: Recorder, navigation: Navigation?) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            var entry = try await self.proven(id)
            entry.route = try await self.route(for: entry)
            self.keep(entry)
            return (entry.info, entry.recorder, entry.route?.follower?.navigation)
        }
    }

    /// Chooses, changes or (with nil) drops the route the rider follows, mid-ride. The new route's follower is
    /// fed the ride so far, as after a restart; a route that cannot be followed changes nothing.
    public func setRoute(_ routeTrackID: String?, for key: String) async throws -> (info: RecordingInfo, recorder: Recorder, navigation: Navigation?) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            var entry = try await self.proven(id)
            guard entry.info.state != .stopped else { throw RideStoreError.conflict("recording \(id) is stopped") }
            var follower: RouteFollower?
            if let routeTrackID {
                let route = try await Self.routeCoordinates(trackID: routeTrackID, in: self.library)
                follower = try Self.makeFollower(route: route, units: entry.info.options.units, replaying: entry.recorder)
            }
            let stored = try await Self.setRoute(routeTrackID, recordingID: id, in: self.library)
            guard entry.version.isSameRide(as: stored.version) else {
                // Fixes arrived elsewhere meanwhile: answer from the store, with a follower that has seen them.
                var fresh = try await self.reload(id)
                fresh.route = try await self.route(for: fresh)
                self.keep(fresh)
                return (fresh.info, fresh.recorder, fresh.route?.follower?.navigation)
            }
            entry.info.routeTrackID = routeTrackID
            entry.version = stored.version
            entry.route = routeTrackID == nil ? nil : FollowedRoute(follower: follower)
            self.keep(entry)
            return (entry.info, entry.recorder, follower?.navigation)
        }
    }

    /// Pause or Resume.
    public func change(_ key: String, to command: RecorderCommand) async throws -> (info: RecordingInfo, recorder: Recorder) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            var entry = try await self.proven(id)
            let before = entry.recorder.state
            switch command {
            case .pause: try entry.recorder.pause()
            case .resume: try entry.recorder.resume()
            }
            if entry.recorder.state != before {
                guard let stored = try await Self.setState(entry.recorder.state, recordingID: id, in: self.library) else {
                    throw RideStoreError.notFound(kind: "recording", id: id)
                }
                guard entry.version.isSameRide(as: stored.version) else {
                    let fresh = try await self.reload(id)
                    return (fresh.info, fresh.recorder)
                }
                entry.version = stored.version
            }
            entry.info.state = entry.recorder.state
            self.keep(entry)
            return (entry.info, entry.recorder)
        }
    }

    /// Stop: saves the track with figures computed from every fix the store holds. Stopping again answers with
    /// the same track.
    public func stop(_ key: String) async throws -> (info: RecordingInfo, recorder: Recorder) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            for _ in 0..<Self.maximumAttempts {
                var entry = try await self.proven(id)
                if entry.info.state == .stopped, entry.info.trackID != nil { return (entry.info, entry.recorder) }
                _ = try entry.recorder.stop()
                // The store completes the track from the points it holds; the name is the recording's. The figures
                // are this recorder's, so the store refuses them if a fix arrived elsewhere since it was read.
                do {
                    entry.info.trackID = try await Self.finishRecording(
                        id: id, stats: entry.recorder.stats, expecting: entry.version, in: self.library)
                } catch is RecordingChangedError {
                    self.forget(id)
                    continue
                }
                entry.info.state = .stopped
                self.forget(id)
                self.metrics.increment(.recordingsStopped)
                return (entry.info, entry.recorder)
            }
            throw Self.keptChanging(id)
        }
    }

    // MARK: - Internals

    /// The cached recording, or the one the store holds when none is cached (`fromCache` false). A cached one is
    /// not proven current: a write conditioned on its version, or `isCurrent`, proves it.
    private func cachedOrStored(_ id: String) async throws -> (entry: CachedRecording, fromCache: Bool) {
        if let cached = recordings[id] {
            touch(id)
            return (cached, true)
        }
        return (try await reload(id), false)
    }

    /// The recording as the store holds it now: the cached one when the store still has its version, else
    /// rebuilt from the store.
    private func proven(_ id: String) async throws -> CachedRecording {
        if let cached = recordings[id], try await isCurrent(id, cached.version) {
            touch(id)
            return cached
        }
        return try await reload(id)
    }

    /// Whether the stored recording still has `version`; drops the cache when not.
    private func isCurrent(_ id: String, _ version: RecordingVersion) async throws -> Bool {
        let stored = try await library.mine.recording(id: try Self.storeID(id))
        guard let stored, stored.version == version else {
            forget(id)
            metrics.increment(.recordingCacheMisses)
            return false
        }
        return true
    }

    /// Rebuilds the recording's `Recorder` from the fixes the store holds, and caches it unless it is stopped.
    private func reload(_ id: String) async throws -> CachedRecording {
        forget(id)
        guard let stored = try await Self.storedRecording(id: id, in: library) else {
            throw RideStoreError.notFound(kind: "recording", id: id)
        }
        let entry = CachedRecording(info: stored.info, recorder: try Self.rebuild(stored), version: stored.version, route: nil)
        if stored.info.state != .stopped {
            // Only known recordings are remembered: asking for made-up ids must not grow anything.
            keep(entry)
        }
        return entry
    }

    /// Caches `entry` (a recording in progress) as the current one.
    private func keep(_ entry: CachedRecording) {
        guard entry.info.state != .stopped else { return forget(entry.info.id) }
        touch(entry.info.id)
        recordings[entry.info.id] = entry
    }

    private func forget(_ id: String) {
        recordings[id] = nil
        lastUse[id] = nil
    }

    /// The recording's route follower: the cached one, or one built from its route and the fixes so far. A
    /// route track deleted since the start means no navigation, not a failed ride; nil: it follows no route.
    private func route(for entry: CachedRecording) async throws -> FollowedRoute? {
        guard let routeTrackID = entry.info.routeTrackID, entry.info.state != .stopped else { return nil }
        if let cached = entry.route { return cached }
        let route: [Coordinate]
        do {
            route = try await Self.routeCoordinates(trackID: routeTrackID, in: library)
        } catch RideStoreError.notFound {
            return FollowedRoute(follower: nil)
        }
        return FollowedRoute(follower: try? Self.makeFollower(route: route, units: entry.info.options.units, replaying: entry.recorder))
    }

    private func touch(_ id: String) {
        useCounter += 1
        lastUse[id] = useCounter
    }

    /// Other instances changed the recording at every attempt: the client sends the request again later.
    static func keptChanging(_ id: String) -> RideStoreError {
        .unavailable("recording \(id) kept changing on other servers while this one read it; send the request again")
    }

    /// Replays the stored fixes through a new `Recorder`: the same segments, stats and breadcrumbs.
    static func rebuild(_ stored: StoredRecording) throws -> Recorder {
        var recorder = Recorder(options: stored.info.options)
        try recorder.start()
        var segment = 0
        var group: [RecordingFix] = []
        for item in stored.fixes {
            if item.segmentIndex != segment {
                try append(group)
                group.removeAll()
                try recorder.pause()
                try recorder.resume()
                segment = item.segmentIndex
            }
            group.append(item.fix)
        }
        try append(group)
        /// In batches of the size the recorder takes (a long ride has more fixes than one batch may hold).
        func append(_ fixes: [RecordingFix]) throws {
            for start in stride(from: 0, to: fixes.count, by: Recorder.maximumBatchSize) {
                _ = try recorder.append(Array(fixes[start..<min(start + Recorder.maximumBatchSize, fixes.count)]))
            }
        }
        if let last = stored.lastSequence { recorder.acknowledge(through: last) }
        switch stored.info.state {
        case .paused: try recorder.pause()
        case .stopped: try recorder.stop()
        case .idle, .recording: break
        }
        return recorder
    }

    /// Runs `body` when no other request for `id` is running.
    private func exclusive<T: Sendable>(_ id: String, _ body: () async throws -> T) async throws -> T {
        while busy.contains(id) {
            await withCheckedContinuation { waiting[id, default: []].append($0) }
        }
        busy.insert(id)
        defer {
            busy.remove(id)
            if var queue = waiting[id], !queue.isEmpty {
                queue.removeFirst().resume()
                waiting[id] = queue.isEmpty ? nil : queue
            }
        }
        return try await body()
    }
}

/// A recording's route follower, or nil when its route can no longer be followed (kept so that it is not
/// looked for again at every batch).
struct FollowedRoute: Sendable {
    var follower: RouteFollower?
}

/// A recording in progress as this instance last saw it, and the stored version that view was current at.
struct CachedRecording: Sendable {
    var info: RecordingInfo
    var recorder: Recorder
    var version: RecordingVersion
    /// Its route follower, once looked for; nil: not looked for yet (or it follows no route).
    var route: FollowedRoute?
}

extension RecordingVersion {
    /// Whether `other` holds the same fixes as this version (only the state or the route may differ): what a
    /// Pause, Resume or route change leaves when no batch arrived elsewhere meanwhile.
    func isSameRide(as other: RecordingVersion) -> Bool {
        pointCount == other.pointCount && lastClientSequence == other.lastClientSequence
    }
}

/// Pause or Resume.
public enum RecorderCommand: String, Sendable {
    case pause, resume
}
