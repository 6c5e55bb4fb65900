import Foundation
import Hummingbird
import RideKit

/// `/api/recordings`: Start, fixes, Pause, Resume, Stop (DESIGN 6).
///
/// The logic is RideKit's `Recorder`, run by the `RecordingService`, which keeps each recording in the store.
/// Every request is validated whole before anything changes.
struct RecordingsController<Context: UserRequestContext> {
    /// Limits on request bodies: a batch of `Recorder.maximumBatchSize` fixes of about 200 bytes fits in 1 MiB.
    static var fixesBodyLimitBytes: Int { 1 << 20 }
    static var commandBodyLimitBytes: Int { 16 << 10 }

    let services: RecordingServices

    func addRoutes(to group: RouterGroup<Context>) {
        group.post(use: start)
        group.put("{id}", use: startWithClientID)
        group.get("{id}", use: get)
        group.patch("{id}", use: update)
        group.post("{id}/fixes", use: appendFixes)
        group.post("{id}/pause") { request, context in try await change(.pause, request, context) }
        group.post("{id}/resume") { request, context in try await change(.resume, request, context) }
        group.post("{id}/stop", use: stop)
        group.post("{id}/laps", use: addLap)
    }

    @Sendable func start(_ request: Request, context: Context) async throws -> EditedResponse<RecordingResponse> {
        let service = try await services.service(for: context)
        let new = try await Self.newRecording(request)
        let (info, recorder) = try await service.start(new)
        context.logger.info("recording started", metadata: ["recording": "\(info.id)"])
        return EditedResponse(status: .created, headers: [.location: "/api/recordings/\(info.id)"],
                              response: RecordingResponse(info: info, recorder: recorder))
    }

    /// `PUT /api/recordings/{clientId}`: Start under the client's own id (a UUID), so that a phone can start a
    /// ride offline, queue the start with its fixes, and send it when the network is back. Sent again, it
    /// changes nothing and answers the recording as it is (200 instead of 201); the first start's body counts.
    @Sendable func startWithClientID(_ request: Request, context: Context) async throws -> EditedResponse<RecordingResponse> {
        let service = try await services.service(for: context)
        let given = try context.parameters.require("id")
        guard let clientID = RecordingService.clientID(given) else {
            throw APIError.badRequest("invalid_value", "a recording started by the client is named by a UUID, such as 3f2b6c1e-8d4a-4f3e-9c2a-1b2c3d4e5f60, not \"\(given.prefix(64))\"")
        }
        let new = try await Self.newRecording(request)
        let (info, recorder, created) = try await service.start(new, clientID: clientID)
        if created { context.logger.info("recording started", metadata: ["recording": "\(info.id)", "clientId": "\(clientID)"]) }
        return EditedResponse(status: created ? .created : .ok, headers: [.location: "/api/recordings/\(info.id)"],
                              response: RecordingResponse(info: info, recorder: recorder))
    }

    /// The start request's body, checked whole.
    static func newRecording(_ request: Request) async throws -> NewRecordingInfo {
        let body = try await request.decodeJSON(StartRecordingRequest.self, limit: Self.commandBodyLimitBytes, allowEmpty: true)
        let options = Recorder.Options(
            activity: body?.activity ?? .ride, breadcrumbsEnabled: body?.breadcrumbs ?? true, units: body?.units ?? .metric
        )
        let now = Date()
        // A start sent late (queued offline) names the ride after when the rider pressed Start.
        var startedAt = now
        // The rider's own offset, when the phone wrote one (2024-05-01T10:00:00+02:00): the name is in local time.
        var offsetMinutes = 0
        if let text = body?.startedAt {
            guard let time = try? GPXTime(parsing: text) else {
                throw APIError.badRequest("invalid_value", "startedAt must be an RFC 3339 time such as 2024-05-01T10:00:00Z")
            }
            // A phone whose clock runs ahead must not lose its ride: a start in the future is taken as now.
            startedAt = min(time.date, now)
            if case .minutes(let minutes) = time.offset { offsetMinutes = minutes }
        }
        var name = body?.name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard name.count <= 200 else { throw APIError.badRequest("invalid_value", "name is longer than 200 characters") }
        if name.isEmpty { name = Self.defaultName(activity: options.activity, at: startedAt, offsetMinutes: offsetMinutes) }
        var info = NewRecordingInfo(name: name, options: options, routeTrackID: body?.routeTrackId, startedAt: startedAt)
        info.simulated = body?.simulated ?? false
        return info
    }

    @Sendable func get(_ request: Request, context: Context) async throws -> RecordingResponse {
        let service = try await services.service(for: context)
        let (info, recorder, navigation) = try await service.current(try context.parameters.require("id"))
        return RecordingResponse(info: info, recorder: recorder, navigation: navigation)
    }

