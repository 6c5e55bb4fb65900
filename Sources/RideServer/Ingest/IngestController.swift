import Foundation
import Hummingbird
import Logging
import NIOCore
import RideKit
import RideStore

/// The endpoints phone apps post to (DESIGN 2.6, 4.4), each authenticated by a device's token and answering
/// exactly what its app needs to let go of what it sent:
///
/// - `POST /ingest/owntracks`: HTTP Basic (the user's name, the token as password); answers `200` with the
///   friends of the poster (`ownTracksFriends`: users who share their position with them), `[]` for none. A body
///   that can never be valid (not JSON, wrong types, encrypted without a key) is answered 200 too, with the
///   reason logged and counted: OwnTracks re-sends on anything else and would block its queue behind it.
///   Encrypted payloads are opened with `ownTracksSecret` (refused, logged, without one).
/// - `POST /ingest/overland`: `Authorization: Bearer TOKEN` or `?token=`; answers exactly `{"result":"ok"}`
///   once the batch is stored (gzip bodies too, up to `overlandBodyLimitBytes`).
/// - `GET|POST /ingest/osmand`: `id` (or `deviceid`) is the token; query string, form body, or Traccar
///   Client's JSON body; answers 200 with an empty body.
/// - `GET|POST /ingest/gpslogger`: `?token=` (or Bearer / Basic); GPSLogger's custom URL; answers 200.
///
/// A post with no valid token is 401 (a setup mistake the user must see); a store failure is 503 so the app
/// keeps the points and retries. Fixes are stored through `RideStore.ingest`, posts arriving together in one
/// transaction (`IngestCommitter`, group commit): a replay stores nothing twice.
struct IngestController<Context: UserRequestContext>: Sendable {
    let store: any RideStore
    let feed: LiveFeed
    let metrics: ServerMetrics
    /// OwnTracks' encryption secret, when its apps encrypt (nil: encrypted payloads are refused and logged).
    let ownTracksSecret: String?
    /// Whether users may share their position with each other (family needs accounts): the OwnTracks answer then
    /// carries the sharers as friends; without, it is always `[]`.
    let familySharing: Bool
    /// Writes posts in group commits (a gap longer than its `gapSeconds` starts a new track).
    let committer: IngestCommitter
    /// Recently seen tokens' devices (`DeviceTokenCache`: the store still checks each post's device).
    var tokens = DeviceTokenCache()

    /// Overland's 1,000-point batches are about 600 KB; room for twice that, and for gzip's inflated size.
    static var overlandBodyLimitBytes: Int { 4 << 20 }
    static var smallBodyLimitBytes: Int { 256 << 10 }

    func addRoutes(to router: Router<Context>) {
        router.post("ingest/owntracks") { request, context in try await owntracks(request, context) }
        router.post("ingest/overland") { request, context in try await overland(request, context) }
        router.get("ingest/osmand") { request, context in try await osmand(request, context) }
        router.post("ingest/osmand") { request, context in try await osmand(request, context) }
        router.get("ingest/gpslogger") { request, context in try await gpslogger(request, context) }
        router.post("ingest/gpslogger") { request, context in try await gpslogger(request, context) }
    }

    // MARK: Endpoints

    func owntracks(_ request: Request, _ context: Context) async throws -> Response {
        let credentials = Self.basic(request)
        let device = try await authenticate(request, token: credentials?.password ?? Self.bearer(request), userName: credentials?.user)
        let body = try await Self.body(request, limit: Self.smallBodyLimitBytes)
        do {
            try await store(try OwnTracksPayload.parse(body, secret: ownTracksSecret), device: device, app: "owntracks", context)
        } catch let error as TrackerPayloadError {
            refuse(error, device: device, app: "owntracks", context)
        }
        // Family needs accounts: a single-user server has no one to share with, and reads nothing more a post.
        return Self.json(familySharing ? try await ownTracksFriends(of: device, body: body, context) : "[]")
    }

