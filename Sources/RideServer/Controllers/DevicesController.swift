import Foundation
import Hummingbird
import RideKit
import RideStore

/// `/api/devices`: the phone apps that post positions for the user. `POST` makes one with a new random token
/// (256 bits, answered once, stored as its SHA-256), `POST /{id}/token` replaces the token (the old one stops
/// working at once), `DELETE /{id}` revokes the device. Each answer with a token carries, per app, the exact
/// URL and settings to paste (`setup`).
struct DevicesController<Context: UserRequestContext>: Sendable {
    let library: TrackLibrary
    /// The ingestion's cache of recent tokens: a rotated or deleted device's token is forgotten there at once.
    var tokens = DeviceTokenCache()
    /// `--public-url`: the address the phones reach this server at, for the setup lines; nil for the address the
    /// browser used (which a phone cannot reach when it is 127.0.0.1).
    var publicURL: String?

    static var protocols: [String] { ["owntracks", "overland", "osmand", "gpslogger"] }

    struct NewDeviceRequest: Decodable {
        var name: String
        var `protocol`: String?
    }

    func addRoutes(to router: Router<Context>) {
        let group = router.group("api/devices")
        group.get { request, context in try await list(request, context) }
        group.post { request, context in try await create(request, context) }
        group.delete("{id}") { request, context in try await delete(request, context) }
        group.post("{id}/token") { request, context in try await rotate(request, context) }
    }

    func list(_ request: Request, _ context: Context) async throws -> DeviceListPayload {
        let library = try self.library.scoped(to: context)
        let latest = try await library.mine.latestDeviceFixes()
        let devices = try await library.mine.devices().map { device in
            DevicePayload(device, latest: latest.first { $0.deviceID == device.id })
        }
        return DeviceListPayload(devices: devices)
    }

    func create(_ request: Request, _ context: Context) async throws -> EditedResponse<DevicePayload> {
        let library = try self.library.scoped(to: context)
        guard let body = try await request.decodeJSON(NewDeviceRequest.self, limit: 16 << 10) else {
            throw APIError.badRequest("invalid_value", "send {\"name\": \"…\"}")
        }
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100 else { throw APIError.badRequest("invalid_value", "a device needs a name of 1 to 100 characters") }
        let kind = body.protocol ?? "any"
        guard kind == "any" || Self.protocols.contains(kind) else {
            throw APIError.badRequest("invalid_value", "protocol must be one of \(Self.protocols.joined(separator: ", ")) (or absent)")
        }
        let token = SecretToken.make()
        let device = try await library.mine.createDevice(NewDevice(name: name, tokenHash: SecretToken.hash(token), protocolName: kind))
        let user = try await library.mine.user()
        var payload = DevicePayload(device, latest: nil)
        payload.token = token
        payload.tokenQRSVG = try? QRCode(text: token).svg()
        payload.setup = DeviceSetup(baseURL: baseURL(request, context), userName: user?.name ?? "", token: token)
        return EditedResponse(status: .created, headers: [.location: "/api/devices/\(device.id)"], response: payload)
    }

    func rotate(_ request: Request, _ context: Context) async throws -> DevicePayload {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        guard let id = DeviceID(text) else { throw APIError.notFound("no device with id \(text)") }
        let token = SecretToken.make()
        let device = try await library.mine.replaceDeviceToken(id: id, tokenHash: SecretToken.hash(token))
        tokens.forget(deviceID: id)
        let user = try await library.mine.user()
        var payload = DevicePayload(device, latest: nil)
        payload.token = token
        payload.tokenQRSVG = try? QRCode(text: token).svg()
        payload.setup = DeviceSetup(baseURL: baseURL(request, context), userName: user?.name ?? "", token: token)
        return payload
    }

    func delete(_ request: Request, _ context: Context) async throws -> Response {
        let library = try self.library.scoped(to: context)
        let text = try context.parameters.require("id")
        guard let id = DeviceID(text), try await library.mine.deleteDevice(id: id) else {
            throw APIError.notFound("no device with id \(text)")
        }
        tokens.forget(deviceID: id)
        return Response(status: .noContent)
    }

    /// The server's address as the browser reached it (a proxy's `X-Forwarded-Proto` says https).
    /// The server's address as a phone should be told it: `--public-url`, else the scheme and host the request
    /// came to (the scheme as a trusted proxy says it, `clientScheme`).
    func baseURL(_ request: Request, _ context: Context) -> String {
        if let publicURL, let origin = ServerConfiguration.origin(of: publicURL) { return origin }
        return context.clientScheme + "://" + (request.head.authority ?? "localhost")
    }
}

struct DeviceListPayload: ResponseEncodable {
    var devices: [DevicePayload]
}

/// A device as the API shows it; `token` and `setup` only in the answer that made the token.
struct DevicePayload: ResponseEncodable {
    var id: String
    var name: String
    var `protocol`: String
    var createdAt: String
    var lastSeenAt: String?
    var token: String?
    /// The token as a QR code (SVG), beside it in the answer that made it: for apps that take it as a password or
    /// identifier.
    var tokenQRSVG: String?
    var setup: DeviceSetup?
    var lastFix: LiveFixPayload?

    init(_ device: Device, latest: StoredDeviceFix?) {
        id = device.id.rawValue
        name = device.name
        self.protocol = device.protocolName
        createdAt = GPXTime(date: device.createdAt).rfc3339
        lastSeenAt = device.lastSeenAt.map { GPXTime(date: $0).rfc3339 }
        lastFix = latest.map(LiveFixPayload.init)
    }
}

/// What to paste into each app (DESIGN 4.4; README "Phone apps").
struct DeviceSetup: Codable, Sendable {
    struct App: Codable, Sendable {
        var url: String
        var settings: [String: String]
        /// `url` as a QR code (an SVG document, RideKit's `QRCode`) for the phone's camera; nil when it is too long
        /// for one (over 271 bytes, which no setup URL reaches).
        var qrSVG: String?

        init(url: String, settings: [String: String]) {
            self.url = url
            self.settings = settings
            qrSVG = try? QRCode(text: url).svg(title: url)
        }
    }

    var owntracks: App
    var overland: App
    var osmand: App
    var gpslogger: App

    init(baseURL: String, userName: String, token: String) {
        owntracks = App(
            url: baseURL + "/ingest/owntracks",
            settings: ["Mode": "HTTP", "URL": baseURL + "/ingest/owntracks", "Authentication": "on", "UserID": userName, "Password": token])
        overland = App(url: baseURL + "/ingest/overland?token=" + token, settings: ["Receiver Endpoint": baseURL + "/ingest/overland?token=" + token])
        osmand = App(
            url: baseURL + "/ingest/osmand",
            settings: ["Server URL": baseURL + "/ingest/osmand", "Device identifier": token,
                       "OsmAnd online tracking URL": baseURL + "/ingest/osmand?id=" + token + "&lat={0}&lon={1}&timestamp={2}&hdop={3}&altitude={4}&speed={5}"])
        let gps = baseURL + "/ingest/gpslogger?token=" + token + "&lat=%LAT&lon=%LON&time=%TIME&alt=%ALT&spd=%SPD&dir=%DIR&acc=%ACC&batt=%BATT"
        gpslogger = App(url: gps, settings: ["URL": gps, "HTTP Method": "GET"])
    }
}
