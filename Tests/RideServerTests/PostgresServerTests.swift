import Foundation
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import RideKit
@testable import RideServer
@testable import RideStore
@testable import RideStorePostgres
import Testing
import TestSupport

/// The server's recording path on a PostgreSQL store, through the HTTP API: two servers (two instances) on one
/// database, a batch sent to both stored once, places and their photos on either.
/// Needs `BIKERIDE_TEST_DATABASE_URL` (scripts/test.sh sets it); skipped without it.
@Suite struct PostgresServerTests {
    static var logger: Logger {
        var logger = Logger(label: "bikeride.tests.postgres")
        logger.logLevel = .error
        return logger
    }

    /// Two libraries (two server instances) on a fresh database of their own, dropped afterwards.
    static func withTwoInstances(_ body: (TrackLibrary, TrackLibrary) async throws -> Void) async throws {
        try await withPostgresTestDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: logger)
            do {
                let user = try await a.localUser()
                try await body(TrackLibrary(store: a, userID: user.id), TrackLibrary(store: b, userID: user.id))
            } catch {
                await a.close()
                await b.close()
                throw error
            }
            await a.close()
            await b.close()
        }
    }

    @Test func aRecordingWhoseBatchesAlternateBetweenTwoInstances() async throws {
        try await Self.withTwoInstances { first, second in
            let serverA = TestServer(library: first)
            let serverB = TestServer(library: second)
            let id = try await serverA.run { client in try await client.startRecording(#"{"name":"Across instances"}"#) }
            // Batches alternate; each is also replayed to the other instance (a phone retrying elsewhere).
            for (index, range) in [1...10, 11...20, 21...30, 31...40].enumerated() {
                let (to, replay) = index % 2 == 0 ? (serverA, serverB) : (serverB, serverA)
                let stored = try await to.run { client in try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(range)) }.jsonObject()
                #expect(stored["stored"] as? Int == 10)
                let again = try await replay.run { client in try await client.post("/api/recordings/\(id)/fixes", json: fixesJSON(range)) }.jsonObject()
                #expect(again["stored"] as? Int == 0 && again["duplicates"] as? Int == 10)
            }
            let stored = try #require(await serverB.storedRecording(id))
            #expect(stored.fixes.map(\.fix.sequence) == Array(1...40))
            let stopped = try await serverB.run { client in try await client.post("/api/recordings/\(id)/stop") }
            #expect(stopped.status == .ok)
            let trackID = try #require(try stopped.jsonObject()["trackId"] as? String)
            let list = try await serverA.run { client in try await client.get("/api/tracks") }.jsonObject()
            let tracks = try #require(list["tracks"] as? [[String: Any]])
            #expect(tracks.map { $0["id"] as? String } == [trackID])
            #expect(tracks.first?["pointCount"] as? Int == 40)
        }
    }

    /// Overland sends a batch again until it reads exactly `{"result":"ok"}`: the same batch may reach both
    /// instances at once. Each answers ok; the database stores each point once, in one live track.
    @Test func theSameOverlandBatchPostedToTwoInstancesAtOnceIsStoredOnce() async throws {
        try await Self.withTwoInstances { first, second in
            let serverA = TestServer(library: first)
            let serverB = TestServer(library: second)
            let (_, token) = try await serverA.addDevice("Phone", user: User.localName)
            let body = IngestAPITests.overlandBatch(200)
            let answers = try await withThrowingTaskGroup(of: String?.self) { group in
                for index in 0..<4 {
                    let server = index % 2 == 0 ? serverA : serverB
                    group.addTask {
                        try await server.run { client in
                            try await client.execute(
                                uri: "/ingest/overland", method: .post,
                                headers: [.authorization: "Bearer \(token)", .contentType: "application/json"], body: ByteBuffer(string: body)
                            ).text
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers == Array(repeating: #"{"result":"ok"}"#, count: 4))
            #expect(try await IngestAPITests.storedCount(serverB) == 200)
            let tracks = try await second.store.tracks(TrackQuery(), userID: second.userID).tracks
            #expect(tracks.map(\.pointCount) == [200])
        }
    }

    /// Sessions live in the database: a login on one instance is a login on the other, a logout on either ends it,
    /// and each user sees only their own tracks whichever instance answers.
    @Test func aSessionMadeOnOneInstanceWorksOnTheOther() async throws {
        try await Self.withTwoInstances { first, second in
            var serverA = TestServer(library: first)
            var serverB = TestServer(library: second)
            serverA.configuration.accounts = true
            serverA.configuration.passwordHasher = .forTesting
            serverB.configuration = serverA.configuration
            for name in ["anna", "bob"] {
                _ = try await first.store.createUser(name: name, passwordHash: try PasswordHasher.forTesting.hash(TestServer.password(of: name)))
            }
            let anna = try await serverA.run { client in try await Session.login(client, "anna") }
            let started = try await serverB.run { client in
                try await Session(client: client, cookie: anna.cookie).post("/api/recordings", json: #"{"name":"Anna's ride"}"#)
            }
            #expect(started.status == .created)
            let recording = try #require(try started.jsonObject()["id"] as? String)
            let annas = try await serverA.run { client in try await Session(client: client, cookie: anna.cookie).get("/api/recordings/\(recording)") }
            #expect(annas.status == .ok)
            let bob = try await serverB.run { client in try await Session.login(client, "bob") }
            let bobs = try await serverA.run { client in try await Session(client: client, cookie: bob.cookie).get("/api/recordings/\(recording)") }
            #expect(bobs.status == .notFound)
            let loggedOut = try await serverB.run { client in try await Session(client: client, cookie: anna.cookie).post("/api/logout") }
            #expect(loggedOut.status.code < 300)
            let after = try await serverA.run { client in try await Session(client: client, cookie: anna.cookie).get("/api/tracks") }
            #expect(after.status == .unauthorized)
        }
    }

    /// A live view open on one instance gets a phone's post to the other: the feed reads the database (at each
    /// wake-up, and at least once a second), not the process that stored the fix.
    @Test func aLiveViewOnOneInstanceGetsAPostToTheOther() async throws {
        try await Self.withTwoInstances { first, second in
            let serverA = TestServer(library: first)
            let serverB = TestServer(library: second)
            let (_, token) = try await serverA.addDevice("Phone", user: User.localName)
            // The stream stays open 15 s: long enough for the post on a loaded machine (the whole suite on two cores);
            // it carries every fix after id 0, so it does not matter whether it opened before the post or after.
            async let feed = serverA.run { client in try await client.execute(uri: "/api/live?lastEventId=0&maxSeconds=15", method: .get).text }
            try await Task.sleep(for: .milliseconds(300))
            let now = Int(Date().timeIntervalSince1970)
            let body = #"{"_type":"location","lat":46.5,"lon":6.6,"tst":\#(now - 10),"batt":77}"#
            let posted = try await serverB.run { client in
                try await client.execute(
                    uri: "/ingest/owntracks", method: .post, headers: [.authorization: IngestAPITests.basic(User.localName, token)],
                    body: ByteBuffer(string: body)
                ).status
            }
            #expect(posted == .ok)
            let text = try await feed
            #expect(text.components(separatedBy: "event: fix").count == 2)
            #expect(text.contains(#""batteryPercent":77"#))
        }
    }

    /// A place and a photo made on one instance are read on the other: the photo's bytes are in the database, not
    /// in a folder of one machine.
    @Test func placesAndPhotosMadeOnOneInstanceAreServedByTheOther() async throws {
        try await Self.withTwoInstances { first, second in
            let created = try await TestServer(library: first).run { client in
                try await client.post("/api/places", json: #"{"name":"Bakery","latitude":46.5,"longitude":6.6}"#)
            }
            #expect(created.status == .created)
            let placeID = try #require(try created.jsonObject()["id"] as? String)
            // The other instance lists it: the place is in the database, not in a process.
            let listed = try await TestServer(library: second).run { client in try await client.get("/api/places") }.jsonObject()
            #expect((listed["places"] as? [[String: Any]])?.map { $0["id"] as? String } == [placeID])
            let noteID = try await second.store.addNote(placeID: try #require(PlaceID(placeID)), body: "Sourdough", userID: second.userID).id
            let jpeg = EXIFJPEG.make()
            let posted = try await TestServer(library: first).run { client in
                try await client.execute(
                    uri: "/api/places/\(placeID)/notes/\(noteID)/photos", method: .post, headers: [.contentType: "image/jpeg"],
                    body: ByteBuffer(bytes: jpeg))
            }
            #expect(posted.status == .created, "\(posted.text)")
            let url = try #require(try posted.jsonObject()["url"] as? String)
            try await TestServer(library: second).run { client in
                #expect(Array(try await client.get(url).body.readableBytesView) == jpeg)
                #expect(Array(try await client.get(url + "/thumbnail").body.readableBytesView) == EXIFJPEG.thumbnail)
                let notes = try #require(try await client.get("/api/places/\(placeID)").jsonObject()["notes"] as? [[String: Any]])
                #expect((notes.first?["photos"] as? [[String: Any]])?.count == 1)
            }
        }
    }
}
