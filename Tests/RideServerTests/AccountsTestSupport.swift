import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

extension TestServer {
    /// A server with accounts on (as on a public address), cheap password hashes, and users with passwords.
    static func withAccounts(users: [String] = ["anna", "bob"]) async throws -> TestServer {
        var server = try await TestServer()
        server.configuration.accounts = true
        server.configuration.passwordHasher = .forTesting
        for name in users {
            _ = try await server.library.store.createUser(name: name, passwordHash: try PasswordHasher.forTesting.hash(Self.password(of: name)))
        }
        return server
    }

    static func password(of name: String) -> String { "secret of \(name)" }

    /// A new device of a user and its token.
    func addDevice(_ name: String, user: String) async throws -> (device: Device, token: String) {
        let store = library.store
        let owner = try #require(try await store.user(named: user))
        let token = SecretToken.make()
        let device = try await store.createDevice(NewDevice(name: name, tokenHash: SecretToken.hash(token), protocolName: "any"), userID: owner.id)
        return (device, token)
    }
}

/// Requests as a logged-in browser makes them: the session cookie, and the page's own Origin on changes.
struct Session: Sendable {
    let client: any TestClientProtocol
    let cookie: String

    static let origin = "http://localhost"

    /// Logs in through `POST /api/login`.
    static func login(_ client: any TestClientProtocol, _ name: String, password: String? = nil) async throws -> Session {
        let response = try await client.execute(
            uri: "/api/login", method: .post,
            headers: [.contentType: "application/json", .origin: origin],
            body: ByteBuffer(string: #"{"name":"\#(name)","password":"\#(password ?? TestServer.password(of: name))"}"#))
        #expect(response.status == .ok, "\(response.text)")
        let setCookie = try #require(response.headers[.setCookie])
        let value = try #require(setCookie.split(separator: ";").first)
        return Session(client: client, cookie: String(value))
    }

    func request(_ uri: String, _ method: HTTPRequest.Method, json: String? = nil, headers extra: HTTPFields = [:]) async throws -> TestResponse {
        var headers: HTTPFields = [.cookie: cookie]
        if method != .get && method != .head { headers[.origin] = Self.origin }
        if json != nil { headers[.contentType] = "application/json" }
        headers.append(contentsOf: extra)
        return try await client.execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }

    func get(_ uri: String) async throws -> TestResponse { try await request(uri, .get) }
    func post(_ uri: String, json: String = "{}") async throws -> TestResponse { try await request(uri, .post, json: json) }
    func patch(_ uri: String, json: String) async throws -> TestResponse { try await request(uri, .patch, json: json) }
    func delete(_ uri: String) async throws -> TestResponse { try await request(uri, .delete) }
}
