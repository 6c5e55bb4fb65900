import Foundation
import Hummingbird
import RideKit
import RideStore

/// Ride share links (issue 23), share links of kind `track` beside the place and live ones (`SharesController`,
/// `LiveShareController`), revoked the same way (`DELETE /api/shares/{token}`):
/// - `POST /api/tracks/{id}/share` `{hideStartTime, hideHeartRate, hidePower, expiresInDays}` (all optional; the
///   days more than 0 and at most 365, none: until revoked) → 201 `{token, url, expiresAt}`;
/// - `GET /ride/{token}`: a read-only page without script (the line, figures, elevation and speed profiles), with
///   the place pages' CSP and `Referrer-Policy: no-referrer`; `GET /ride/{token}.gpx` and `.json` the same points.
///
/// Everything shown went through the owner's privacy zones and hidden ends (`TrackLibrary.sharedRide`, RideKit's
/// `PrivacyClip`), and the figures are measured on what is shown. An unknown, revoked or expired token, or one
/// whose track is gone, answers the same 404, read from the database on every instance.
struct RideShareController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    /// The offline tile set (`--tiles`): the preview image and the page's map draw the line over it.
    var tiles: MBTilesReader? = nil
    /// `--public-url`: the preview's address in `og:image` is absolute, as chat apps need it.
    var publicURL: String? = nil

    static var maximumDays: Double { 365 }
    /// The most points the page's line draws (thinned evenly beyond; the downloads have them all).
    static var maximumDrawnPoints: Int { 3_000 }

    struct NewRideShareRequest: Decodable {
        var hideStartTime: Bool?
        var hideHeartRate: Bool?
        var hidePower: Bool?
        var expiresInDays: Double?
    }

    struct RideSharePayload: ResponseEncodable {
        var token: String
        var url: String
        var expiresAt: String?
    }

    struct SharedPointPayload: Encodable {
        var latitude: Double
        var longitude: Double
        var elevationMeters: Double?
        var time: String?
        var heartRate: Double?
        var cadence: Double?
        var powerWatts: Double?
    }

    struct SharedRidePayload: ResponseEncodable {
        var name: String
        var kind: String
        var startTime: String?
        var distanceMeters: Double
        var ascentMeters: Double
        var descentMeters: Double
        var movingSeconds: Double
        var elapsedSeconds: Double
        var averageSpeedMetersPerSecond: Double
        var maxSpeedMetersPerSecond: Double
        /// True when parts near the owner's private places are left out.
        var clipped: Bool
        var segments: [[SharedPointPayload]]
        /// What the bike computer or watch measured, when the file said (as on the owner's track page).
        var device: DeviceFigures?
        var laps: [DeviceFigures]
    }

    func addRoutes(to router: Router<Context>) {
        router.post("api/tracks/{id}/share") { request, context in try await create(request, context) }
        router.get("ride/{token}") { request, context in try await view(request, context) }
    }

    func create(_ request: Request, _ context: Context) async throws -> EditedResponse<RideSharePayload> {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        guard let trackID = TrackID(text) else { throw APIError.notFound("no track with id \(text.prefix(16))") }
        let body = try await request.decodeJSON(NewRideShareRequest.self, limit: 16 << 10, allowEmpty: true)
        var expiresAt: Date?
        if let days = body?.expiresInDays {
            guard days.isFinite, days > 0, days <= Self.maximumDays else {
                throw APIError.badRequest("invalid_value", "expiresInDays must be more than 0 and at most \(Int(Self.maximumDays))")
            }
            expiresAt = Date().addingTimeInterval(days * 86_400)
        }
        let options = RideShareOptions(
            hideStartTime: body?.hideStartTime ?? false, hideHeartRate: body?.hideHeartRate ?? false, hidePower: body?.hidePower ?? false)
        let share = try await library.mine.createRideShare(
            token: SecretToken.make(), trackID: trackID, options: options, expiresAt: expiresAt)
        let url = "/ride/\(share.token)"
        return EditedResponse(
            status: .created, headers: [.location: url],
            response: RideSharePayload(token: share.token, url: url, expiresAt: share.expiresAt.map { GPXTime(date: $0).rfc3339 }))
    }

    func view(_ request: Request, _ context: Context) async throws -> Response {
        var token = try context.parameters.require("token")
        var format = "html"
        for suffix in [".gpx", ".json", ".png"] where token.hasSuffix(suffix) {
            token.removeLast(suffix.count)
            format = String(suffix.dropFirst())
        }
        guard let ride = try await library.sharedRide(token: token) else {
            if format != "html" { throw APIError.notFound("this link does not exist, was revoked, or has expired") }
            return SharesController<Context>.html(
                status: .notFound, title: "Link not found", body: "<h1>Link not found</h1>\n<p>This link does not exist, was revoked, or has expired.</p>")
        }
        switch format {
        case "gpx":
            var document = GPXDocument(tracks: [ride.track])
            document.setActivityType(ride.kind)
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: GPXWriter.data(document, creator: "bikeride"))))
            response.headers[.contentType] = "application/gpx+xml"
            response.headers[.contentDisposition] = "attachment; filename=\"ride.gpx\""
            return Self.shared(response)
        case "json":
            return Self.shared(try Self.payload(ride).response(from: request, context: context))
        case "png":
            let png = await Self.previewPNG(ride, tiles: tiles)
            var response = Response(status: .ok, body: .init(byteBuffer: ByteBuffer(bytes: png)))
            response.headers[.contentType] = "image/png"
            return Self.shared(response)
        default:
            let image = baseURL(request, context) + "/ride/" + token + ".png"
            return Self.shared(SharesController<Context>.html(
                status: .ok, title: ride.name, body: Self.body(ride, token: token, tiles: tiles != nil), head: Self.openGraph(ride, imageURL: image)))
        }
    }

    /// The server's address for links others open: `--public-url`, else the scheme and host the request came to.
    func baseURL(_ request: Request, _ context: Context) -> String {
        if let publicURL, let origin = ServerConfiguration.origin(of: publicURL) { return origin }
        return context.clientScheme + "://" + (request.head.authority ?? "localhost")
    }

    /// The preview image (RideKit's `RidePreview`) of what the link shows, over the offline tiles when the set has
    /// PNG tiles (others, and tiles that do not decode, leave the plain background). Drawn off the request's thread.
    static func previewPNG(_ ride: SharedRide, tiles: MBTilesReader?) async -> Data {
        let segments = ride.track.segments.map { $0.points.map(\.coordinate) }.filter { !$0.isEmpty }
        let text = summaryLine(ride.stats)
        let source = tiles.flatMap(previewTiles)
        return await Task.detached(priority: .utility) {
            PNGEncoder.encode(RidePreview.render(segments: segments, text: text, tiles: source))
        }.value
    }

    /// The tile set as the preview reads it; nil when its tiles are not PNG.
    static func previewTiles(_ reader: MBTilesReader) -> RidePreview.Tiles? {
        guard reader.metadata.format == "png" else { return nil }
        return RidePreview.Tiles(minimumZoom: reader.metadata.minZoom, maximumZoom: reader.metadata.maxZoom) { zoom, x, y in
            guard let bytes = try? reader.tile(zoom: zoom, x: x, y: y), !bytes.isEmpty else { return nil }
            return try? PNGDecoder.decode(Data(bytes))
        }
    }

    /// A shared answer is not cached and does not send its address on.
    static func shared(_ response: Response) -> Response {
        var response = response
        response.headers[.cacheControl] = "no-store"
        response.headers[.init("Referrer-Policy")!] = "no-referrer"
        response.headers[.init("X-Robots-Tag")!] = "noindex"
        return response
    }

    static func payload(_ ride: SharedRide) -> SharedRidePayload {
        let stats = ride.stats
        return SharedRidePayload(
            name: ride.name, kind: ride.kind.rawValue, startTime: ride.share.options.hideStartTime ? nil : stats.startTime?.rfc3339,
            distanceMeters: stats.distanceMeters, ascentMeters: stats.ascentMeters, descentMeters: stats.descentMeters,
            movingSeconds: stats.movingSeconds, elapsedSeconds: stats.elapsedSeconds,
            averageSpeedMetersPerSecond: stats.averageSpeedMetersPerSecond, maxSpeedMetersPerSecond: stats.maxSpeedMetersPerSecond,
            clipped: ride.isClipped,
            segments: ride.track.segments.map { segment in
                segment.points.map {
                    SharedPointPayload(
                        latitude: $0.latitude, longitude: $0.longitude, elevationMeters: $0.elevation, time: $0.time?.rfc3339, heartRate: $0.heartRate,
                        cadence: $0.cadence, powerWatts: $0.powerWatts)
                }
            },
            device: ride.device?.totals, laps: ride.device?.laps ?? [])
    }

    // MARK: The page

    static func escaped(_ text: String) -> String { SharesController<Context>.escaped(text) }

    /// One line of figures for the page and its preview: "12.3 km · 1:02 h · 230 m climb".
    static func summaryLine(_ stats: TrackStats) -> String {
        String(format: "%.1f km", stats.distanceMeters / 1000) + " · " + duration(stats.movingSeconds) + " · " + String(format: "%.0f m climb", stats.ascentMeters)
    }

    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0:00 h" }
        let total = Int(seconds.rounded())
        return String(format: "%d:%02d h", total / 3600, (total % 3600) / 60)
    }

    /// `og:` tags for chat apps' previews; `imageURL` is absolute, as they require.
    static func openGraph(_ ride: SharedRide, imageURL: String) -> String {
        """
        <meta property="og:type" content="website">
        <meta property="og:title" content="\(escaped(ride.name))">
        <meta property="og:description" content="\(escaped(summaryLine(ride.stats)))">
        <meta property="og:image" content="\(escaped(imageURL))">
        <meta property="og:image:type" content="image/png">
        <meta property="og:image:width" content="\(RidePreview.width)">
        <meta property="og:image:height" content="\(RidePreview.height)">
        <meta name="twitter:card" content="summary_large_image">
        """
    }

    static func body(_ ride: SharedRide, token: String, tiles: Bool = false) -> String {
        let stats = ride.stats
        var lines = ["<h1>\(escaped(ride.name))</h1>"]
        var subtitle = ride.kind.rawValue.capitalized
        if !ride.share.options.hideStartTime, let start = stats.startTime { subtitle += " · " + escaped(start.rfc3339) }
        lines.append("<p class=\"kind\">\(subtitle)</p>")
        func row(_ name: String, _ value: String) -> String { "<tr><th scope=\"row\">\(name)</th><td>\(value)</td></tr>" }
        lines.append("<table class=\"figures\">")
        lines.append(row("Distance", String(format: "%.2f km", stats.distanceMeters / 1000)))
        lines.append(row("Moving time", duration(stats.movingSeconds)))
        lines.append(row("Elapsed time", duration(stats.elapsedSeconds)))
        lines.append(row("Average speed", String(format: "%.1f km/h", stats.averageSpeedMetersPerSecond * 3.6)))
        lines.append(row("Maximum speed", String(format: "%.1f km/h", stats.maxSpeedMetersPerSecond * 3.6)))
        lines.append(row("Climb", String(format: "%.0f m", stats.ascentMeters)))
        lines.append(row("Descent", String(format: "%.0f m", stats.descentMeters)))
        lines.append("</table>")
        if let device = ride.device { lines.append(deviceTables(device)) }
        if tiles, ride.track.segments.contains(where: { !$0.points.isEmpty }) {
            // Over the offline tile set, the server draws the map (the preview image): no script, no outside tiles.
            lines.append("<img class=\"map\" src=\"/ride/\(escaped(token)).png\" width=\"\(RidePreview.width)\" height=\"\(RidePreview.height)\" "
                + "alt=\"Map of the ride\" style=\"width:100%;height:auto;border-radius:8px\">")
        } else {
            lines.append(lineSVG(ride.track.segments.map { $0.points.map(\.coordinate) }))
        }
        let profile = ride.profile
        lines.append(profileSVG("Elevation (m)", profile.distanceMeters, profile.elevationMeters))
        lines.append(profileSVG("Speed (km/h)", profile.distanceMeters, profile.speedMetersPerSecond.map { $0.map { $0 * 3.6 } }))
        if ride.isClipped {
            lines.append("<p class=\"clipped\">Parts of this ride near the rider's private places are not shown.</p>")
        }
        let base = "/ride/" + escaped(token)
        lines.append("<ul class=\"links\"><li><a href=\"\(base).gpx\">Download GPX</a></li><li><a href=\"\(base).json\">Download JSON</a></li></ul>")
        return lines.joined(separator: "\n")
    }

    /// The device's totals as one line and its laps as a table (two laps or more), as on the owner's track page.
    static func deviceTables(_ device: DeviceMeasurements) -> String {
        func figures(_ f: DeviceFigures) -> [String] {
            let seconds = f.timerSeconds ?? f.elapsedSeconds
            return [
                f.distanceMeters.map { String(format: "%.2f km", $0 / 1000) } ?? "–",
                seconds.map(duration) ?? "–",
                f.ascentMeters.map { String(format: "%.0f m", $0) } ?? "–",
                f.averageHeartRate.map { String(format: "%.0f bpm", $0) } ?? "–",
                f.averagePowerWatts.map { String(format: "%.0f W", $0) } ?? "–",
            ]
        }
        var lines: [String] = []
        if let totals = device.totals {
            let parts = zip(["Distance", "Moving", "Climb", "Heart rate", "Power"], figures(totals)).filter { $0.1 != "–" }.map { "\($0.0) \($0.1)" }
            if !parts.isEmpty { lines.append("<p class=\"device\">Device: \(parts.joined(separator: " · "))</p>") }
        }
        if device.laps.count >= 2 {
            lines.append("<table class=\"laps\"><caption>Laps</caption><thead><tr><th scope=\"col\">Lap</th><th scope=\"col\">Distance</th>"
                + "<th scope=\"col\">Time</th><th scope=\"col\">Climb</th><th scope=\"col\">Heart rate</th><th scope=\"col\">Power</th></tr></thead><tbody>")
            for (index, lap) in device.laps.enumerated() {
                lines.append("<tr><th scope=\"row\">\(index + 1)</th>" + figures(lap).map { "<td>\($0)</td>" }.joined() + "</tr>")
            }
            lines.append("</tbody></table>")
        }
        return lines.joined(separator: "\n")
    }

    /// The line as SVG (north up, metres to scale, across the antimeridian the short way), each segment its own
    /// polyline: a gap stays a gap.
    static func lineSVG(_ segments: [[Coordinate]]) -> String {
        let all = segments.flatMap { $0 }
        guard let first = all.first else { return "<p>No positions to show.</p>" }
        let cosine = cos(first.latitude * .pi / 180)
        func x(_ c: Coordinate) -> Double {
            var dLon = c.longitude - first.longitude
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return dLon * cosine
        }
        let xs = all.map(x), ys = all.map { -$0.latitude }
        let minX = xs.min()!, maxX = xs.max()!, minY = ys.min()!, maxY = ys.max()!
        // As wide as the page, as high as the line needs (between a strip and a square), the line centred.
        let width = 640.0, margin = 12.0
        let spanX = max(maxX - minX, 1e-9), spanY = max(maxY - minY, 1e-9)
        let height = min(width, max(120, (width - 2 * margin) * spanY / spanX + 2 * margin))
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        let offsetX = (width - spanX * scale) / 2, offsetY = (height - spanY * scale) / 2
        let step = max(1, all.count / maximumDrawnPoints)
        let polylines = segments.map { segment -> String in
            let kept = segment.enumerated().filter { $0.offset % step == 0 || $0.offset == segment.count - 1 }.map(\.element)
            let points = kept.map { String(format: "%.1f,%.1f", offsetX + (x($0) - minX) * scale, offsetY + (-$0.latitude - minY) * scale) }
            return "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"3\" stroke-linejoin=\"round\"/>"
        }
        return "<svg class=\"line\" role=\"img\" aria-label=\"The ride's line\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"100%\" style=\"background:#f3f5f7;border-radius:8px\">"
            + polylines.joined() + "</svg>"
    }

    /// A profile against distance as SVG, with its range in words; nothing when it has no values.
    static func profileSVG(_ title: String, _ distances: [Double], _ values: [Double?]) -> String {
        let known = zip(distances, values).compactMap { d, v in v.map { (d, $0) } }.filter { $0.1.isFinite }
        guard known.count > 1, let total = distances.last, total > 0 else { return "" }
        let low = known.map(\.1).min()!, high = known.map(\.1).max()!
        let width = 640.0, height = 120.0
        // At least one unit high: a steady speed draws a flat line in the middle, not its rounding noise.
        let span = max(high - low, 1), bottom = (low + high) / 2 - span / 2
        let points = known.map { String(format: "%.1f,%.1f", $0.0 / total * width, height - 4 - ($0.1 - bottom) / span * (height - 8)) }
        return "<figure><figcaption>\(title): \(String(format: "%.0f", low)) – \(String(format: "%.0f", high))</figcaption>"
            + "<svg role=\"img\" aria-label=\"\(title)\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" width=\"100%\" style=\"background:#f3f5f7\">"
            + "<polyline points=\"\(points.joined(separator: " "))\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"2\"/></svg></figure>"
    }
}
