import Foundation
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

@Suite struct PlaceShareLinkTests {
    /// A link is read with no session (the test client sends no cookie or token), shows the place with
    /// everything user-written escaped, and is gone once revoked.
    @Test func sharedPageIsReadWithoutSessionEscapedAndRevoked() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            let created = try await client.post(
                "/api/places",
                json: #"{"name":"<script>alert(1)</script> Café","latitude":46.5197,"longitude":6.6323,"address":"Rue \"du\" Lac & <b>1</b>"}"#)
            let id = try #require(try created.jsonObject()["id"] as? String)
            #expect(try await client.post("/api/places/\(id)/notes", json: #"{"body":"<img src=x onerror=alert(2)>\nsecond line"}"#).status == .created)

            let shared = try await client.post("/api/places/\(id)/share")
            #expect(shared.status == .created)
            let token = try #require(try shared.jsonObject()["token"] as? String)
            #expect(try shared.jsonObject()["url"] as? String == "/share/\(token)")
            // 32 random bytes in base64url: 43 characters of its alphabet, at least 128 bits.
            #expect(token.count == 43 && ShareLink.isWellFormed(token: token))
            let again = try #require(try await client.post("/api/places/\(id)/share").jsonObject()["token"] as? String)
            #expect(again != token)

            let page = try await client.get("/share/\(token)")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            let html = page.text
            #expect(html.contains("<h1>&lt;script&gt;alert(1)&lt;/script&gt; Café</h1>"))
            #expect(html.contains("Rue &quot;du&quot; Lac &amp; &lt;b&gt;1&lt;/b&gt;"))
            #expect(html.contains("&lt;img src=x onerror=alert(2)&gt;\nsecond line"))
            #expect(!html.contains("<script>") && !html.contains("<img src=x") && !html.contains("<b>"))
            #expect(html.contains(#"href="geo:46.5197,6.6323""#))
            #expect(html.contains("https://www.openstreetmap.org/?mlat=46.5197&amp;mlon=6.6323"))

            #expect(try await client.delete("/api/shares/\(token)").status == .noContent)
            #expect(try await client.get("/share/\(token)").status == .notFound)
            #expect(try await client.delete("/api/shares/\(token)").status == .notFound)
            // The other link still works until its place is deleted.
            #expect(try await client.get("/share/\(again)").status == .ok)
            #expect(try await client.delete("/api/places/\(id)").status == .noContent)
            #expect(try await client.get("/share/\(again)").status == .notFound)
        }
    }

    @Test func unknownPlacesAndTokensAreNotFound() async throws {
        let database = try TemporaryStore()
        try await database.server().server.run { client in
            #expect(try await client.post("/api/places/ZZZZZZZZ/share").status == .notFound)
            #expect(try await client.post("/api/places/not!an!id/share").status == .notFound)
            #expect(try await client.get("/share/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").status == .notFound)
            #expect(try await client.get("/share/short").status == .notFound)
            let missing = try await client.delete("/api/shares/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
            #expect(missing.status == .notFound)
            #expect(try missing.errorCode() == "not_found")
        }
    }

    @Test func tokensAreDistinctAndUseTheBase64URLAlphabet() {
        let tokens = (0..<1000).map { _ in SharesController<RideRequestContext>.makeToken() }
        #expect(Set(tokens).count == tokens.count)
        #expect(tokens.allSatisfy { $0.count == 43 && ShareLink.isWellFormed(token: $0) })
        // Never an option on the command line (`bikeride places share TOKEN --revoke`): with a random first
        // character, about 16 of these 1,000 would start with "-".
        #expect(!tokens.contains { $0.hasPrefix("-") })
        // Still spread over the characters a first byte below 128 gives (A–Z a–f: 32 of them).
        #expect(Set(tokens.map(\.first)).count > 25)
    }
}
