import Foundation
import Hummingbird
import RideKit
import RideStore

/// Live share links (what Strava Beacon and Garmin LiveTrack do): `POST /api/devices/{id}/share`
/// `{"hours": 1–168, "untilRideEnds": false}` → 201 `{token, url, expiresAt}`; `GET /live/{token}` is a read-only
/// page with the device's position, its path so far and the last update time, for whoever holds the link (no
/// session), refreshed every 15 s by the browser (no script); `GET /live/{token}.json` the same as JSON.
/// `DELETE /api/shares/{token}` revokes it. After `expiresAt`, or once the ride ends with `untilRideEnds`, the
/// link shows nothing (404).
struct LiveShareController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    /// The page's map: tiles under the path when there are any (`ShareMap`), else the plain drawing.
    var map = ShareMap(tileTemplate: nil, attribution: "")

    static var maximumHours: Double { 168 }
    /// The most points of a path a page draws (thinned evenly beyond).
    static var maximumPathPoints: Int { 2_000 }

    struct NewLiveShareRequest: Decodable {
        var hours: Double?
        var untilRideEnds: Bool?
    }

    struct LiveSharePayload: ResponseEncodable {
        var token: String
        var url: String
        var expiresAt: String
        var untilRideEnds: Bool
    }

    struct LiveShareViewPayload: ResponseEncodable {
        var name: String
        var expiresAt: String
        var lastFix: LiveFixPayload?
        /// True when the latest position is inside the owner's privacy zones (or the hidden start of the ride) and so
        /// not shown.
        var hidden: Bool
        /// Every shown point (as before issue 23); `segments` the same split where something was hidden.
        var path: [[Double]]
        var segments: [[[Double]]]
    }

    func addRoutes(to router: Router<Context>) {
        router.post("api/devices/{id}/share") { request, context in try await create(request, context) }
        router.get("live/{token}") { request, context in try await view(request, context) }
    }

    func create(_ request: Request, _ context: Context) async throws -> EditedResponse<LiveSharePayload> {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        guard let deviceID = DeviceID(text) else { throw APIError.notFound("no device with id \(text)") }
        let body = try await request.decodeJSON(NewLiveShareRequest.self, limit: 16 << 10, allowEmpty: true)
        let hours = body?.hours ?? 4
        guard hours.isFinite, hours > 0, hours <= Self.maximumHours else {
            throw APIError.badRequest("invalid_value", "hours must be more than 0 and at most \(Int(Self.maximumHours))")
        }
        let untilRideEnds = body?.untilRideEnds ?? false
        let share = try await library.mine.createLiveShare(
            token: SecretToken.make(), deviceID: deviceID, expiresAt: Date().addingTimeInterval(hours * 3600),
            untilRideEnds: untilRideEnds)
        let url = "/live/\(share.token)"
        return EditedResponse(
            status: .created, headers: [.location: url],
            response: LiveSharePayload(token: share.token, url: url, expiresAt: GPXTime(secondsSince1970: Int64(share.expiresAt.timeIntervalSince1970.rounded())).rfc3339, untilRideEnds: untilRideEnds))
    }

    func view(_ request: Request, _ context: Context) async throws -> Response {
        var token = try context.parameters.require("token")
        let json = token.hasSuffix(".json")
        if json { token.removeLast(5) }
        let store = library.store
        guard let share = try await store.liveShare(token: token, now: Date()) else {
            if json { throw APIError.notFound("this link does not exist, was revoked, or has expired") }
            return SharesController<Context>.html(
                status: .notFound, title: "Link not found",
                body: "<h1>Link not found</h1>\n<p>This link does not exist, was revoked, or has expired.</p>")
        }
        let fixes = try await store.deviceFixes(deviceID: share.deviceID, userID: share.userID, since: share.createdAt.addingTimeInterval(-24 * 3600), limit: 100_000)
            .filter { share.trackID == nil ? $0.fix.time >= share.createdAt.addingTimeInterval(-24 * 3600) : $0.trackID == share.trackID }
        // What others see goes through the owner's privacy zones and hidden start (RideKit's PrivacyClip): the path
        // keeps its gaps, and a last position inside a zone is not shown.
        let settings = try await store.privacySettings(userID: share.userID)
        let clip = settings.clip(rideKey: TrackLibrary.rideKey(liveTrack: fixes.last?.trackID ?? share.trackID, device: share.deviceID))
        let points = fixes.map { TrackPoint(latitude: $0.fix.latitude, longitude: $0.fix.longitude, time: GPXTime(date: $0.fix.time)) }
        let shown = clip.clip([points], ends: .startOnly)
        let lastShown = fixes.last.flatMap { last in
            shown.last?.last.flatMap { point in
                point.latitude == last.fix.latitude && point.longitude == last.fix.longitude && point.time == GPXTime(date: last.fix.time) ? last : nil
            }
        }
        let payload = LiveShareViewPayload(
            name: share.deviceName, expiresAt: GPXTime(secondsSince1970: Int64(share.expiresAt.timeIntervalSince1970.rounded())).rfc3339,
            lastFix: lastShown.map(LiveFixPayload.init), hidden: fixes.last != nil && lastShown == nil,
            path: shown.map { Self.thinned($0.map { [$0.latitude, $0.longitude] }) }.flatMap { $0 },
            segments: shown.map { Self.thinned($0.map { [$0.latitude, $0.longitude] }) })
        if json {
            var response = try payload.response(from: request, context: context)
            response.headers[.cacheControl] = "no-store"
            return response
        }
        var response = SharesController<Context>.html(
            status: .ok, title: share.deviceName, body: Self.body(payload, map: map), imageSources: map.imageSource.map { [$0] } ?? [])
        response.headers[.refresh] = "15"
        return response
    }

    /// At most `maximumPathPoints`, evenly, the last one kept.
    static func thinned(_ points: [[Double]]) -> [[Double]] {
        guard points.count > maximumPathPoints else { return points }
        let step = Double(points.count - 1) / Double(maximumPathPoints - 1)
        return (0..<maximumPathPoints).map { points[Int((Double($0) * step).rounded())] }
    }

    static func body(_ payload: LiveShareViewPayload, map: ShareMap = ShareMap(tileTemplate: nil, attribution: "")) -> String {
        let name = SharesController<Context>.escaped(payload.name)
        var lines = ["<h1>\(name)</h1>"]
        guard let fix = payload.lastFix else {
            if payload.hidden {
                lines.append("<p class=\"hidden\">The position is hidden near a private place. This page refreshes by itself.</p>")
                if !payload.path.isEmpty { lines.append(map.html(segments: coordinates(payload.segments), dot: nil, label: "Path so far")) }
            } else {
                lines.append("<p>No position yet. This page refreshes by itself.</p>")
            }
            return lines.joined(separator: "\n")
        }
        let latitude = String(fix.latitude), longitude = String(fix.longitude)
        // Shown with 5 decimals: about a metre, more than a phone's fix is worth (the links keep every digit).
        let shown = String(format: "%.5f, %.5f", fix.latitude, fix.longitude)
        // Times on the clock where the rider is (the time zone at the position), as family there reads them.
        func local(_ text: String, seconds: Bool) -> String {
            guard let time = try? GPXTime(parsing: text) else { return SharesController<Context>.escaped(text) }
            return LocalTimeText.text(time.date, latitude: fix.latitude, longitude: fix.longitude, seconds: seconds)
        }
        let updated = SharesController<Context>.escaped(fix.time)
        lines.append("<p class=\"updated\">Last update: <time datetime=\"\(updated)\">\(local(fix.time, seconds: true))</time></p>")
        lines.append("<p class=\"position\">\(shown)"
            + (fix.batteryPercent.map { " · battery \(Int($0.rounded())) %" } ?? "")
            + (fix.speedMetersPerSecond.map { " · \(String(format: "%.1f", $0 * 3.6)) km/h" } ?? "") + "</p>")
        lines.append(map.html(segments: coordinates(payload.segments), dot: Coordinate(latitude: fix.latitude, longitude: fix.longitude), label: "Path so far"))
        lines.append("<ul class=\"links\">")
        lines.append(
            "<li><a href=\"https://www.openstreetmap.org/?mlat=\(latitude)&amp;mlon=\(longitude)#map=16/\(latitude)/\(longitude)\">Show on OpenStreetMap</a></li>")
        lines.append("<li><a href=\"geo:\(latitude),\(longitude)\">Open in a map app</a></li>")
        lines.append("</ul>")
        lines.append("<p class=\"expires\">This link works until \(local(payload.expiresAt, seconds: false)). The page refreshes every 15 seconds.</p>")
        return lines.joined(separator: "\n")
    }

    /// The payload's `[latitude, longitude]` pairs as coordinates.
    static func coordinates(_ segments: [[[Double]]]) -> [[Coordinate]] {
        segments.map { $0.compactMap { $0.count >= 2 ? Coordinate(latitude: $0[0], longitude: $0[1]) : nil } }
    }
}
