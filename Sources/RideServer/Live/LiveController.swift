import Foundation
import Hummingbird
import NIOCore
import RideKit
import RideStore
import ServiceLifecycle

/// `GET /api/live`: server-sent events of the user's devices' new positions (`event: fix`, `id:` the fix's
/// sequence number, `data:` the fix as JSON). A reconnect with `Last-Event-ID` (browsers send it by
/// themselves; `?lastEventId=` works too) gets every fix after that id first, so a network loss leaves no gap.
/// Without one, the stream starts after the newest fix. The stream ends after `maxSeconds` (default 300;
/// browsers reconnect at once), with a comment line every 15 s to keep proxies from closing it; it also ends when the server shuts down.
///
/// With accounts on, the stream asks again whether its session still names the user before it sends positions and
/// at every keep-alive, and ends when it does not (a logout, a password change, an expired session): an open
/// stream must not outlive the login it was opened with.
///
/// `GET /api/live/devices`: each device with its latest fix and today's line (`since`, default the last 24 h).
struct LiveController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    let feed: LiveFeed
    /// How often a waiting view reads the store without being woken (`ServerConfiguration.livePollSeconds`).
    var pollSeconds: Double = 1
    /// The sessions, when accounts are on (nil: the local user, no session to end).
    var sessions: SessionAuthority? = nil

    func addRoutes(to router: Router<Context>) {
        router.get("api/live") { request, context in try await stream(request, context) }
        router.get("api/live/devices") { request, context in try await devices(request, context) }
    }

    func stream(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let userID = library.userID
        let store = library.mine
        let given = request.headers[.lastEventID] ?? request.uri.queryParameters["lastEventId"].map(String.init)
        var start: Int64
        if let given {
            guard let value = Int64(given.trimmingCharacters(in: .whitespaces)), value >= 0 else {
                throw APIError.badRequest("invalid_value", "Last-Event-ID must be an event id this server sent")
            }
            start = value
        } else {
            start = try await store.lastDeviceFixSequence()
        }
        let maxSeconds = request.uri.queryParameters["maxSeconds"].flatMap { Double(String($0)) }.map { min(max($0, 0.1), 3600) } ?? 300
        let feed = self.feed
        let pollSeconds = self.pollSeconds
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        headers[.xAccelBuffering] = "no"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let first = start
        let sessions = self.sessions
        // Whether the request's session still names this user.
        let stillLoggedIn: @Sendable () async -> Bool = {
            guard let sessions else { return true }
            return (try? await sessions.user(of: request)) == userID
        }
        let body = ResponseBody { writer in
            var last = first
            let deadline = Date().addingTimeInterval(maxSeconds)
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            var idleSeconds = 0.0
            // Ends at the deadline, when the client is gone (a write fails) or when the server shuts down: a
            // graceful shutdown waits for requests in flight, and a stream would otherwise hold it for minutes.
            while Date() < deadline, !Task.isCancelled, !Task.isShuttingDownGracefully {
                let version = await feed.version(userID)
                let readAt = Date()
                let fixes = try await store.deviceFixes(after: last, limit: 500)
                if fixes.isEmpty {
                    // Woken by a post at once (on any instance, through the store's notifications); otherwise the
                    // store is read again every `pollSeconds`, the safety net. Slices of at most a second notice
                    // shutdown, the deadline and the keep-alive's time.
                    var woken = false
                    while !woken, Date() < deadline, !Task.isCancelled, !Task.isShuttingDownGracefully,
                        Date().timeIntervalSince(readAt) < pollSeconds
                    {
                        let slice = max(0.01, min(1, deadline.timeIntervalSinceNow, pollSeconds - Date().timeIntervalSince(readAt)))
                        let waitStarted = Date()
                        woken = await feed.wait(userID, after: version, seconds: slice)
                        idleSeconds += Date().timeIntervalSince(waitStarted)
                        if idleSeconds >= 15 {
                            guard await stillLoggedIn() else { break }
                            try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
                            idleSeconds = 0
                        }
                    }
                    if idleSeconds >= 15 { break }  // the session ended at a keep-alive
                    continue
                }
                guard await stillLoggedIn() else { break }
                idleSeconds = 0
                var text = ""
                for fix in fixes {
                    let json = String(decoding: try encoder.encode(LiveFixPayload(fix)), as: UTF8.self)
                    text += "id: \(fix.sequence)\nevent: fix\ndata: \(json)\n\n"
                    last = fix.sequence
                }
                try await writer.write(ByteBuffer(string: text))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    struct LiveDevicePayload: ResponseEncodable {
        var id: String
        var name: String
        var lastSeenAt: String?
        var lastFix: LiveFixPayload?
        var line: [[Double]]
    }

    struct LiveDevicesPayload: ResponseEncodable {
        var devices: [LiveDevicePayload]
        /// The id to resume the event stream after (`?lastEventId=`).
        var lastEventId: Int64
    }

    func devices(_ request: Request, _ context: Context) async throws -> LiveDevicesPayload {
        let library = try self.library.scoped(to: context)
        let since = Date().addingTimeInterval(-24 * 3600)
        let sequence = try await library.mine.lastDeviceFixSequence()
        var result: [LiveDevicePayload] = []
        for device in try await library.mine.devices() {
            let fixes = try await library.mine.deviceFixes(deviceID: device.id, since: since, limit: 20_000)
            result.append(LiveDevicePayload(
                id: device.id.rawValue, name: device.name, lastSeenAt: device.lastSeenAt.map { GPXTime(date: $0).rfc3339 }, lastFix: fixes.last.map(LiveFixPayload.init),
                line: fixes.map { [$0.fix.latitude, $0.fix.longitude] }))
        }
        return LiveDevicesPayload(devices: result, lastEventId: sequence)
    }
}