    /// `PATCH /api/recordings/{id}` `{"routeTrackId": "…" | null}`: chooses, changes or drops the route mid-ride.
    @Sendable func update(_ request: Request, context: Context) async throws -> RecordingResponse {
        let service = try await services.service(for: context)
        let id = try context.parameters.require("id")
        guard let body = try await request.decodeJSON(RecordingChangesRequest.self, limit: Self.commandBodyLimitBytes),
              let routeTrackID = body.routeTrackId
        else {
            throw APIError.badRequest("bad_json", "the body must be {\"routeTrackId\": \"…\"} or {\"routeTrackId\": null}")
        }
        let (info, recorder, navigation) = try await service.setRoute(routeTrackID, for: id)
        context.logger.info("recording route changed", metadata: ["recording": "\(info.id)", "route": "\(routeTrackID ?? "none")"])
        return RecordingResponse(info: info, recorder: recorder, navigation: navigation)
    }

    @Sendable func appendFixes(_ request: Request, context: Context) async throws -> FixBatchResponse {
        let service = try await services.service(for: context)
        let id = try context.parameters.require("id")
        guard let body = try await request.decodeJSON(FixBatchRequest.self, limit: Self.fixesBodyLimitBytes) else {
            throw APIError.badRequest("bad_json", "the body must be {\"fixes\": [...]}")
        }
        let fixes = try body.recordingFixes()
        let (info, update, navigation) = try await service.follow(fixes, to: id)
        return FixBatchResponse(info: info, update: update, navigation: navigation)
    }

    func change(_ command: RecorderCommand, _ request: Request, _ context: Context) async throws -> RecordingResponse {
        let service = try await services.service(for: context)
        let (info, recorder) = try await service.change(try context.parameters.require("id"), to: command)
        context.logger.info("recording \(command.rawValue)d", metadata: ["recording": "\(info.id)"])
        return RecordingResponse(info: info, recorder: recorder)
    }

    /// `POST /api/recordings/{id}/laps` `{"time": RFC 3339}`: a lap marked at that time (the latest fix's when the rider
    /// pressed Lap). Idempotent: a lap is its time, so the outbox's retry of a mark the server already stored adds
    /// nothing. The answer lists every mark, `{"laps": [times]}`; the track page shows the laps' figures.
    @Sendable func addLap(_ request: Request, context: Context) async throws -> LapMarksResponse {
        let service = try await services.service(for: context)
        // The store's id, or the client's own (`PUT /api/recordings/{clientId}`, which the outbox uses).
        let id = try RecordingService.storeID(try await service.resolve(try context.parameters.require("id")))
        guard let body = try await request.decodeJSON(LapRequest.self, limit: Self.commandBodyLimitBytes, allowEmpty: false) else {
            throw APIError.badRequest("bad_json", "the body must be {\"time\": \"2024-05-01T10:00:00.000Z\"}")
        }
        let time: GPXTime
        do {
            time = try GPXTime(parsing: body.time)
        } catch {
            throw APIError.badRequest("invalid_value", "time must be an RFC 3339 time such as 2024-05-01T10:00:00.000Z")
        }
        let milliseconds = time.secondsSince1970 * 1000 + Int64(time.nanoseconds / 1_000_000)
        let marks = try await service.library.mine.addLapMark(recordingID: id, timeMilliseconds: milliseconds)
        return LapMarksResponse(laps: marks.map(LapMarksResponse.text))
    }

    @Sendable func stop(_ request: Request, context: Context) async throws -> RecordingResponse {
        let service = try await services.service(for: context)
        let (info, recorder) = try await service.stop(try context.parameters.require("id"))
        context.logger.info("recording stopped", metadata: ["recording": "\(info.id)", "track": "\(info.trackID ?? "")"])
        return RecordingResponse(info: info, recorder: recorder)
    }

    /// "Ride 2024-05-01 10:00" in the rider's local time (the offset the phone gave with its start, else UTC):
    /// a name that sorts and says what it was.
    static func defaultName(activity: ActivityKind, at date: Date, offsetMinutes: Int = 0) -> String {
        var local = GPXTime(date: date)
        local.offset = .minutes(offsetMinutes)
        let time = local.rfc3339  // 2024-05-01T12:00:00.123+02:00
        let day = time.prefix(10)
        let clock = time.dropFirst(11).prefix(5)
        return "\(activity.rawValue.capitalized) \(day) \(clock)"
    }
}

extension Request {
    /// Reads the body, at most `limit` bytes, as JSON. nil for an empty body when `allowEmpty`.
    ///
    /// A body must say it is JSON (`Content-Type: application/json`), else 415: a form or `text/plain` is what
    /// another site's page can post without asking, and it is never the web app, the command line or a client.
    func decodeJSON<T: Decodable>(_ type: T.Type, limit: Int, allowEmpty: Bool = false) async throws -> T? {
        let buffer = try await body.collect(upTo: limit)
        if buffer.readableBytes == 0 {
            if allowEmpty { return nil }
            throw APIError.badRequest("bad_json", "the body is empty; it must be JSON")
        }
        guard isJSON else {
            throw APIError(.unsupportedMediaType, code: "unsupported_media_type", message: "send the body as JSON, with Content-Type: application/json")
        }
        return try JSONDecoder().decode(T.self, from: buffer)
    }

    /// True when `Content-Type` is `application/json` (any parameters, any case).
    var isJSON: Bool {
        guard let type = headers[.contentType]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() else { return false }
        return type == "application/json"
    }
}