    /// The answer to an OwnTracks post (its "Friends in HTTP mode"): the `card` and `location` of each user who
    /// shares their position with the poster's user, as others may see it (`TrackLibrary.familyMembers`: a position
    /// inside their privacy zones is left out), encrypted when the post was and the server has the secret; `[]`
    /// when no one shares. A failure to read them is logged and answered `[]`: the fixes are stored, and a 5xx
    /// would make the phone send them again.
    func ownTracksFriends(of device: Device, body: Data, _ context: Context) async throws -> String {
        let members: [FamilyMember]
        do {
            members = try await TrackLibrary.familyMembers(of: device.userID, store: store)
        } catch {
            context.logger.error("owntracks friends not read", metadata: ["device": "\(device.id)", "error": "\(error)"])
            return "[]"
        }
        let friends = members.compactMap { member in
            member.fix.map {
                OwnTracksFriends.Friend(
                    name: member.share.sharerName, latitude: $0.latitude, longitude: $0.longitude, time: $0.time, accuracyMeters: $0.accuracyMeters)
            }
        }
        guard !friends.isEmpty else { return "[]" }
        // The body is parsed again only when there is someone to answer with (whether the phone encrypts).
        let answer = Self.isEncrypted(body) && ownTracksSecret != nil
            ? OwnTracksFriends.answer(friends, key: SecretBox.key(fromSecret: ownTracksSecret!)) : OwnTracksFriends.answer(friends)
        return String(decoding: answer, as: UTF8.self)
    }

    /// Whether an OwnTracks body is an `encrypted` message (the phone then expects its friends encrypted too).
    static func isEncrypted(_ body: Data) -> Bool {
        guard body.count < smallBodyLimitBytes, let object = try? JSONSerialization.jsonObject(with: body) else { return false }
        if let message = object as? [String: Any] { return message["_type"] as? String == "encrypted" }
        return (object as? [[String: Any]])?.contains { $0["_type"] as? String == "encrypted" } ?? false
    }

