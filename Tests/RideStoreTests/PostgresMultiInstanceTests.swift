import Foundation
import PostgresNIO
import Testing

import RideKit
@testable import RideStore
@testable import RideStorePostgres

/// What several instances on one PostgreSQL database share beyond the rows: the notification that a device's
/// fixes were stored (LISTEN/NOTIFY), and where the database's password comes from.
@Suite struct PostgresMultiInstanceTests {
    // MARK: Live notifications

    /// Collects a stream's notifications as they come (a task of its own iterates it), so that a test can wait for
    /// the next one with a time limit without cancelling the stream.
    actor NotificationIterator {
        private var received: [LiveNotification] = []
        private var taken = 0
        private var task: Task<Void, Never>?

        init(_ stream: AsyncStream<LiveNotification>) {
            task = nil
            Task { await self.start(stream) }
        }

        private func start(_ stream: AsyncStream<LiveNotification>) {
            task = Task { for await notification in stream { self.append(notification) } }
        }

        private func append(_ notification: LiveNotification) { received.append(notification) }

        /// The next notification not taken yet, or nil when none comes within `seconds`.
        func next(seconds: Double) async -> LiveNotification? {
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            while taken == received.count {
                guard ContinuousClock.now < deadline else { return nil }
                try? await Task.sleep(for: .milliseconds(5))
            }
            taken += 1
            return received[taken - 1]
        }

        /// Stops iterating: the stream's connection closes.
        func stop() { task?.cancel() }
    }

    static func next(_ iterator: NotificationIterator, seconds: Double) async -> LiveNotification? {
        await iterator.next(seconds: seconds)
    }

    static func fixes(_ count: Int, from start: Date) -> [TrackerFix] {
        (0..<count).map { TrackerFix(time: start.addingTimeInterval(Double($0) * 5), latitude: 46.5 + Double($0) * 0.0001, longitude: 6.6) }
    }

