import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RideKit
@testable import RideServer
import RideStore
import Testing

/// A fresh SQLite store in a temporary folder, removed at the end: the store `bikeride serve` runs on (a file,
/// WAL), not a stand-in.
final class TemporaryStore: Sendable {
    let folder: URL
    var databasePath: String { folder.appending(path: "bikeride.sqlite").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "bikeride-server-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Opens the database (again): what a server start does.
    func open() async throws -> TrackLibrary {
        let store = try SQLiteRideStore(path: databasePath)
        return TrackLibrary(store: store, userID: try await store.localUser().id)
    }

    /// A test server on this database, as `bikeride serve` builds it.
    func server() async throws -> (server: TestServer, library: TrackLibrary) {
        let library = try await open()
        return (TestServer(library: library, database: self), library)
    }
}

/// A test application on the router (no socket), on a fresh store of its own unless given one.
struct TestServer {
    var configuration = ServerConfiguration()
    /// Recordings and saved tracks.
    var library: TrackLibrary
    var metrics = ServerMetrics()
    /// The gates of exports and archive imports, when a test holds places in them (else the configuration's).
    var workGates: WorkGates?
    /// The temporary database, kept as long as the server (removed with the last reference).
    private let database: TemporaryStore?

    /// A server on a new store in a temporary folder.
    init(tilesPath: String? = nil) async throws {
        let database = try TemporaryStore()
        self.init(library: try await database.open(), database: database)
        configuration.tilesPath = tilesPath
    }

    /// A server on `library`'s store (`database`: the folder to keep while the server lives).
    init(library: TrackLibrary, database: TemporaryStore? = nil) {
        self.library = library
        self.database = database
        configuration.logLevel = .warning
    }

    /// The recording as the store holds it, every fix numbered (what a restarted server rebuilds from).
    func storedRecording(_ id: String) async throws -> StoredRecording? {
        try await RecordingService.storedRecording(id: id, in: library)
    }

    /// Runs `test` against the router (no socket), or with `live` against a real server on a free port (request
    /// bodies then arrive in pieces, as from a phone).
    @discardableResult
    func run<Value: Sendable>(live: Bool = false, _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Value) async throws -> Value {
        var configuration = configuration
        if live { configuration.port = 0 }
        let app = try buildApplication(configuration: configuration, library: library, metrics: metrics, workGates: workGates)
        return try await app.test(live ? .live : .router, test)
    }
}

extension TestClientProtocol {
    /// POSTs JSON text.
    func post(_ uri: String, json: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    func post(_ uri: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .post)
    }

    func get(_ uri: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .get)
    }

    /// PUTs JSON text.
    func put(_ uri: String, json: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .put, headers: [.contentType: "application/json"], body: ByteBuffer(string: json))
    }

    /// Starts a recording and returns its id.
    func startRecording(_ json: String = "{}") async throws -> String {
        let response = try await post("/api/recordings", json: json)
        #expect(response.status == .created)
        let object = try response.jsonObject()
        return try #require(object["id"] as? String)
    }
}

extension TestResponse {
    func jsonObject() throws -> [String: Any] {
        let data = Data(buffer: body)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            Issue.record("not a JSON object: \(String(buffer: body))")
            return [:]
        }
        return object
    }

    /// The `error.code` of an error answer.
    func errorCode() throws -> String? {
        (try jsonObject()["error"] as? [String: Any])?["code"] as? String
    }

    var text: String { String(buffer: body) }
}

/// Fixes going east from Cupertino, 5 m apart, one a second, as JSON objects.
func fixesJSON(_ range: ClosedRange<Int>, stepMeters: Double = 5) -> String {
    let start = Coordinate(latitude: 37.3230, longitude: -122.0322)
    let objects = range.map { index -> String in
        let position = start.destination(distanceMeters: Double(index - 1) * stepMeters, bearingDegrees: 90)
        let time = GPXTime(secondsSince1970: 1_700_000_000 + Int64(index)).rfc3339
        return #"{"sequence":\#(index),"latitude":\#(position.latitude),"longitude":\#(position.longitude),"accuracy":5,"time":"\#(time)"}"#
    }
    return #"{"fixes":[\#(objects.joined(separator: ","))]}"#
}