    func overland(_ request: Request, _ context: Context) async throws -> Response {
        let device = try await authenticate(request, token: Self.bearer(request) ?? request.uri.queryParameters["token"].map(String.init))
        var body = try await Self.body(request, limit: Self.overlandBodyLimitBytes)
        do {
            if request.headers[.contentEncoding]?.lowercased().contains("gzip") == true || body.starts(with: [0x1F, 0x8B]) {
                body = try TrackerPayload.inflate(body, maximumBytes: Self.overlandBodyLimitBytes)
            }
            try await store(try OverlandPayload.parse(body), device: device, app: "overland", context)
        } catch let error as TrackerPayloadError {
            // Not Overland's format at all: no retry will fix it, so it is let go (answered ok) and logged.
            refuse(error, device: device, app: "overland", context)
        }
        return Self.json(#"{"result":"ok"}"#)
    }

    func osmand(_ request: Request, _ context: Context) async throws -> Response {
        let isJSON = request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true
        let body = request.method == .post ? try await Self.body(request, limit: Self.smallBodyLimitBytes) : Data()
        if isJSON {
            let parameters = try FormParameters(request.uri.query ?? "")
            // Traccar Client's JSON carries the id inside; the query may carry it too.
            let payload = try? OsmAndPayload.parse(json: body)
            guard let token = OsmAndPayload.deviceID(parameters) ?? payload?.deviceHint else { throw Self.missingToken }
            let device = try await authenticate(request, token: token)
            do {
                try await store(try OsmAndPayload.parse(json: body), device: device, app: "osmand", context)
            } catch let error as TrackerPayloadError {
                refuse(error, device: device, app: "osmand", context)
            }
            return Response(status: .ok)
        }
        let parameters = try Self.parameters(request, body: body)
        guard let token = OsmAndPayload.deviceID(parameters) else { throw Self.missingToken }
        let device = try await authenticate(request, token: token)
        try await store(OsmAndPayload.parse(parameters), device: device, app: "osmand", context)
        return Response(status: .ok)
    }

    func gpslogger(_ request: Request, _ context: Context) async throws -> Response {
        let body = request.method == .post ? try await Self.body(request, limit: Self.smallBodyLimitBytes) : Data()
        let parameters = try Self.parameters(request, body: body)
        let device = try await authenticate(request, token: parameters["token"] ?? Self.bearer(request) ?? Self.basic(request)?.password)
        try await store(GPSLoggerPayload.parse(parameters), device: device, app: "gpslogger", context)
        return Self.json(#"{"result":"ok"}"#)
    }

    // MARK: Storing

    func store(_ payload: TrackerPayload, device: Device, app: String, _ context: Context) async throws {
        for rejection in payload.rejected {
            context.logger.notice("\(app) fix refused", metadata: ["device": "\(device.id)", "reason": "\(rejection)"])
        }
        metrics.increment(.ingestFixesRefused, by: payload.rejected.count)
        let result: IngestResult
        do {
            result = try await committer.submit(DevicePost(fixes: payload.fixes, deviceID: device.id, userID: device.userID))
        } catch RideStoreError.notFound {
            throw APIError.unauthorizedDevice  // revoked between the lookup and the write
        } catch let error as RideStoreError {
            context.logger.error("\(app) post not stored", metadata: ["device": "\(device.id)", "error": "\(error)"])
            throw APIError(.serviceUnavailable, code: "store_error", message: "not stored; send again later")
        }
        metrics.increment(.ingestFixesStored, by: result.storedCount)
        metrics.increment(.ingestFixesDuplicate, by: result.duplicateCount)
        if result.storedCount > 0 { await feed.notify(device.userID) }
        context.logger.debug("\(app) post", metadata: [
            "device": "\(device.id)", "stored": "\(result.storedCount)", "duplicates": "\(result.duplicateCount)",
            "refused": "\(payload.rejected.count)", "ignored": "\(payload.ignoredTypes.count)",
        ])
    }

    func refuse(_ error: TrackerPayloadError, device: Device, app: String, _ context: Context) {
        metrics.increment(.ingestFixesRefused)
        context.logger.notice("\(app) post refused", metadata: ["device": "\(device.id)", "reason": "\(error)"])
    }

    // MARK: Authentication

    /// The device whose token this is (and, when a user name is given, whose user has that name), or 401.
    func authenticate(_ request: Request, token: String?, userName: String? = nil) async throws -> Device {
        guard let token, SecretToken.isPlausible(token) else { throw token == nil ? Self.missingToken : APIError.unauthorizedDevice }
        let hash = SecretToken.hash(token)
        let wantsName = userName.map { !$0.isEmpty } ?? false
        if let cached = tokens.entry(hash), !wantsName || cached.userName != nil {
            guard !wantsName || cached.userName == userName else { throw APIError.unauthorizedDevice }
            return cached.device
        }
        guard let device = try await store.device(tokenHash: hash) else { throw APIError.unauthorizedDevice }
        var name: String?
        if wantsName {
            guard let user = try await store.user(id: device.userID), user.name == userName else { throw APIError.unauthorizedDevice }
            name = user.name
        }
        tokens.remember(device, userName: name, tokenHash: hash)
        return device
    }

    static var missingToken: APIError {
        APIError(.unauthorized, code: "unauthorized", message: "this endpoint needs a device token (bikeride devices add NAME)")
    }

    static func bearer(_ request: Request) -> String? {
        authorization(request, scheme: "bearer").map(String.init)
    }

    /// The user and password of HTTP Basic authentication.
    static func basic(_ request: Request) -> (user: String, password: String)? {
        guard let encoded = authorization(request, scheme: "basic"), let data = Data(base64Encoded: String(encoded)),
              let text = String(validating: data, as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }

    /// The credentials of an `Authorization` header of `scheme` (lower case): what follows the scheme and a space,
    /// without the spaces and tabs around it. Read on every post, so plain `Substring` work, not Foundation's
    /// `trimmingCharacters`, which bridged through `NSString` and was a twentieth of a busy server's time.
    static func authorization(_ request: Request, scheme: String) -> Substring? {
        guard let value = request.headers[.authorization], value.utf8.count < 1024, let space = value.firstIndex(of: " "),
              value[..<space].lowercased() == scheme
        else { return nil }
        let credentials = value[value.index(after: space)...]
        let isBlank = { (character: Character) in character == " " || character == "\t" }
        guard let first = credentials.firstIndex(where: { !isBlank($0) }), let last = credentials.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return credentials[first...last]
    }

    // MARK: Bodies

    static func body(_ request: Request, limit: Int) async throws -> Data {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Data(buffer.readableBytesView)
        } catch {
            throw APIError(.contentTooLarge, code: "body_too_large", message: "the body is larger than \(limit) bytes")
        }
    }

    /// The query's parameters, and a form body's over them.
    static func parameters(_ request: Request, body: Data) throws -> FormParameters {
        var values = try FormParameters(request.uri.query ?? "").values
        if !body.isEmpty {
            guard let text = String(data: body, encoding: .utf8) else { throw APIError.badRequest("invalid_value", "the form body is not UTF-8") }
            for (name, value) in try FormParameters(text).values where values[name] == nil { values[name] = value }
        }
        return FormParameters(values: values)
    }

    static func json(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

extension APIError {
    static var unauthorizedDevice: APIError {
        APIError(.unauthorized, code: "unauthorized", message: "unknown or revoked device token")
    }
}
