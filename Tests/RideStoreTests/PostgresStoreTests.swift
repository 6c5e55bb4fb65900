import Foundation
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// What only the PostgreSQL store has: its URL, its migrations table, what the database decides when several
/// instances write at once, and a clear error when the server is not there.
@Suite struct PostgresStoreTests {
    @Test func databaseURLsAreParsedStrictly() throws {
        let url = try PostgresDatabaseURL(parsing: "postgres://rider:s%40cret@db.example:6543/rides?sslmode=require", environment: [:])
        #expect(url == PostgresDatabaseURL(host: "db.example", port: 6543, user: "rider", password: "s@cret", database: "rides", tls: .require))
        #expect(url.description == "postgres://rider@db.example:6543/rides")
        let fromEnvironment = try PostgresDatabaseURL(parsing: "postgresql://rider@localhost/rides", environment: ["PGPASSWORD": "pw"])
        #expect(fromEnvironment.password == "pw" && fromEnvironment.port == 5432 && fromEnvironment.tls == .prefer)
        for bad in [
            "", "rides", "mysql://u@h/d", "postgres://h/d", "postgres://u@/d", "postgres://u@h", "postgres://u@h/", "postgres://u@h/a/b",
            "postgres://u@h:0/d", "postgres://u@h/d?sslmode=maybe", "postgres://u@h/d?options=-c%20x",
        ] {
            #expect(throws: RideStoreError.self, "\(bad)") { try PostgresDatabaseURL(parsing: bad, environment: [:]) }
        }
    }

    @Test func anUnreachableServerIsAClearError() async throws {
        // A port nothing listens on: bound, then closed.
        let url = PostgresDatabaseURL(host: "127.0.0.1", port: 1, user: "nobody", database: "none", tls: .disable)
        do {
            _ = try await PostgresRideStore.open(.init(url: url, connectTimeoutSeconds: 2))
            Issue.record("opened a store on a port nothing listens on")
        } catch let error as RideStoreError {
            guard case .database(let message) = error else { Issue.record("\(error)"); return }
            #expect(message.contains("cannot reach PostgreSQL at postgres://nobody@127.0.0.1:1/none"))
        }
    }

    @Test func migrationsAreRecordedOnceAndANewerSchemaIsRefused() async throws {
        try await PostgresTestServer.withDatabase { url in
            let configuration = PostgresRideStore.Configuration(url: url, maximumConnections: 2)
            let logger = PostgresTestServer.logger
            let store = try await PostgresRideStore.open(configuration, logger: logger)
            let user = try await store.createUser(name: "kept", passwordHash: nil)
            await store.close()
            // Opening again applies nothing and keeps the data.
            let again = try await PostgresRideStore.open(configuration, logger: logger)
            #expect(try await again.user(named: "kept") == user)
            #expect(try await PostgresRideStore.appliedMigrations(configuration, logger: logger) == PostgresRideStore.migrations.map(\.name))
            #expect(try await again.rowCount(table: PostgresRideStore.migrationsTable) == PostgresRideStore.migrations.count)
            await again.close()

            // A migration this version does not know: a newer bikeride ran on the database.
            try await PostgresTestServer.administerDatabase(
                url, "INSERT INTO bikeride_migrations (name, applied_at) VALUES ('v999 from the future', 0)")
            let error = await #expect(throws: RideStoreError.self) { try await PostgresRideStore.open(configuration, logger: logger) }
            guard case .conflict(let message) = error else {
                Issue.record("expected a conflict, got \(String(describing: error))")
                return
            }
            #expect(message.contains("newer") && message.contains("v999 from the future"))
        }
    }