    /// Two stores (two instances): fixes stored through one are announced on the other's listening connection at
    /// once — well under the live views' 1-second poll — and a replay that stores nothing announces nothing.
    @Test func fixesStoredThroughOneInstanceAreAnnouncedToTheOther() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2), logger: PostgresTestServer.logger)
            let b = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2), logger: PostgresTestServer.logger)
            let user = try await a.createUser(name: "anna", passwordHash: nil)
            let other = try await a.createUser(name: "bob", passwordHash: nil)
            let device = try await a.createDevice(NewDevice(name: "Phone", tokenHash: "hash-a", protocolName: "any"), userID: user.id)
            let iterator = NotificationIterator(a.liveNotifications())
            // Listening first: the stream says so.
            #expect(await Self.next(iterator, seconds: 10) == .resumed)

            let start = Date().addingTimeInterval(-600)
            let result = try await b.ingest(Self.fixes(3, from: start), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            // Committed when `ingest` returns: from here the notification is under way.
            let posted = ContinuousClock.now
            #expect(result.storedCount == 3)
            #expect(await Self.next(iterator, seconds: 5) == .fixesStored(user.id))
            let latency = ContinuousClock.now - posted
            #expect(latency < .milliseconds(500), "the notification took \(latency)")

            // The same fixes again store nothing: no notification (within the time one took above, many times over).
            let replay = try await b.ingest(Self.fixes(3, from: start), deviceID: device.id, userID: user.id, gapSeconds: 1800)
            #expect(replay.storedCount == 0)
            #expect(await Self.next(iterator, seconds: 0.5) == nil)

            // Another user's post names that user.
            let hers = try await b.createDevice(NewDevice(name: "Bike", tokenHash: "hash-b", protocolName: "any"), userID: other.id)
            _ = try await a.ingest(Self.fixes(1, from: Date()), deviceID: hers.id, userID: other.id, gapSeconds: 1800)
            #expect(await Self.next(iterator, seconds: 5) == .fixesStored(other.id))
            await iterator.stop()
            await a.close()
            await b.close()
        }
    }

    /// The listening connection is cut (as a database restart or an administrator does): the listener connects
    /// again by itself, says it resumed, and announces the next post.
    @Test func theListenerConnectsAgainAfterItsConnectionIsCut() async throws {
        try await PostgresTestServer.withDatabase { url in
            let a = try await PostgresRideStore.open(.init(url: url, maximumConnections: 2), logger: PostgresTestServer.logger)
            let user = try await a.createUser(name: "anna", passwordHash: nil)
            let device = try await a.createDevice(NewDevice(name: "Phone", tokenHash: "hash-a", protocolName: "any"), userID: user.id)
            let iterator = NotificationIterator(a.liveNotifications())
            #expect(await Self.next(iterator, seconds: 10) == .resumed)
            for round in 0..<2 {
                // Every backend of this database that is listening (postgres-nio's LISTEN is its last statement).
                try await PostgresTestServer.administerDatabase(
                    url,
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid() AND query ILIKE 'LISTEN%'
                    """)
                #expect(await Self.next(iterator, seconds: 10) == .resumed, "round \(round)")
                _ = try await a.ingest(Self.fixes(1, from: Date().addingTimeInterval(Double(round))), deviceID: device.id, userID: user.id, gapSeconds: 1800)
                #expect(await Self.next(iterator, seconds: 5) == .fixesStored(user.id), "round \(round)")
            }
            await iterator.stop()
            await a.close()
        }
    }

    // MARK: The password

    /// A file in a new temporary folder, holding `bytes`.
    static func passwordFile(_ bytes: [UInt8]) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-password-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appending(path: "password").path
        guard FileManager.default.createFile(atPath: file, contents: Data(bytes)) else { throw CocoaError(.fileWriteUnknown) }
        return file
    }

    @Test func thePasswordComesFromTheURLThenTheFileThenPGPASSWORD() throws {
        let file = try Self.passwordFile(Array("from the file\n".utf8))
        let other = try Self.passwordFile(Array("from the variable's file\n".utf8))
        let withPassword = "postgres://rider:from%20the%20url@db.example/rides"
        let without = "postgres://rider@db.example/rides"
        let environment = ["PGPASSWORD": "from PGPASSWORD", "BIKERIDE_DATABASE_PASSWORD_FILE": other]
        #expect(try PostgresDatabaseURL(parsing: withPassword, passwordFile: file, environment: environment).password == "from the url")
        #expect(try PostgresDatabaseURL(parsing: without, passwordFile: file, environment: environment).password == "from the file")
        // The option's file before the variable's.
        #expect(try PostgresDatabaseURL(parsing: without, environment: environment).password == "from the variable's file")
        #expect(try PostgresDatabaseURL(parsing: without, environment: ["PGPASSWORD": "from PGPASSWORD"]).password == "from PGPASSWORD")
        #expect(try PostgresDatabaseURL(parsing: without, environment: ["BIKERIDE_DATABASE_PASSWORD_FILE": ""]).password == nil)
        #expect(try PostgresDatabaseURL(parsing: without, environment: [:]).password == nil)
        // The command line's: --database, else BIKERIDE_DATABASE_URL; nothing for neither.
        let configured = try PostgresDatabaseURL.configured(option: nil, passwordFile: file, environment: ["BIKERIDE_DATABASE_URL": without])
        #expect(configured?.password == "from the file" && configured?.host == "db.example")
        #expect(try PostgresDatabaseURL.configured(option: nil, passwordFile: nil, environment: [:]) == nil)
        let alone = #expect(throws: RideStoreError.self) { try PostgresDatabaseURL.configured(option: nil, passwordFile: file, environment: [:]) }
        #expect(alone.map { "\($0)" }?.contains("no database") == true)
    }

    @Test(arguments: [
        ("pw\n", "pw"), ("pw\r\n", "pw"), ("pw", "pw"), ("pw\n\n", "pw"), (" pw \n", " pw "), ("pässwörd\n", "pässwörd"),
    ])
    func aPasswordFileLosesOnlyItsLineBreaksAtTheEnd(content: String, password: String) throws {
        #expect(try PostgresDatabaseURL.password(fromFile: try Self.passwordFile(Array(content.utf8))) == password)
    }

    @Test func aPasswordFileThatCannotServeIsAClearError() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-password-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var cases: [(path: String, reason: String)] = [
            (folder.appending(path: "missing").path, "does not exist"),
            (folder.path, "is a directory"),
            (try Self.passwordFile([]), "is empty"),
            (try Self.passwordFile(Array("\n".utf8)), "is empty"),
            (try Self.passwordFile(Array("one\ntwo\n".utf8)), "more than one line"),
            (try Self.passwordFile([0x70, 0xFF, 0x77]), "not UTF-8"),
            (try Self.passwordFile(Array(repeating: 0x61, count: PostgresDatabaseURL.maximumPasswordFileBytes + 1)), "larger than"),
        ]
        // Permissions keep nothing from root.
        if getuid() != 0 {
            let locked = try Self.passwordFile(Array("pw".utf8))
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked)
            cases.append((locked, "cannot be read"))
        }
        for (path, reason) in cases {
            let error = #expect(throws: RideStoreError.self, "\(reason)") {
                try PostgresDatabaseURL(parsing: "postgres://rider@db.example/rides", passwordFile: path, environment: [:])
            }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains(path) && message.contains(reason), "\(message)")
        }
        // A file named in the environment is checked as well, even when the URL has a password.
        #expect(throws: RideStoreError.self) {
            try PostgresDatabaseURL(
                parsing: "postgres://rider:pw@db.example/rides", environment: ["BIKERIDE_DATABASE_PASSWORD_FILE": folder.appending(path: "missing").path])
        }
    }
}
