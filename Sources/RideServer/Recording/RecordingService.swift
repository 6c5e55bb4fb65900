import Foundation
import Logging
import RideKit
import RideStore

/// Runs recordings: one `Recorder` per recording in progress, kept in memory and rebuilt from the store
/// when missing (after a restart), with every change stored before it is answered (DESIGN 2.1: the client
/// forgets fixes on that answer). How a recording maps to the store is `RecordingService+Store.swift`.
///
/// Requests for one recording run one at a time, in arrival order (a batch and a Pause from the same
/// phone must not interleave across the store's suspension points); different recordings run
/// concurrently.
public actor RecordingService {
    /// Where recordings are stored: the store, for the library's user.
    public let library: TrackLibrary
    private let metrics: ServerMetrics
    private var recorders: [String: (info: RecordingInfo, recorder: Recorder)] = [:] {
        didSet { evictIfFull() }
    }
    /// The route follower of each cached recording that follows a route (nil inside: its route is gone), kept
    /// and dropped with its recorder.
    private var followers: [String: FollowedRoute] = [:]
    /// When each cached recorder was last used (a counter), to drop the least recently used.
    private var lastUse: [String: UInt64] = [:]
    private var useCounter: UInt64 = 0
    /// Recorders kept in memory; more are dropped least recently used first and rebuilt from the store
    /// when asked for (rides abandoned without Stop would otherwise stay forever).
    public let maximumCachedRecordings: Int
    /// Client ids (UUIDs) of recordings started offline → the recordings' ids.
    private var aliases: [String: String] = [:]
    private var busy: Set<String> = []
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    public init(library: TrackLibrary, metrics: ServerMetrics = ServerMetrics(), maximumCachedRecordings: Int = 1_000) {
        self.library = library
        self.metrics = metrics
        self.maximumCachedRecordings = max(1, maximumCachedRecordings)
    }

    /// Number of recorders in memory.
    public var cachedCount: Int { recorders.count }

    private func evictIfFull() {
        guard recorders.count > maximumCachedRecordings else { return }
        let idle = lastUse.filter { recorders[$0.key] != nil && !busy.contains($0.key) }
        if let oldest = idle.min(by: { $0.value < $1.value })?.key {
            recorders[oldest] = nil
            followers[oldest] = nil
            lastUse[oldest] = nil
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
        let info = try await Self.createRecording(request, in: library)
        touch(info.id)
        recorders[info.id] = (info, recorder)
        if let follower, info.routeTrackID != nil { followers[info.id] = FollowedRoute(follower: follower) }
        metrics.increment(.recordingsStarted)
        return (info, recorder)
    }

    /// The recording's own id for `key`, which is either that id or a client's id for it (a UUID): every
    /// request of a recording started offline names it by the client's id, and must reach the same `Recorder`.
    public func resolve(_ key: String) async throws -> String {
        if recorders[key] != nil { return key }
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
        return try await exclusive(id) { try await self.loaded(id) }
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
            let (info, recorder) = try await self.loaded(id)
            // Built (after a restart) from the fixes stored before this batch, which it is then fed.
            var follower = try await self.follower(id, info: info, recorder: recorder)
            var next = recorder
            let update = try next.append(fixes)
            if update.storedCount > 0 || update.lastSequence != recorder.lastSequence {
                try await Self.appendFixes(update.accepted, lastSequence: update.lastSequence, recordingID: id, in: self.library)
            }
            var navigation: Navigation?
            if var current = follower {
                navigation = Self.follow(update.accepted, with: &current)
                follower = current
            }
            if info.state != .stopped, info.routeTrackID != nil { self.followers[id] = FollowedRoute(follower: follower) }
            self.recorders[id] = (info, next)
            self.metrics.increment(.fixesStored, by: update.storedCount)
            self.metrics.increment(.fixesDuplicate, by: update.duplicateCount)
            self.metrics.increment(.fixesSkipped, by: update.skippedCount)
            return (info, update, navigation)
        }
    }

    /// The recording as it is now, and where the rider is on its route (nil when it follows none).
    public func current(_ key: String) async throws -> (info: RecordingInfo, recorder: Recorder, navigation: Navigation?) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            let (info, recorder) = try await self.loaded(id)
            let follower = try await self.follower(id, info: info, recorder: recorder)
            if info.state != .stopped, info.routeTrackID != nil { self.followers[id] = FollowedRoute(follower: follower) }
            return (info, recorder, follower?.navigation)
        }
    }

    /// Chooses, changes or (with nil) drops the route the rider follows, mid-ride. The new route's follower is
    /// fed the ride so far, as after a restart; a route that cannot be followed changes nothing.
    public func setRoute(_ routeTrackID: String?, for key: String) async throws -> (info: RecordingInfo, recorder: Recorder, navigation: Navigation?) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            var (info, recorder) = try await self.loaded(id)
            guard info.state != .stopped else { throw RideStoreError.conflict("recording \(id) is stopped") }
            var follower: RouteFollower?
            if let routeTrackID {
                let route = try await Self.routeCoordinates(trackID: routeTrackID, in: self.library)
                follower = try Self.makeFollower(route: route, units: info.options.units, replaying: recorder)
            }
            try await Self.setRoute(routeTrackID, recordingID: id, in: self.library)
            info.routeTrackID = routeTrackID
            self.recorders[id] = (info, recorder)
            self.followers[id] = routeTrackID == nil ? nil : FollowedRoute(follower: follower)
            return (info, recorder, follower?.navigation)
        }
    }

    /// Pause or Resume.
    public func change(_ key: String, to command: RecorderCommand) async throws -> (info: RecordingInfo, recorder: Recorder) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            var (info, recorder) = try await self.loaded(id)
            let before = recorder.state
            switch command {
            case .pause: try recorder.pause()
            case .resume: try recorder.resume()
            }
            if recorder.state != before {
                try await Self.setState(recorder.state, recordingID: id, in: self.library)
            }
            info.state = recorder.state
            self.recorders[id] = (info, recorder)
            return (info, recorder)
        }
    }

    /// Stop: saves the track. Stopping again answers with the same track.
    public func stop(_ key: String) async throws -> (info: RecordingInfo, recorder: Recorder) {
        let id = try await resolve(key)
        return try await exclusive(id) {
            var (info, recorder) = try await self.loaded(id)
            if info.state == .stopped, info.trackID != nil { return (info, recorder) }
            _ = try recorder.stop()
            // The store completes the track from the points it holds; the name is the recording's.
            info.trackID = try await Self.finishRecording(id: id, stats: recorder.stats, in: self.library)
            info.state = .stopped
            self.recorders[id] = nil
            self.followers[id] = nil
            self.lastUse[id] = nil
            self.metrics.increment(.recordingsStopped)
            return (info, recorder)
        }
    }

    // MARK: - Internals

    private func loaded(_ id: String) async throws -> (info: RecordingInfo, recorder: Recorder) {
        if let cached = recorders[id] {
            touch(id)
            return cached
        }
        guard let stored = try await Self.storedRecording(id: id, in: library) else {
            throw RideStoreError.notFound(kind: "recording", id: id)
        }
        let recorder = try Self.rebuild(stored)
        if stored.info.state != .stopped {
            // Only known recordings are remembered: asking for made-up ids must not grow anything.
            touch(id)
            recorders[id] = (stored.info, recorder)
        }
        return (stored.info, recorder)
    }

    /// The recording's route follower: the cached one, or one built from its route and the fixes so far. A
    /// route track deleted since the start means no navigation, not a failed ride.
    private func follower(_ id: String, info: RecordingInfo, recorder: Recorder) async throws -> RouteFollower? {
        guard let routeTrackID = info.routeTrackID, info.state != .stopped else { return nil }
        if let cached = followers[id] { return cached.follower }
        let route: [Coordinate]
        do {
            route = try await Self.routeCoordinates(trackID: routeTrackID, in: library)
        } catch RideStoreError.notFound {
            return nil
        }
        return try? Self.makeFollower(route: route, units: info.options.units, replaying: recorder)
    }

    private func touch(_ id: String) {
        useCounter += 1
        lastUse[id] = useCounter
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

/// Pause or Resume.
public enum RecorderCommand: String, Sendable {
    case pause, resume
}
