import Foundation
import TestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RideKit
@testable import RideServer
import RideStore
import Testing

/// The phone apps' endpoints (issue 12 part 3) with the real payloads under `../shared/fixtures/clients`,
/// each app's retry behaviour, and hostile posts.
@Suite struct IngestAPITests {
    static let fixtures: URL = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "shared/fixtures/clients")

    static func fixture(_ path: String) throws -> String { try String(contentsOf: fixtures.appending(path: path), encoding: .utf8) }

    static func basic(_ user: String, _ password: String) -> String { "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() }

    /// A fresh server with the local user's device (accounts off, as the embedded default).
    static func server() async throws -> (TestServer, Device, String) {
        let server = try await TestServer()
        let (device, token) = try await server.addDevice("Phone", user: "local")
        return (server, device, token)
    }

    /// `server()` on a fresh store of `kind` (`withServer`): the ingestion endpoints hold on both stores.
    static func withServer(_ kind: StoreKind, _ body: (TestServer, Device, String) async throws -> Void) async throws {
        try await RideServerTests.withServer(kind) { server, _ in
            let (device, token) = try await server.addDevice("Phone", user: "local")
            try await body(server, device, token)
        }
    }

    static func storedCount(_ server: TestServer) async throws -> Int {
        var count = 0
        var after: Int64 = 0
        while true {
            let page = try await server.library.store.deviceFixes(userID: server.library.userID, after: after, limit: 10_000)
            guard let last = page.last else { return count }
            count += page.count
            after = last.sequence
        }
    }

    // MARK: OwnTracks

    @Test(arguments: StoreKind.allCases, [
        "owntracks/json-schema__l.json", "owntracks/json-schema__l2.json", "owntracks/json-schema__location-5s.json",
        "owntracks/json-schema__location-short.json", "owntracks/json-schema__location-sk.json",
        "owntracks/traccar__owntracks_http_body_1.json", "owntracks/traccar__owntracks_http_body_2.json",
        "owntracks/traccar__owntracks_http_body_3.json", "owntracks/traccar__owntracks_http_body_4.json",
        "owntracks/traccar__owntracks_http_body_5.json", "owntracks/traccar__owntracks_http_body_6.json",
    ])
    func ownTracksLocationIsStoredAndAnsweredWithAnEmptyArray(_ kind: StoreKind, _ path: String) async throws {
        try await Self.withServer(kind) { server, _, token in
            let body = try Self.fixture(path)
            try await server.run { client in
                let headers: HTTPFields = [
                    .authorization: Self.basic("local", token), .contentType: "application/json",
                    HTTPField.Name("X-Limit-U")!: "local", HTTPField.Name("X-Limit-D")!: "phone",
                ]
                let response = try await client.execute(uri: "/ingest/owntracks", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(response.status == .ok && response.text == "[]")
                #expect(response.headers[.contentType] == "application/json")
                // The app did not get the answer and sends again: stored once.
                let again = try await client.execute(uri: "/ingest/owntracks", method: .post, headers: headers, body: ByteBuffer(string: body))
                #expect(again.status == .ok && again.text == "[]")
            }
            #expect(try await Self.storedCount(server) == 1)
        }
    }

    /// Payloads that can never be valid are answered 200 `[]` (so OwnTracks' queue moves on) and store nothing.
    @Test(arguments: StoreKind.allCases, [
        "owntracks/json-schema__location-lat-missing.json", "owntracks/json-schema__transition-illegal-lat.json",
        "owntracks/json-schema__lwt-notst.json", "owntracks/json-schema__lwt.json", "owntracks/json-schema__transition.json",
        "owntracks/json-schema__e.json", "owntracks/json-schema__array.json",
    ])
    func ownTracksNeverValidIsAcceptedAndNotStored(_ kind: StoreKind, _ path: String) async throws {
        try await Self.withServer(kind) { server, _, token in
            let body = try Self.fixture(path)
            try await server.run { client in
                let response = try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: body))
                #expect(response.status == .ok && response.text == "[]")
            }
            #expect(try await Self.storedCount(server) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases) func ownTracksEmptyBodyAndBadCredentials(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            try await server.run { client in
                let empty = try await client.execute(uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)])
                #expect(empty.status == .ok && empty.text == "[]")
                for authorization in [Self.basic("local", "wrong-token-wrong-token"), Self.basic("someone", token), "Basic !!!", "Bearer x"] {
                    let response = try await client.execute(
                        uri: "/ingest/owntracks", method: .post, headers: [.authorization: authorization], body: ByteBuffer(string: "{}"))
                    #expect(response.status == .unauthorized, "\(authorization)")
                }
                #expect(try await client.post("/ingest/owntracks", json: "{}").status == .unauthorized)
            }
        }
    }

    /// The `Authorization` header as clients write it: the scheme in any case, spaces or a tab around the
    /// credentials (RFC 9110 allows them), a password holding colons; and what is not that scheme refused.
    @Test(arguments: StoreKind.allCases) func authorizationHeadersAreReadAsWrittenAndOthersRefused(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            let encoded = Data("local:\(token)".utf8).base64EncodedString()
            try await server.run { client in
                for authorization in ["basic \(encoded)", "BASIC  \(encoded)\t", "Basic \t\(encoded) "] {
                    let response = try await client.execute(
                        uri: "/ingest/owntracks", method: .post, headers: [.authorization: authorization], body: ByteBuffer(string: "{}"))
                    #expect(response.status == .ok, "\(authorization)")
                }
                for authorization in ["Basic\(encoded)", "Basics \(encoded)", "Basic ", "Basic \t ", "Basic " + Data("local".utf8).base64EncodedString(),
                                      "Basic " + Data([0x6C, 0x3A, 0xFF, 0xFE]).base64EncodedString(), "Basic " + String(repeating: "A", count: 2000)] {
                    let response = try await client.execute(
                        uri: "/ingest/owntracks", method: .post, headers: [.authorization: authorization], body: ByteBuffer(string: "{}"))
                    #expect(response.status == .unauthorized, "\(authorization)")
                }
                // Overland's bearer token, as written, and with a tab after it.
                for authorization in ["Bearer \(token)", "bearer  \(token)\t"] {
                    let response = try await client.execute(
                        uri: "/ingest/overland", method: .post, headers: [.authorization: authorization, .contentType: "application/json"],
                        body: ByteBuffer(string: #"{"locations":[]}"#))
                    #expect(response.status == .ok, "\(authorization)")
                }
                #expect(try await client.execute(
                    uri: "/ingest/overland", method: .post, headers: [.authorization: "Bearer\(token)"], body: ByteBuffer(string: #"{"locations":[]}"#)
                ).status == .unauthorized)
            }
        }
    }

    /// OwnTracks with its Encryption key set: opened with the server's secret (`--owntracks-secret-file`);
    /// without it, or with another, answered 200 `[]` (the app's queue moves on) and not stored. The body is
    /// one that libsodium sealed (Tests/vectors, made by Tests/tools/make_secretbox_vectors.py).
    @Test(arguments: [("ride-secret", 1), (nil, 0), ("another secret", 0)] as [(String?, Int)])
    func ownTracksEncryptedPayloads(secret: String?, stored: Int) async throws {
        let (made, _, token) = try await Self.server()
        var server = made
        server.configuration.ownTracksSecret = secret
        let vectors = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.vectorsURL)) as? [String: Any]
        let boxes = try #require(vectors?["secretbox"] as? [[String: Any]])
        let box = try #require(boxes.first { $0["secret"] as? String == "ride-secret" })
        let data = try #require(box["owntracksData"] as? String)
        try await server.run { client in
            let response = try await client.execute(
                uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)],
                body: ByteBuffer(string: #"{"_type":"encrypted","data":"\#(data)"}"#))
            #expect(response.status == .ok && response.text == "[]")
        }
        #expect(try await Self.storedCount(server) == stored)
        if stored == 1 {
            let fix = try #require(try await server.library.store.deviceFixes(userID: server.library.userID, after: 0, limit: 10).first)
            // What the app encrypted: {"_type":"location","lat":47.37689,"lon":8.54169,"tst":1767225600,…}
            #expect(fix.fix.latitude == 47.37689 && fix.fix.longitude == 8.54169 && fix.fix.time == Date(timeIntervalSince1970: 1_767_225_600))
        }
    }

    static let vectorsURL = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "vectors/secretbox-vectors.json")

    // MARK: Overland

    @Test(arguments: StoreKind.allCases) func overlandBatchAnswersExactlyOkAndAReplayStoresNothing(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            let body = try Self.fixture("overland/readme_request_body.derived.json")
            try await server.run { client in
                for _ in 0..<3 {
                    let response = try await client.execute(
                        uri: "/ingest/overland", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                        body: ByteBuffer(string: body))
                    #expect(response.status == .ok && response.text == #"{"result":"ok"}"#)
                }
                // ?token= works too.
                let query = try await client.post("/ingest/overland?token=\(token)", json: body)
                #expect(query.text == #"{"result":"ok"}"#)
                #expect(try await client.post("/ingest/overland?token=nope-nope-nope-nope", json: body).status == .unauthorized)
            }
            #expect(try await Self.storedCount(server) == 1)
        }
    }

    static func overlandBatch(_ count: Int, startSecond: Int = 0) -> String {
        let base = Int(Date().timeIntervalSince1970) - 7200
        let features = (0..<count).map { index -> String in
            let time = GPXTime(secondsSince1970: Int64(base + startSecond + index)).rfc3339
            let lat = 46.5 + Double(index) * 0.00001
            return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[6.6,\#(lat)]},"properties":{"timestamp":"\#(time)","speed":4,"horizontal_accuracy":5,"battery_level":0.5,"motion":["cycling"],"wifi":"","device_id":"p"}}"#
        }
        return #"{"locations":["# + features.joined(separator: ",") + "]}"
    }

    /// A phone app's track is held to `--max-track-points` as uploads and recordings are: with a cap of 50, three
    /// Overland batches of 40 (one a second, no gap) make tracks of 50, 50 and 20 points, every batch answered
    /// `{"result":"ok"}` (the app goes on; nothing is refused or lost).
    @Test(arguments: StoreKind.allCases) func aDevicesTrackRollsOverAtThePointCap(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            var server = server
            server.configuration.storageLimits.maximumTrackPoints = 50
            try await server.run { client in
                for batch in 0..<3 {
                    let response = try await client.execute(
                        uri: "/ingest/overland", method: .post, headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                        body: ByteBuffer(string: Self.overlandBatch(40, startSecond: batch * 40)))
                    #expect(response.status == .ok && response.text == #"{"result":"ok"}"#)
                }
            }
            let tracks = try await server.library.store.tracks(TrackQuery(), userID: server.library.userID).tracks
            #expect(tracks.map(\.pointCount).sorted() == [20, 50, 50], "\(tracks.map(\.pointCount))")
            #expect(try await Self.storedCount(server) == 120)
        }
    }

    @Test(arguments: StoreKind.allCases) func overlandLargeAndGzipBatches(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            let thousand = Self.overlandBatch(1000)
            #expect(thousand.utf8.count > 200_000)
            let tenThousand = Self.overlandBatch(10_000, startSecond: 1000)
            #expect(tenThousand.utf8.count > 1 << 21)
            let compressed = try gzip(Data(Self.overlandBatch(500, startSecond: 20_000).utf8))
            try await server.run { client in
                let headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
                let answer128 = try await client.execute(uri: "/ingest/overland", method: .post, headers: headers, body: ByteBuffer(string: thousand))
                #expect(answer128.text == #"{"result":"ok"}"#)
                let answer129 = try await client.execute(uri: "/ingest/overland", method: .post, headers: headers, body: ByteBuffer(string: tenThousand))
                #expect(answer129.text == #"{"result":"ok"}"#)
                var zipped = headers
                zipped[.contentEncoding] = "gzip"
                let answer132 = try await client.execute(uri: "/ingest/overland", method: .post, headers: zipped, body: ByteBuffer(bytes: compressed))
                #expect(answer132.text == #"{"result":"ok"}"#)
            }
            let stored = try await Self.storedCount(server)
            #expect(stored == 11_500)
            // A gap of 5 hours between the 10,000 and the gzip batch: two tracks, the first saved.
            let tracks = try await server.library.store.tracks(TrackQuery(), userID: server.library.userID).tracks
            #expect(tracks.count == 2)
            #expect(tracks.allSatisfy { $0.source == .device })
        }
    }

    // MARK: OsmAnd / Traccar Client

    @Test(arguments: StoreKind.allCases) func osmandQueryStringsGETAndPOST(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            let lines = try Self.fixture("traccar-osmand/osmand_query_strings.txt").split(whereSeparator: \.isNewline).map(String.init)
            try await server.run { client in
                for (index, line) in lines.enumerated() {
                    // The fixtures' own ids replaced by the token (id = the token here); line 2 has none.
                    var query = String(line.dropFirst(2))
                    query = query.replacingOccurrences(of: #"(^|&)(id|deviceid)=[0-9]+"#, with: "$1$2=\(token)", options: .regularExpression)
                    let response = try await client.get("/ingest/osmand?" + query)
                    #expect(response.status == (index == 1 ? .unauthorized : .ok), "line \(index + 1): \(response.text)")
                    // The same as a form POST (OsmAnd), stored once.
                    let form = try await client.execute(
                        uri: "/ingest/osmand", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: ByteBuffer(string: query))
                    #expect(form.status == (index == 1 ? .unauthorized : .ok))
                }
                #expect(try await client.get("/ingest/osmand?id=../../etc/passwd&lat=1&lon=2").status == .unauthorized)
            }
            // Lines without a timestamp are "now"; those with one in 2013–2017. Line 1 has no position.
            let stored = try await Self.storedCount(server)
            #expect(stored >= 6 && stored <= 9)
        }
    }

    @Test(arguments: StoreKind.allCases, [
        "traccar-osmand/osmand_json_android_moving.json", "traccar-osmand/osmand_json_ios_mock_no_batt.json",
        "traccar-osmand/osmand_json_traccar_client_basic.json", "traccar-osmand/osmand_json_traccar_client_typed_extras.json",
    ])
    func traccarClientJSON(_ kind: StoreKind, _ path: String) async throws {
        try await Self.withServer(kind) { server, _, token in
            let body = try Self.fixture(path).replacingOccurrences(of: #""device_id":"[^"]*""#, with: #""device_id":"\#(token)""#, options: .regularExpression)
            try await server.run { client in
                let answer173 = try await client.post("/ingest/osmand", json: body)
                #expect(answer173.status == .ok)
                #expect(try await client.post("/ingest/osmand", json: body).status == .ok)  // a retry
                #expect(try await client.post("/ingest/osmand", json: try Self.fixture(path)).status == .unauthorized)  // its own id is no token
            }
            #expect(try await Self.storedCount(server) == 1)
        }
    }

    // MARK: GPSLogger

    @Test(arguments: StoreKind.allCases) func gpsLoggerGETAndPOST(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            try await server.run { client in
                let get = try await client.get("/ingest/gpslogger?token=\(token)&lat=51.5&lon=-0.12&time=2024-05-01T10:00:00.000Z&alt=%25ALT&spd=5&batt=50")
                #expect(get.status == .ok)
                let post = try await client.execute(
                    uri: "/ingest/gpslogger", method: .post, headers: [.contentType: "application/x-www-form-urlencoded", .authorization: "Bearer \(token)"],
                    body: ByteBuffer(string: "lat=51.51&lon=-0.12&time=2024-05-01T10%3A00%3A05Z"))
                #expect(post.status == .ok)
                #expect(try await client.get("/ingest/gpslogger?lat=1&lon=2&time=2024-05-01T10:00:00Z").status == .unauthorized)
            }
            #expect(try await Self.storedCount(server) == 2)
        }
    }

    // MARK: Hostile posts

    @Test(arguments: StoreKind.allCases) func hostilePostsAreRefusedWithoutCrashOrStorage(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, _, token in
            let headers: HTTPFields = [.authorization: Self.basic("local", token), .contentType: "application/json"]
            let bodies = [
                #"{"_type":"location","lat":"NaN","lon":1,"tst":1700000000}"#,
                #"{"_type":"location","lat":1e400,"lon":1,"tst":1700000000}"#,
                #"{"_type":"location","lat":1,"lon":1,"tst":99999999999999}"#,
                #"{"_type":"location","lat":1,"lon":1,"tst":1}"#,
                #"{"_type":"location","lat":{"a":1},"lon":1,"tst":1700000000}"#,
                #"{"_type":"location","lat":1,"lon":1,"tst":1700000000,"tid":"'); DROP TABLE deviceFix; --"}"#.replacingOccurrences(of: "1700000000", with: "1700000001"),
                String(repeating: "[", count: 50_000),
                #"{"_type":"<script>alert(1)</script>"}"#,
            ]
            try await server.run { client in
                for body in bodies {
                    let response = try await client.execute(uri: "/ingest/owntracks", method: .post, headers: headers, body: ByteBuffer(string: body))
                    #expect(response.status == .ok, "\(body.prefix(60))")
                }
                // Invalid UTF-8, and a body over the limit.
                let binary = try await client.execute(uri: "/ingest/owntracks", method: .post, headers: headers, body: ByteBuffer(bytes: [0xFF, 0xC0, 0x80, 0x7B]))
                #expect(binary.status == .ok)
                let huge = try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: headers, body: ByteBuffer(string: String(repeating: " ", count: 1 << 20)))
                #expect(huge.status == .contentTooLarge)
                let gzipBomb = try gzip(Data(count: 16 << 20))  // 16 MiB of zeros: four times the inflated cap
                let bomb = try await client.execute(
                    uri: "/ingest/overland", method: .post, headers: [.authorization: "Bearer \(token)", .contentEncoding: "gzip"], body: ByteBuffer(bytes: gzipBomb))
                #expect(bomb.status == .ok)  // refused as a payload, logged, let go
            }
            // Only the one valid fix (with its SQL in a name that is not stored anyway).
            #expect(try await Self.storedCount(server) == 1)
        }
    }

    /// 200 devices posting at once (group commit): every post answered after it is stored, each stored once.
    @Test(arguments: StoreKind.allCases) func manyDevicesPostingAtOnceAreAllStored(_ kind: StoreKind) async throws {
        try await RideServerTests.withServer(kind) { server, _ in
            var tokens: [String] = []
            for index in 0..<200 { tokens.append(try await server.addDevice("Phone \(index)", user: "local").token) }
            let now = Int(Date().timeIntervalSince1970)
            let devices = tokens
            try await server.run { client in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, token) in devices.enumerated() {
                        group.addTask {
                            for second in 0..<3 {
                                let body = #"{"_type":"location","lat":\#(46 + Double(index) / 1000),"lon":6.6,"tst":\#(now - 100 + second)}"#
                                let response = try await client.execute(
                                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: body))
                                #expect(response.status == .ok && response.text == "[]", "\(response.status): \(response.text.prefix(200))")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            #expect(try await Self.storedCount(server) == 600)
            #expect(server.metrics.value(.ingestFixesStored) == 600)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRevokedTokenStopsWorkingAndRotationSwapsIt(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, device, token in
            let body = #"{"_type":"location","lat":1,"lon":2,"tst":\#(Int(Date().timeIntervalSince1970))}"#
            try await server.run { client in
                // The old token was just used (and is remembered a few seconds): the rotation forgets it at once.
                #expect(try await client.execute(uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: body)).status == .ok)
                let rotated = try await client.post("/api/devices/\(device.id)/token")
                #expect(rotated.status == .ok)
                let newToken = try #require(try rotated.jsonObject()["token"] as? String)
                #expect(try await client.execute(uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: body)).status == .unauthorized)
                #expect(try await client.execute(uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", newToken)], body: ByteBuffer(string: body)).status == .ok)
                #expect(try await client.execute(uri: "/api/devices/\(device.id)", method: .delete).status == .noContent)
                #expect(try await client.execute(uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", newToken)], body: ByteBuffer(string: body)).status == .unauthorized)
            }
        }
    }

    /// A device deleted elsewhere (another instance, the command line) while this server remembers its token: the
    /// store refuses the next post's fixes, and the app is told 401, not 200.
    @Test(arguments: StoreKind.allCases) func aDeviceDeletedElsewhereIsRefusedDespiteItsRememberedToken(_ kind: StoreKind) async throws {
        try await Self.withServer(kind) { server, device, token in
            let now = Int(Date().timeIntervalSince1970)
            let first = #"{"_type":"location","lat":1,"lon":2,"tst":\#(now)}"#
            let later = #"{"_type":"location","lat":1.001,"lon":2,"tst":\#(now + 10)}"#
            let statuses = try await server.run { client -> [HTTPResponse.Status] in
                var statuses: [HTTPResponse.Status] = []
                statuses.append(try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: first)).status)
                _ = try await server.library.store.deleteDevice(id: device.id, userID: server.library.userID)
                statuses.append(try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: later)).status)
                // A wrong user name with a remembered token is refused too.
                statuses.append(try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("somebody", token)], body: ByteBuffer(string: later)).status)
                return statuses
            }
            #expect(statuses == [.ok, .unauthorized, .unauthorized])
            #expect(try await server.library.store.devices(userID: server.library.userID).isEmpty)
            #expect(try await Self.storedCount(server) == 0)  // the device's fixes went with it
        }
    }

    @Test(arguments: StoreKind.allCases) func devicesAPIShowsTheTokenOnceWithEachAppsSetup(_ kind: StoreKind) async throws {
        try await RideServerTests.withServer(kind) { server, _ in
            try await server.run { client in
                let created = try await client.execute(
                    uri: "/api/devices", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"name":"Anna's phone"}"#))
                #expect(created.status == .created)
                let object = try created.jsonObject()
                let token = try #require(object["token"] as? String)
                #expect(token.utf8.count == 43)
                let setup = try #require(object["setup"] as? [String: [String: Any]])
                #expect(Set(setup.keys) == ["owntracks", "overland", "osmand", "gpslogger"])
                #expect(setup["overland"]?["url"] as? String == "http://localhost/ingest/overland?token=\(token)")
                let list = try await client.get("/api/devices").jsonObject()
                let devices = try #require(list["devices"] as? [[String: Any]])
                #expect(devices.count == 1 && devices[0]["token"] == nil && devices[0]["name"] as? String == "Anna's phone")
                #expect(try await client.post("/api/devices", json: #"{"name":""}"#).status == .badRequest)
            }
        }
    }

    /// With `--public-url`, the setup lines name the address phones reach, not the one the browser used (a
    /// phone cannot reach 127.0.0.1).
    @Test func theSetupLinesUseThePublicURL() async throws {
        var server = try await TestServer()
        server.configuration.publicURL = "https://rides.example.org"
        try await server.run { client in
            let created = try await client.execute(
                uri: "/api/devices", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"name":"Phone"}"#))
            let object = try created.jsonObject()
            let token = try #require(object["token"] as? String)
            let setup = try #require(object["setup"] as? [String: [String: Any]])
            #expect(setup["overland"]?["url"] as? String == "https://rides.example.org/ingest/overland?token=\(token)")
            // Each app's QR code (and the token's), drawn from the answer's SVG alone and read by zbar, is the URL
            // to paste: the public address, the token in it where the app needs it there.
            guard let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first(where: FileManager.default.isExecutableFile(atPath:)) else {
                Issue.record("zbarimg is missing: apt-get install zbar-tools (scripts/test.sh installs it)")
                return
            }
            var expected = try ["owntracks", "overland", "osmand", "gpslogger"].map { app in
                (try #require(setup[app]?["url"] as? String), try #require(setup[app]?["qrSVG"] as? String))
            }
            expected.append((token, try #require(object["tokenQRSVG"] as? String)))
            for (url, svg) in expected {
                #expect(url.hasPrefix("https://rides.example.org/") || url == token)
                #expect(try Self.readQR(svg, zbarimg: zbarimg) == url)
            }
        }
    }

    /// The modules of a QR code SVG (its path of `M x y h w v1 h-w z` rectangles, a module a unit), painted 4 pixels
    /// a module as a PNG and read by `zbarimg`.
    static func readQR(_ svg: String, zbarimg: String) throws -> String {
        let side = try #require(svg.firstMatch(of: #/viewBox="0 0 (\d+) \d+"/#).flatMap { Int($0.1) })
        var canvas = RGBACanvas(width: side * 4, height: side * 4)
        canvas.fill(RGBAColor(red: 255, green: 255, blue: 255))
        for match in svg.matches(of: #/M(\d+) (\d+)h(\d+)v1h-\d+z/#) {
            let x = Int(match.1)!, y = Int(match.2)!, width = Int(match.3)!
            for px in (x * 4)..<((x + width) * 4) {
                for py in (y * 4)..<((y + 1) * 4) { canvas[px, py] = RGBAColor(red: 0, green: 0, blue: 0) }
            }
        }
        let file = FileManager.default.temporaryDirectory.appending(path: "setup-qr-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try PNGEncoder.encode(canvas).write(to: file)
        let process = TestProcess()
        process.executableURL = URL(filePath: zbarimg)
        process.arguments = ["--quiet", "--raw", file.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
    }

    @Test func liveFeedSendsNewFixesAndResumesAfterLastEventID() async throws {
        let (server, _, token) = try await Self.server()
        let now = Int(Date().timeIntervalSince1970)
        try await server.run(live: true) { client in
            func post(_ offset: Int) async throws {
                let body = #"{"_type":"location","lat":46.5,"lon":6.6,"tst":\#(now - 100 + offset),"batt":77}"#
                #expect(try await client.execute(uri: "/ingest/owntracks", method: .post, headers: [.authorization: Self.basic("local", token)], body: ByteBuffer(string: body)).status == .ok)
            }
            try await post(0)
            try await post(1)
            let all = try await client.execute(uri: "/api/live?lastEventId=0&maxSeconds=0.3", method: .get)
            #expect(all.headers[.contentType] == "text/event-stream")
            let ids = all.text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { Int64($0.dropFirst(4))! }
            #expect(ids.count == 2)
            #expect(all.text.contains(#""batteryPercent":77"#))
            // Resuming after the first (a reconnect): the second, and nothing twice.
            try await post(2)
            let resumed = try await client.execute(
                uri: "/api/live?maxSeconds=0.3", method: .get, headers: [HTTPField.Name("Last-Event-ID")!: "\(ids[0])"])
            let resumedIDs = resumed.text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.map { Int64($0.dropFirst(4))! }
            #expect(resumedIDs.count == 2 && resumedIDs[0] == ids[1])
            // Without an id: only what comes after the connection.
            let fresh = try await client.execute(uri: "/api/live?maxSeconds=0.2", method: .get)
            #expect(!fresh.text.contains("id: "))
            let devices = try await client.get("/api/live/devices").jsonObject()
            let first = try #require((devices["devices"] as? [[String: Any]])?.first)
            #expect((first["line"] as? [Any])?.count == 3)
            #expect((first["lastFix"] as? [String: Any])?["batteryPercent"] as? Double == 77)
        }
    }
}

@Suite struct LiveFeedTests {
    /// A waiting view wakes when the user's fixes are stored (the browser test times it: within a second), and a
    /// notification just before the wait is not lost. `wait` says whether it was woken or timed out, so nothing
    /// here depends on how fast a loaded machine runs it (the full suite on two cores once held every task for
    /// a minute: a bound on the elapsed time failed though nothing was lost).
    // The waits allow 600 s so that a slow machine never times them out; a lost wake-up fails in a minute instead.
    @Test(.timeLimit(.minutes(1))) func notifyWakesOnlyThatUsersViews() async throws {
        let feed = LiveFeed()
        let anna = UserID("AAAAAAAA")!
        let bob = UserID("BBBBBBBB")!
        let version = await feed.version(anna)
        async let waited = feed.wait(anna, after: version, seconds: 600)
        try await Task.sleep(nanoseconds: 100_000_000)
        await feed.notify(bob)
        #expect(await feed.version(anna) == version)  // Bob's fixes are not Anna's news
        await feed.notify(anna)
        #expect(await waited == true)
        // A notify before the wait began is not lost: the version moved, so the wait returns at once, woken.
        let missed = await feed.version(anna)
        await feed.notify(anna)
        #expect(await feed.wait(anna, after: missed, seconds: 600) == true)
        // Many views waiting while notifications come at random moments: every one is woken, none times out
        // (notifications go on until the last view has returned).
        let outcomes = await withTaskGroup(of: Bool?.self) { group -> [Bool] in
            for index in 0..<200 {
                group.addTask {
                    let user = index % 2 == 0 ? anna : bob
                    let seen = await feed.version(user)
                    if index % 3 == 0 { await feed.notify(user) }
                    return await feed.wait(user, after: seen, seconds: 600)
                }
                if index % 3 != 0 { group.addTask { await feed.notify(index % 2 == 0 ? anna : bob); return nil } }
            }
            var results: [Bool] = []
            let notifier = Task {
                while true {
                    do { try await Task.sleep(nanoseconds: 50_000_000) } catch { return }
                    await feed.notify(anna)
                    await feed.notify(bob)
                }
            }
            for await outcome in group { if let outcome { results.append(outcome) } }
            notifier.cancel()
            await notifier.value
            return results
        }
        #expect(outcomes.count == 200 && outcomes.allSatisfy { $0 })
        // With no notification, a wait ends when its time is up, and says so.
        let timeout = Date()
        #expect(await feed.wait(bob, after: await feed.version(bob), seconds: 0.2) == false)
        #expect(Date().timeIntervalSince(timeout) >= 0.19)
    }
}

/// gzip of `data`, by the system's gzip (the test's only use of it).
func gzip(_ data: Data) throws -> [UInt8] {
    let folder = FileManager.default.temporaryDirectory.appending(path: "gzip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appending(path: "body")
    try data.write(to: file)
    let process = TestProcess()
    process.executableURL = URL(filePath: "/bin/gzip")
    process.arguments = ["-n", file.path]
    try process.run()
    process.waitUntilExit()
    return [UInt8](try Data(contentsOf: folder.appending(path: "body.gz")))
}
