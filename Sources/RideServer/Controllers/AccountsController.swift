import Foundation
import Hummingbird
import RideStore

/// `POST /api/login {"name", "password"}` sets the session cookie; `POST /api/logout` ends the session;
/// `GET /api/session` says who is logged in (and whether accounts are on), for the web app.
///
/// A wrong name and a wrong password answer alike (401 `invalid_login`), and take the same time: an unknown
/// name costs one hash too. Failed attempts are limited per name and per IP (429 with
/// `Retry-After`), counted by `limiter`: in memory, or in the database that several instances share. Hashing
/// runs on `PasswordWork`, off the event loop.
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
        if let wait = try await limiter.retryAfter(name: name, address: context.remoteIPAddress, now: Date()) {
            var error = APIError(.tooManyRequests, code: "too_many_attempts", message: "too many failed logins; try again in \(wait) seconds")
            error.retryAfterSeconds = wait
            throw error
        }
        let user = try await store.user(named: name)
        let hash = user?.passwordHash
        let password = body.password
        let hasher = self.hasher
        let matches = try await work.run {
            guard let hash else {
                _ = try? hasher.hash(password)
                return false
            }
            return PasswordHasher.verify(password, against: hash)
        }
        guard let user, user.passwordHash != nil, matches else {
            try await limiter.recordFailure(name: name, address: context.remoteIPAddress, now: Date())
            context.logger.notice("login failed", metadata: ["name": "\(name.prefix(100))", "address": "\(context.remoteIPAddress ?? "?")"])
            throw APIError(.unauthorized, code: "invalid_login", message: "wrong name or password")
        }
        try await limiter.clearFailures(name: name)
        let cookie = try await sessions.start(for: user.id, request: request)
        var response = try SessionPayload(user: UserPayload(id: user.id.rawValue, name: user.name), accounts: accountsRequired)
            .response(from: request, context: context)
        response.setCookie(cookie)
        return response
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
