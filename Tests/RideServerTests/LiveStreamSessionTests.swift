import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
@testable import RideServer
import RideStore
import Testing

/// An open `/api/live` stream does not outlive its login (issue 20, finding 8): after a logout, the next position
/// is not sent and the stream ends (it used to go on sending positions until its `maxSeconds`).
@Suite struct LiveStreamSessionTests {
    @Test func aLiveStreamEndsAtLogout() async throws {
        let server = try await TestServer.withAccounts()
        let (_, token) = try await server.addDevice("Anna's phone", user: "anna")
        try await server.run { client in
            let anna = try await Session.login(client, "anna")
            let started = Date()
            let stream = Task { try await anna.get("/api/live?maxSeconds=60") }
            try await Task.sleep(for: .milliseconds(500))
            #expect(try await anna.post("/api/logout").status == .noContent)
            try await LiveShareTests.post(client, token: token, lat: 46.52, at: Int(Date().timeIntervalSince1970) - 1, user: "anna")
            let answer = try await stream.value
            #expect(Date().timeIntervalSince(started) < 40, "the stream went on after the logout")
            #expect(!answer.text.contains("event: fix"), "\(answer.text)")
        }
    }
}
