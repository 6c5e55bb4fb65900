import ArgumentParser
import Foundation
import Hummingbird
import Logging
import RideKit
import RideServer
import RideStore
import RideStorePostgres

extension Bikeride {
    /// `bikeride serve`: the server and the web app.
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run the server and the web app.",
            discussion: """
                Settings come from these flags, then from BIKERIDE_* environment variables (BIKERIDE_HOST, BIKERIDE_PORT, \
                BIKERIDE_DATA_DIR, BIKERIDE_DATABASE_URL, BIKERIDE_DATABASE_PASSWORD_FILE, BIKERIDE_TILES, BIKERIDE_TLS_CERT, BIKERIDE_TLS_KEY, BIKERIDE_WEB_ROOT, BIKERIDE_LEAFLET_DIR, \
                BIKERIDE_GEOCODER_URL, BIKERIDE_GEOCODER_CONTACT, BIKERIDE_LOG_LEVEL, BIKERIDE_TRUSTED_PROXY, BIKERIDE_PUBLIC_URL, BIKERIDE_IDLE_TIMEOUT, BIKERIDE_MAX_CONNECTIONS, BIKERIDE_MAX_CONNECTIONS_PER_ADDRESS), then defaults. A phone's browser gives its position only to pages served over HTTPS (or \
                from localhost): give --tls-cert and --tls-key, or put a reverse proxy such as Caddy in front (see README). \
                Ctrl-C or SIGTERM stops the server after the requests in flight are answered.
                """
        )

        @Option(help: "Address to listen on (default 127.0.0.1; 0.0.0.0 for every interface).")
        var host: String?

        @Option(help: "Port to listen on (default 8080).")
        var port: Int?

        @Option(help: "Where the data is kept (default: per user, printed at start-up).")
        var dataDir: String?

        @Option(help: ArgumentHelp(
            "A PostgreSQL database to keep the data in instead of the data directory's SQLite file: postgres://USER@HOST:PORT/DB (password in the URL, --database-password-file or PGPASSWORD; ?sslmode=disable|prefer|require). Several instances may share it; photos are kept in it too, and there is no documents folder (see `bikeride sync --database`).",
            valueName: "url"))
        var database: String?

        @Option(help: ArgumentHelp(
            "A file holding the database's password (or set BIKERIDE_DATABASE_PASSWORD_FILE); used when the URL has none, before PGPASSWORD.",
            valueName: "file"))
        var databasePasswordFile: String?

        @Option(help: "Connections to PostgreSQL this instance opens at most (default 10).")
        var databaseConnections: Int?

        @Option(help: ArgumentHelp(
            "How long one request's PostgreSQL transaction may take before its connection is given up and the request answered 503 (a network cut to the database); bulk imports get 20 times as long. Default 30.",
            valueName: "seconds"))
        var databaseTimeout: Double?

        @Option(help: "An MBTiles file to serve as the offline base map (/tiles/{z}/{x}/{y}.png).")
        var tiles: String?

        @Option(help: "PEM certificate chain for HTTPS (with --tls-key).")
        var tlsCert: String?

        @Option(help: "PEM private key for HTTPS (with --tls-cert).")
        var tlsKey: String?

        @Option(help: "The web app's folder (default: Web/ of this package).")
        var webRoot: String?

        @Flag(inversion: .prefixedNo, help: "Require a login for every page and API (default: only when --host is not a loopback address).")
        var accounts: Bool?

        @Option(help: "Minutes without a position after which a device's next position starts a new track (default 30).")
        var deviceGapMinutes: Double?

        @Option(help: "A file holding the secret of OwnTracks' Encryption key setting (or BIKERIDE_OWNTRACKS_SECRET), to read encrypted OwnTracks posts.")
        var owntracksSecretFile: String?

        @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (default info).")
        var logLevel: String?

        @Option(help: "A Nominatim-compatible service for address search, e.g. https://nominatim.openstreetmap.org (default: off). At most one request a second is sent to it.")
        var geocoderUrl: String?

        @Option(help: "Your e-mail address or web page, sent in the User-Agent to the geocoder (nominatim.org's usage policy asks for one).")
        var geocoderContact: String?

        @Option(help: ArgumentHelp(
            "A reverse proxy's IP address (repeat for several; or BIKERIDE_TRUSTED_PROXY, comma-separated) whose X-Forwarded-For and X-Forwarded-Proto are believed: login limits then count the browser's address, not the proxy's. Never an address clients can reach the server from directly.",
            valueName: "address"))
        var trustedProxy: [String] = []

        @Option(help: ArgumentHelp(
            "The address browsers reach this server at, when it is not --host (behind a proxy), e.g. https://rides.example.org (or BIKERIDE_PUBLIC_URL): its host is accepted in Host and its origin may send changes.",
            valueName: "url"))
        var publicUrl: String?

        @Option(help: ArgumentHelp("Seconds after which a connection that sends nothing (no request, half a header, idle keep-alive) is closed (default 30).", valueName: "seconds"))
        var idleTimeout: Double?

        @Option(help: ArgumentHelp("Bytes a second a request body must come at, judged over each 10 s (default 1024); slower: 408 and the connection is closed.", valueName: "bytes"))
        var minBodyRate: Int?

        @Option(help: ArgumentHelp("Seconds within which a whole request body must arrive (default 3600); later: 408 and the connection is closed.", valueName: "seconds"))
        var bodyTimeout: Double?

        @Option(help: ArgumentHelp("Connections open at once, in all (default 512); past it new ones are closed at once.", valueName: "count"))
        var maxConnections: Int?

        @Option(help: ArgumentHelp("Connections open at once from one client address (default 32; trusted proxies are held to --max-connections only).", valueName: "count"))
        var maxConnectionsPerAddress: Int?

        @Option(help: ArgumentHelp("Library exports (GET /api/export) running at once (default 2; one per user); past it 429 with Retry-After.", valueName: "count"))
        var maxExports: Int?

        @Option(help: ArgumentHelp("Archive (zip) imports running at once (default 2; one per user); past it 429 with Retry-After.", valueName: "count"))
        var maxArchiveImports: Int?

        @Option(help: ArgumentHelp("Points one track may have; an upload with more is refused, nothing stored (default 2000000).", valueName: "count"))
        var maxTrackPoints: Int?

        @Option(help: ArgumentHelp("Points one user may keep in all their tracks; an upload past it is refused (default 100000000).", valueName: "count"))
        var maxUserPoints: Int?

        func validate() throws {
            if let maxTrackPoints, maxTrackPoints < 1 { throw ValidationError("--max-track-points must be at least 1") }
            if let maxExports, maxExports < 1 { throw ValidationError("--max-exports must be at least 1") }
            if let maxArchiveImports, maxArchiveImports < 1 { throw ValidationError("--max-archive-imports must be at least 1") }
            if let maxUserPoints, maxUserPoints < 1 { throw ValidationError("--max-user-points must be at least 1") }
            if let port, !(0...65535).contains(port) { throw ValidationError("--port must be 0–65535") }
            if let minBodyRate, minBodyRate < 0 { throw ValidationError("--min-body-rate must be 0 or more bytes a second") }
            if let bodyTimeout, !(bodyTimeout.isFinite && (1...86_400).contains(bodyTimeout)) { throw ValidationError("--body-timeout must be 1–86400 seconds") }
            if let databaseConnections, !(1...1000).contains(databaseConnections) {
                throw ValidationError("--database-connections must be 1–1000")
            }
            if let databaseTimeout, !(databaseTimeout.isFinite && (1...3600).contains(databaseTimeout)) {
                throw ValidationError("--database-timeout must be 1–3600 seconds")
            }
            if let deviceGapMinutes, !(deviceGapMinutes.isFinite && (1...10_080).contains(deviceGapMinutes)) {
                throw ValidationError("--device-gap-minutes must be 1–10080")
            }
            if let logLevel, Logger.Level(rawValue: logLevel) == nil {
                throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
            }
        }

        func resolvedConfiguration() throws -> ServerConfiguration {
            var configuration = try ServerConfiguration(environment: ProcessInfo.processInfo.environment)
            if let host { configuration.host = host }
            if let port { configuration.port = port }
            if let dataDir { configuration.dataDirectory = dataDir }
            if let tiles { configuration.tilesPath = tiles }
            if let tlsCert { configuration.tlsCertificatePath = tlsCert }
            if let tlsKey { configuration.tlsKeyPath = tlsKey }
            if let webRoot { configuration.webRoot = webRoot }
            if let accounts { configuration.accounts = accounts }
            if !trustedProxy.isEmpty { configuration.trustedProxies = trustedProxy }
            if let publicUrl { configuration.publicURL = publicUrl }
            if let idleTimeout { configuration.idleTimeoutSeconds = idleTimeout }
            if let minBodyRate { configuration.minimumBodyBytesPerSecond = minBodyRate }
            if let bodyTimeout { configuration.bodyTimeoutSeconds = bodyTimeout }
            if let maxConnections { configuration.maximumConnections = maxConnections }
            if let maxConnectionsPerAddress { configuration.maximumConnectionsPerAddress = maxConnectionsPerAddress }
            if let maxExports { configuration.maximumExports = maxExports }
            if let maxArchiveImports { configuration.maximumArchiveImports = maxArchiveImports }
            if let maxTrackPoints { configuration.storageLimits.maximumTrackPoints = maxTrackPoints }
            if let maxUserPoints { configuration.storageLimits.maximumUserPoints = maxUserPoints }
            if let deviceGapMinutes { configuration.deviceTrackGapSeconds = deviceGapMinutes * 60 }
            if let logLevel, let level = Logger.Level(rawValue: logLevel) { configuration.logLevel = level }
            if let owntracksSecretFile {
                // The file's first line: what the app's setting holds (a newline at its end is not part of it).
                guard let text = try? String(contentsOfFile: owntracksSecretFile, encoding: .utf8) else {
                    throw ValidationError("--owntracks-secret-file: cannot read \(owntracksSecretFile) as UTF-8 text")
                }
                let secret = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
                guard !secret.isEmpty else { throw ValidationError("--owntracks-secret-file: \(owntracksSecretFile) is empty") }
                configuration.ownTracksSecret = secret.hasSuffix("\r") ? String(secret.dropLast()) : secret
            }
            if let geocoderUrl {
                try configuration.setGeocoder(url: geocoderUrl, contact: geocoderContact ?? ProcessInfo.processInfo.environment["BIKERIDE_GEOCODER_CONTACT"])
            }
            try configuration.validate()
            return configuration
        }

        func run() async throws {
            let configuration: ServerConfiguration
            let databaseURL: PostgresDatabaseURL?
            do {
                configuration = try resolvedConfiguration()
                databaseURL = try PostgresDatabaseURL.configured(option: database, passwordFile: databasePasswordFile)
                try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            } catch {
                printError("bikeride serve: \(error)")
                throw ExitCode.failure
            }
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = configuration.logLevel
                return handler
            }
            // Unbuffered, so that a script or a log collector reading our output sees the URL at once.
            @Sendable func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
            let app: any ApplicationProtocol
            do {
                let dataDirectory = DataDirectory(url: URL(filePath: configuration.dataDirectory, directoryHint: .isDirectory))
                let library: TrackLibrary
                if let databaseURL {
                    // PostgreSQL (several instances on one database): fails here, clearly, when it cannot be reached.
                    let store = try await PostgresRideStore.open(
                        .init(
                            url: databaseURL, maximumConnections: databaseConnections ?? 10,
                            transactionTimeoutSeconds: databaseTimeout ?? 30), logger: Logger(label: "bikeride.postgres"))
                    library = try await dataDirectory.openLibrary(on: store)
                } else {
                    // The embedded store in the data directory: recordings and saved tracks.
                    library = try await dataDirectory.openLibrary()
                }
                // Places and tracks deleted more than 30 days ago go for good (also at every delete).
                _ = try await library.purgeExpiredPlaces()
                _ = try await library.purgeExpiredTracks()
                if configuration.requiresAccounts, !(try await library.store.users()).contains(where: { $0.passwordHash != nil }) {
                    printError("bikeride serve: accounts are on and no user has a password yet: bikeride users add NAME --password-stdin")
                }
                // Printed once the server listens: the real port (for --port 0), and SIGTERM is handled by then.
                app = try buildApplication(
                    configuration: configuration, library: library) { port in
                    var shown = configuration
                    if let port { shown.port = port }
                    say("bikeride \(Bikeride.configuration.version) serving \(shown.url)")
                    say("data directory: \(configuration.dataDirectory)")
                    if let databaseURL { say("database: \(databaseURL)") }
                    if let tiles = configuration.tilesPath { say("offline map: \(tiles)") }
                    if let geocoder = configuration.geocoder { say("address search: \(geocoder.baseURL)") }
                    say(configuration.requiresAccounts ? "accounts: on (log in; bikeride users add NAME)" : "accounts: off (one local user, no login)")
                }
            } catch {
                printError("bikeride serve: \(error)")
                throw ExitCode.failure
            }
            // The address search's offline towns are indexed now, not on the first search (about a second).
            Task { _ = await Gazetteer.loaded() }
            // Returns on SIGINT or SIGTERM once the requests in flight are answered.
            try await app.runService()
            say("bikeride stopped")
        }
    }
}