    @Test func twoStartsWithOneClientIDAtOnceMakeOneRecording() async throws {
        try await PostgresTestServer.withDatabase { url in
            // Two stores: two server instances on one database.
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let user = try await a.localUser()
            #expect(try await b.localUser() == user)
            let request = NewRecording(name: "Offline start", clientID: "c0ffee00-1111-2222-3333-444455556666")
            let recordings = try await withThrowingTaskGroup(of: Recording.self) { group in
                for index in 0..<8 {
                    let store = index % 2 == 0 ? a : b
                    group.addTask { try await store.startRecording(request, userID: user.id) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(Set(recordings.map(\.id)).count == 1)
            // The losers' tracks were rolled back with them.
            #expect(try await a.tracks(TrackQuery(includesRecordings: true), userID: user.id).tracks.count == 1)
            await a.close()
            await b.close()
        }
    }

    @Test func theSameBatchSentToTwoInstancesAtOnceIsStoredOnce() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let user = try await a.localUser()
            let recording = try await a.startRecording(NewRecording(name: "Race"), userID: user.id)
            var expected: [TrackPoint] = []
            for start in stride(from: 0, to: 1100, by: 50) {
                let batch = RecordingTests.fixes(start..<start + 50)
                expected += batch.map(\.point)
                let results = try await withThrowingTaskGroup(of: FixAppendResult.self) { group in
                    for index in 0..<4 {
                        let store = index % 2 == 0 ? a : b
                        group.addTask { try await store.appendFixes(batch, recordingID: recording.id, userID: user.id) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                // Exactly one of them stored the batch; the others saw it as a replay.
                #expect(results.map(\.appended.count).sorted() == [0, 0, 0, 50])
            }
            let track = try #require(try await b.track(id: recording.trackID, userID: user.id))
            #expect(try track.content.document().tracks[0].segments[0].points == expected)
            #expect(try await a.recording(id: recording.id, userID: user.id)?.lastClientSequence == 1099)
            await a.close()
            await b.close()
        }
    }

    /// Overland re-sends a batch until it gets its answer: the same post may reach two instances at once. The
    /// unique (device, time) decides; the device's row lock keeps the two from starting two live tracks.
    @Test func theSameDevicePostSentToTwoInstancesAtOnceIsStoredOnce() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let user = try await a.localUser()
            let device = try await AccountStoreTests.device(a, user: user.id)
            for start in stride(from: 0, to: 200, by: 50) {
                let batch = AccountStoreTests.fixes(Array(start..<start + 50), secondsApart: 5)
                let results = try await withThrowingTaskGroup(of: IngestResult.self) { group in
                    for index in 0..<4 {
                        let store = index % 2 == 0 ? a : b
                        group.addTask { try await store.ingest(batch, deviceID: device.id, userID: user.id, gapSeconds: 1800) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.map(\.storedCount).sorted() == [0, 0, 0, 50])
                #expect(results.map(\.duplicateCount).sorted() == [0, 50, 50, 50])
            }
            let fixes = try await b.deviceFixes(deviceID: device.id, userID: user.id, since: .distantPast, limit: 1000)
            #expect(fixes.map(\.fix) == AccountStoreTests.fixes(Array(0..<200), secondsApart: 5))
            let tracks = try await b.tracks(TrackQuery(), userID: user.id).tracks
            #expect(tracks.count == 1 && tracks.first?.pointCount == 200)
            #expect(Set(fixes.map(\.trackID)) == [tracks.first?.id])
            await a.close()
            await b.close()
        }
    }

    /// Different posts of one device, and batches of several devices in opposite orders, on two instances at
    /// once: one live track per device, every fix in it in time order, and no deadlock.
    @Test func postsOfOneDeviceOnTwoInstancesMakeOneLiveTrack() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 4), logger: PostgresTestServer.logger)
            let user = try await a.localUser()
            let one = try await AccountStoreTests.device(a, user: user.id, name: "One")
            let two = try await AccountStoreTests.device(a, user: user.id, name: "Two")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    let store = index % 2 == 0 ? a : b
                    // Interleaved minutes: posts 0 and 1 share no fix, and each arrives partly before the other's.
                    let minutes = Array(stride(from: index, to: 80, by: 8))
                    let posts = [
                        DevicePost(fixes: AccountStoreTests.fixes(minutes), deviceID: one.id, userID: user.id),
                        DevicePost(fixes: AccountStoreTests.fixes(minutes), deviceID: two.id, userID: user.id),
                    ]
                    group.addTask { _ = try await store.ingest(index % 4 < 2 ? posts : posts.reversed(), gapSeconds: 1800) }
                }
                try await group.waitForAll()
            }
            let tracks = try await a.tracks(TrackQuery(), userID: user.id).tracks
            #expect(tracks.count == 2)
            for track in tracks {
                #expect(track.pointCount == 80)
                let stored = try #require(try await b.track(id: track.id, userID: user.id))
                let times = try stored.content.tracks[0].segments[0].points.points().compactMap { $0.time?.date }
                #expect(times == AccountStoreTests.fixes(Array(0..<80)).map(\.time))
            }
            await a.close()
            await b.close()
        }
    }

    /// A live view reads "the fixes after the last one I saw" while four devices post through two instances:
    /// it must see every fix, so a fix must never become visible after one with a higher sequence number.
    @Test func aLiveReaderMissesNoFixWhileTwoInstancesStoreThem() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 6), logger: PostgresTestServer.logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 6), logger: PostgresTestServer.logger)
            let user = try await a.localUser()
            var made: [Device] = []
            for index in 0..<4 { made.append(try await AccountStoreTests.device(a, user: user.id, name: "Phone \(index)")) }
            let devices = made
            let postsPerDevice = 40
            let writersDone = Flag()
            // Reads until it has read once more after every writer finished: then every stored fix was visible to
            // it, so a fix it never saw was skipped, not late. (No deadline: a loaded machine only makes it slower.)
            async let reading: [Int64] = {
                var sequences: [Int64] = []
                var last: Int64 = 0
                while true {
                    let finished = await writersDone.isSet
                    let page = try await b.deviceFixes(userID: user.id, after: last, limit: 500)
                    sequences += page.map(\.sequence)
                    last = page.last?.sequence ?? last
                    if page.isEmpty {
                        if finished { return sequences }
                        try await Task.sleep(for: .milliseconds(10))
                    }
                }
            }()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, device) in devices.enumerated() {
                    let store = index % 2 == 0 ? a : b
                    group.addTask {
                        for minute in 0..<postsPerDevice {
                            _ = try await store.ingest(AccountStoreTests.fixes([minute]), deviceID: device.id, userID: user.id, gapSeconds: 1800)
                        }
                    }
                }
                try await group.waitForAll()
            }
            await writersDone.set()
            let seen = try await reading
            let stored = try await a.deviceFixes(userID: user.id, after: 0, limit: 1000).map(\.sequence)
            #expect(stored.count == devices.count * postsPerDevice)
            #expect(seen == stored)
            await a.close()
            await b.close()
        }
    }

    @Test func aDatabaseThatStopsAnsweringFailsCallsInTimeAndRecovers() async throws {
        let server = try PostgresTestServer.requireURL()
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2, connectTimeoutSeconds: 1), logger: PostgresTestServer.logger)
            let user = try await store.localUser()
            // The database refuses new connections and loses the ones it had: what a restart looks like to the pool.
            // (Its name is the hex one withDatabase made: no outside value in the SQL text.)
            try await PostgresTestServer.administer(server, "ALTER DATABASE \(url.database) ALLOW_CONNECTIONS false")
            try await PostgresTestServer.administer(
                server, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(url.database)'")
            let started = ContinuousClock.now
            let error = await #expect(throws: RideStoreError.self) { try await store.user(id: user.id) }
            #expect(ContinuousClock.now - started < .seconds(30))
            // Unavailable, which the server answers 503 (a phone sends it again), not a failure of the request.
            if case .unavailable(let message) = error {
                // Which words depends on where the call was when the connections went (waiting for one, or on one
                // that was cut): each names PostgreSQL or its refusal.
                // On a loaded machine the call may also meet its connection as the termination cuts it (SQLSTATE
                // 57P01) or just after (closed), or a new connection as it is refused.
                let words = [
                    "no connection to PostgreSQL", "did not answer within", "not currently accepting connections",
                    "terminating connection", "closed the connection", "the connection failed",
                ]
                #expect(words.contains { message.contains($0) }, "\(message)")
            } else {
                Issue.record("expected the database to be unavailable, got \(String(describing: error))")
            }
            // Back: the same store answers again, without a restart.
            try await PostgresTestServer.administer(server, "ALTER DATABASE \(url.database) ALLOW_CONNECTIONS true")
            #expect(try await store.user(id: user.id) == user)
            await store.close()
        }
    }

    /// What a statement on a connection the server dropped can do in postgres-nio: never end, not even once the
    /// deadline closed the connection. The call still answers `unavailable` at its deadline (before, it waited for
    /// the work for ever, and every later request for that recording queued behind it), and the store goes on.
    @Test func aTransactionWhoseWorkNeverEndsIsAnsweredAtItsDeadline() async throws {
        try await PostgresTestServer.withDatabase { url in
            let store = try await PostgresRideStore.open(
                .init(url: url, maximumConnections: 2, transactionTimeoutSeconds: 1), logger: PostgresTestServer.logger)
            let user = try await store.localUser()
            let started = ContinuousClock.now
            let error = await #expect(throws: RideStoreError.self) {
                try await store.transaction { _ in
                    // Deaf to cancellation and to the connection's closing alike.
                    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                    return 0
                }
            }
            let took = ContinuousClock.now - started
            #expect(took >= .seconds(1) && took < .seconds(10), "\(took)")
            guard case .unavailable(let message) = error else {
                Issue.record("expected unavailable, got \(String(describing: error))")
                return
            }
            #expect(message.contains("did not answer within 1 s"), "\(message)")
            #expect(try await store.user(id: user.id) == user)
            await store.close()
        }
    }
}

extension PostgresTestServer {
    /// Runs one statement in the test's own database.
    static func administerDatabase(_ url: PostgresDatabaseURL, _ sql: String) async throws {
        try await administer(url, sql)
    }
}

/// Set once, read by another task.
private actor Flag {
    private(set) var isSet = false
    func set() { isSet = true }
}
