import Foundation
import Hummingbird
import RideStore

/// `POST /api/login {"name", "password"}` sets the session cookie; `POST /api/logout` ends the session;
/// `GET /api/session` says who is logged in (and whether accounts are on), for the web app.
///
/// A wrong name and a wrong password answer alike (401 `invalid_login`), and take the same time: an unknown
/// name costs one hash too. Attempts are limited per name and address, per address and per name (429 with
/// `Retry-After`; `LoginLimits` says how), counted by `limiter` before the hash and settled after: in memory, or in
/// the database that several instances share. Hashing runs on `PasswordWork`, off the event loop, with a bounded
/// queue: past it a login answers 429 at once.
struct AccountsController<Context: UserRequestContext>: Sendable {
    let store: any RideStore
    let sessions: SessionAuthority
    let limiter: any LoginFailureCounter
    let work: PasswordWork
    let accountsRequired: Bool
    /// The configured cost: an unknown name (or a user without a password) costs one hash of the password,
    /// as long as a real check, so the time of an answer does not tell which names exist.
    let hasher: PasswordHasher

    struct LoginRequest: Decodable {
        var name: String
        var password: String
    }

    struct SessionPayload: ResponseEncodable {
        var user: UserPayload?
        var accounts: Bool

        enum CodingKeys: String, CodingKey { case user, accounts }

        // `"user": null` when no one is logged in (not an absent key).
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(user, forKey: .user)
            try container.encode(accounts, forKey: .accounts)
        }
    }

    struct UserPayload: Codable, Sendable {
        var id: String
        var name: String
    }

    func addRoutes(to router: Router<Context>) {
        router.post("api/login") { request, context in try await login(request, context) }
        router.post("api/logout") { request, context in try await logout(request, context) }
        router.get("api/session") { request, context in try await session(request, context) }
    }

    func login(_ request: Request, _ context: Context) async throws -> Response {
        guard let body = try await request.decodeJSON(LoginRequest.self, limit: 16 << 10) else {
            throw APIError.badRequest("invalid_value", "send {\"name\": \"…\", \"password\": \"…\"}")
        }
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty, name.count <= 100, body.password.utf8.count <= PasswordHasher.maximumPasswordBytes else {
            throw APIError(.unauthorized, code: "invalid_login", message: "wrong name or password")
        }
        // Counted before the hash (a burst is counted as it arrives), settled after: at most the limit is evaluated.
        let address = context.remoteIPAddress
        let reservedAt = Date()
        if let wait = try await limiter.reserve(name: name, address: address, now: reservedAt) {
            context.logger.notice("login refused: rate limit", metadata: ["name": "\(name.logSafe)", "address": "\(address ?? "?")"])
            throw Self.tooManyAttempts(wait: wait, "too many failed logins; try again in \(wait) seconds")
        }
        let user: User?
        let matches: Bool
        do {
            user = try await store.user(named: name)
            let hash = user?.passwordHash
            let password = body.password
            let hasher = self.hasher
            matches = try await work.run {
                guard let hash else {
                    _ = try? hasher.hash(password)
                    return false
                }
                return PasswordHasher.verify(password, against: hash)
            }
        } catch {
            // Not evaluated (the hashing queue is full, or the store failed): the attempt does not count.
            try? await limiter.settle(name: name, address: address, reservedAt: reservedAt, outcome: .notEvaluated)
            if error is PasswordWork.Busy { throw Self.tooManyAttempts(wait: 1, "too many logins are being checked at once; try again in a second") }
            throw error
        }
        guard let user, user.passwordHash != nil, matches else {
            try await limiter.settle(name: name, address: address, reservedAt: reservedAt, outcome: .failed)
            context.logger.notice("login failed", metadata: ["name": "\(name.logSafe)", "address": "\(address ?? "?")"])
            throw APIError(.unauthorized, code: "invalid_login", message: "wrong name or password")
        }
        try await limiter.settle(name: name, address: address, reservedAt: reservedAt, outcome: .succeeded)
        let cookie = try await sessions.start(for: user.id, request: request)
        var response = try SessionPayload(user: UserPayload(id: user.id.rawValue, name: user.name), accounts: accountsRequired)
            .response(from: request, context: context)
        response.setCookie(cookie)
        return response
    }

    static func tooManyAttempts(wait: Int, _ message: String) -> APIError {
        APIError(.tooManyRequests, code: "too_many_attempts", message: message, retryAfterSeconds: wait)
    }

    func logout(_ request: Request, _ context: Context) async throws -> Response {
        let cookie = try await sessions.end(request)
        var response = Response(status: .noContent)
        response.setCookie(cookie)
        return response
    }

    func session(_ request: Request, _ context: Context) async throws -> SessionPayload {
        let userID = accountsRequired ? try await sessions.user(of: request) : context.userID
        guard let userID, let user = try await store.user(id: userID) else { return SessionPayload(user: nil, accounts: accountsRequired) }
        return SessionPayload(user: UserPayload(id: user.id.rawValue, name: user.name), accounts: accountsRequired)
    }
}
