import Foundation
import RideStore
import Logging

/// Everything `bikeride serve` can be told. Each field has a default; `init(environment:)` reads the
/// `BIKERIDE_*` variables over them, and the command line's flags go over both (DESIGN 3).
public struct ServerConfiguration: Sendable, Hashable {
    /// Address to listen on; `127.0.0.1` by default, so a fresh server is not reachable by others.
    public var host: String = "127.0.0.1"
    public var port: Int = 8080
    /// Where the database and uploads live (the store, when it is wired in).
    public var dataDirectory: String = ServerConfiguration.defaultDataDirectory()
    /// An MBTiles file served at `/tiles/{z}/{x}/{y}.png` as the offline base map.
    public var tilesPath: String?
    /// PEM certificate chain and private key: with both, the server speaks HTTPS only.
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    /// The web app's files; found next to the package when not given.
    public var webRoot: String = ServerConfiguration.defaultWebRoot()
    /// Where Debian's `libjs-leaflet` puts Leaflet; when absent, `/vendor/leaflet/…` redirects to `leafletFallbackURL`.
    public var leafletDirectory: String = "/usr/share/javascript/leaflet"
    public var leafletFallbackURL: String = "https://unpkg.com/leaflet@1.9.4/dist"
    /// Map layers of the web app (standard, satellite, and labels for hybrid).
    public var standardTilesURL: String = "https://tile.openstreetmap.org/{z}/{x}/{y}.png"
    public var standardTilesAttribution: String = "© OpenStreetMap contributors"
    public var satelliteTilesURL: String =
        "https://server.arcgisonline.com/ArcGIS/rest/services/World_Imagery/MapServer/tile/{z}/{y}/{x}"
    public var satelliteTilesAttribution: String = "Imagery © Esri, Maxar, Earthstar Geographics"
    public var labelTilesURL: String =
        "https://server.arcgisonline.com/ArcGIS/rest/services/Reference/World_Boundaries_and_Places/MapServer/tile/{z}/{y}/{x}"
    public var logLevel: Logger.Level = .info
    /// Address search (`/api/geocode`) through a Nominatim-compatible service; off when nil (`--geocoder-url`).
    public var geocoder: Geocoder.Configuration?

    /// Turns address search on with the service at `url` (http or https), naming `contact` in the User-Agent.
    public mutating func setGeocoder(url: String, contact: String?) throws(ConfigurationError) {
        guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host?.isEmpty == false,
              parsed.query == nil
        else {
            throw .invalid(name: "--geocoder-url", value: url, expected: "an http or https URL without a query, e.g. https://nominatim.openstreetmap.org")
        }
        geocoder = Geocoder.Configuration(baseURL: url, userAgent: Geocoder.Configuration.userAgent(contact: contact))
    }

    /// Accounts (login, sessions, per-user data): nil decides by the address — off on a loopback address
    /// (the embedded single-user default), on for any other; true or false forces it (`--accounts`).
    public var accounts: Bool?
    /// A device that posts nothing for longer than this ends its live track; its next fix starts a new one.
    public var deviceTrackGapSeconds: Double = 30 * 60
    /// The secret of OwnTracks' "Encryption key" setting, when the apps posting here encrypt their payloads
    /// (`--owntracks-secret-file`, `BIKERIDE_OWNTRACKS_SECRET`); nil refuses encrypted payloads (logged).
    public var ownTracksSecret: String?
    /// The cost of password hashes made by this server (tests use `PasswordHasher.forTesting`).
    public var passwordHasher = PasswordHasher()
    /// How often a live view (`/api/live`) reads the store when nothing woke it: the safety net for a post
    /// whose notification was lost (another instance's, while the database's notifications were down). Tests set
    /// it long, to see that notifications alone wake a view.
    public var livePollSeconds: Double = 1
    /// The login rate limit: failures per name and address, per address and per name in a window.
    public var loginLimits = LoginLimits()
    /// Reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed (`--trusted-proxy`, repeated;
    /// `BIKERIDE_TRUSTED_PROXY`, comma-separated): IP addresses as the server sees the proxy's connection. From any
    /// other peer those headers are ignored, so a client cannot choose the address its logins are counted under.
    public var trustedProxies: [String] = []
    /// The address browsers use to reach this server when it is not `host` (a reverse proxy's name):
    /// `https://rides.example.org` (`--public-url`, `BIKERIDE_PUBLIC_URL`). Its host is a `Host` the server serves
    /// and its origin one that may send changes.
    public var publicURL: String?
    /// A connection that sends nothing (no request, half a header, an idle keep-alive) for this long is closed
    /// (`--idle-timeout`, `BIKERIDE_IDLE_TIMEOUT`); a request being answered (a live stream) is not idle.
    public var idleTimeoutSeconds: Double = 30
    /// A request body must come at `minimumBodyBytesPerSecond` or more, judged over each `bodyRateWindowSeconds`
    /// (the first window is its grace), and whole within `bodyTimeoutSeconds`; else 408 and the connection is
    /// closed (`--min-body-rate`, `--body-timeout`; `BIKERIDE_MIN_BODY_RATE`, `BIKERIDE_BODY_TIMEOUT`). A byte every
    /// few seconds stays within the idle timeout, so without these a trickled body held a connection for ever.
    /// 1 KiB/s: a phone's post or a photo on the worst mobile link is far faster; an hour: a 2 GiB archive at
    /// 600 KB/s.
    public var minimumBodyBytesPerSecond: Int = 1024
    public var bodyRateWindowSeconds: Double = 10
    public var bodyTimeoutSeconds: Double = 3600
    /// Connections open at once, in all and from one client address (`--max-connections`,
    /// `--max-connections-per-address`): under the usual limit of 1,024 file descriptors, with room for the
    /// database, photos and tiles; one address may hold a sixteenth of the whole, so others still get in.
    public var maximumConnections: Int = 512
    public var maximumConnectionsPerAddress: Int = 32
    /// Library exports (`GET /api/export`) and archive imports (a zip sent to `POST /api/tracks`) running at once on
    /// this instance, in all (`--max-exports`, `--max-archive-imports`; `BIKERIDE_MAX_EXPORTS`,
    /// `BIKERIDE_MAX_ARCHIVE_IMPORTS`); a user may run one of each at a time. Past either, 429 at once with
    /// `Retry-After`: each streams a whole library or spools up to 2 GiB and holds an entry of up to 256 MiB.
    public var maximumExports: Int = 2
    public var maximumArchiveImports: Int = 2
    /// Points per track and per user an import through the server may reach (`--max-track-points`,
    /// `--max-user-points`; `StorageLimits.server` by default).
    public var storageLimits: StorageLimits = .server

    public init() {}

    /// True when every API and page needs a session (or, for ingestion, a device token).
    /// The body rule the connections are held to.
    var bodyDeadline: BodyDeadline {
        BodyDeadline(minimumBytesPerSecond: minimumBodyBytesPerSecond, windowSeconds: bodyRateWindowSeconds, wholeBodySeconds: bodyTimeoutSeconds)
    }

    public var requiresAccounts: Bool {
        accounts ?? !Self.isLoopback(host)
    }

    /// 127.0.0.0/8, ::1 and localhost: reachable from this machine only.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased()
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The defaults with the `BIKERIDE_*` environment variables applied: `BIKERIDE_HOST`, `_PORT`, `_DATA_DIR`,
    /// `_TILES`, `_TLS_CERT`, `_TLS_KEY`, `_WEB_ROOT`, `_LEAFLET_DIR`, `_STANDARD_TILES_URL`, `_SATELLITE_TILES_URL`,
    /// `_LABEL_TILES_URL`, `_GEOCODER_URL`, `_GEOCODER_CONTACT`, `_LOG_LEVEL`, `_ACCOUNTS`, `_DEVICE_GAP_MINUTES`,
    /// `_OWNTRACKS_SECRET`, `_TRUSTED_PROXY`, `_PUBLIC_URL`, `_IDLE_TIMEOUT`, `_MAX_CONNECTIONS`,
    /// `_MAX_CONNECTIONS_PER_ADDRESS`, `_MIN_BODY_RATE`, `_BODY_TIMEOUT`, `_MAX_EXPORTS`, `_MAX_ARCHIVE_IMPORTS`,
    /// `_MAX_TRACK_POINTS`, `_MAX_USER_POINTS`.
    public init(environment: [String: String]) throws(ConfigurationError) {
        self.init()
        func value(_ name: String) -> String? {
            guard let text = environment["BIKERIDE_" + name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        if let host = value("HOST") { self.host = host }
        if let text = value("PORT") {
            guard let port = Int(text), (0...65535).contains(port) else { throw .invalid(name: "BIKERIDE_PORT", value: text, expected: "a port number 0–65535") }
            self.port = port
        }
        if let directory = value("DATA_DIR") { dataDirectory = directory }
        tilesPath = value("TILES")
        tlsCertificatePath = value("TLS_CERT")
        tlsKeyPath = value("TLS_KEY")
        if let root = value("WEB_ROOT") { webRoot = root }
        if let directory = value("LEAFLET_DIR") { leafletDirectory = directory }
        if let url = value("STANDARD_TILES_URL") { standardTilesURL = url }
        if let url = value("SATELLITE_TILES_URL") { satelliteTilesURL = url }
        if let url = value("LABEL_TILES_URL") { labelTilesURL = url }
        if let url = value("GEOCODER_URL") { try setGeocoder(url: url, contact: value("GEOCODER_CONTACT")) }
        if let text = value("ACCOUNTS") {
            switch text.lowercased() {
            case "1", "true", "yes", "on": accounts = true
            case "0", "false", "no", "off": accounts = false
            default: throw .invalid(name: "BIKERIDE_ACCOUNTS", value: text, expected: "true or false")
            }
        }
        if let text = value("DEVICE_GAP_MINUTES") {
            guard let minutes = Double(text), minutes.isFinite, (1...10_080).contains(minutes) else {
                throw .invalid(name: "BIKERIDE_DEVICE_GAP_MINUTES", value: text, expected: "minutes from 1 to 10080")
            }
            deviceTrackGapSeconds = minutes * 60
        }
        if let text = value("TRUSTED_PROXY") {
            trustedProxies = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        publicURL = value("PUBLIC_URL")
        if let text = value("IDLE_TIMEOUT") {
            guard let seconds = Double(text), seconds.isFinite, (1...3600).contains(seconds) else {
                throw .invalid(name: "BIKERIDE_IDLE_TIMEOUT", value: text, expected: "seconds from 1 to 3600")
            }
            idleTimeoutSeconds = seconds
        }
        if let text = value("MIN_BODY_RATE") {
            guard let rate = Int(text), rate >= 0 else {
                throw .invalid(name: "BIKERIDE_MIN_BODY_RATE", value: text, expected: "bytes a second, 0 or more")
            }
            minimumBodyBytesPerSecond = rate
        }
        if let text = value("BODY_TIMEOUT") {
            guard let seconds = Double(text), seconds.isFinite, (1...86_400).contains(seconds) else {
                throw .invalid(name: "BIKERIDE_BODY_TIMEOUT", value: text, expected: "seconds from 1 to 86400")
            }
            bodyTimeoutSeconds = seconds
        }
        if let text = value("MAX_CONNECTIONS") {
            guard let count = Int(text), count >= 1 else { throw .invalid(name: "BIKERIDE_MAX_CONNECTIONS", value: text, expected: "a number from 1") }
            maximumConnections = count
        }
        if let text = value("MAX_CONNECTIONS_PER_ADDRESS") {
            guard let count = Int(text), count >= 1 else {
                throw .invalid(name: "BIKERIDE_MAX_CONNECTIONS_PER_ADDRESS", value: text, expected: "a number from 1")
            }
            maximumConnectionsPerAddress = count
        }
        if let text = value("MAX_EXPORTS") {
            guard let count = Int(text), count >= 1 else { throw .invalid(name: "BIKERIDE_MAX_EXPORTS", value: text, expected: "a number from 1") }
            maximumExports = count
        }
        if let text = value("MAX_ARCHIVE_IMPORTS") {
            guard let count = Int(text), count >= 1 else {
                throw .invalid(name: "BIKERIDE_MAX_ARCHIVE_IMPORTS", value: text, expected: "a number from 1")
            }
            maximumArchiveImports = count
        }
        if let text = value("MAX_TRACK_POINTS") {
            guard let count = Int(text), count >= 1 else { throw .invalid(name: "BIKERIDE_MAX_TRACK_POINTS", value: text, expected: "a number from 1") }
            storageLimits.maximumTrackPoints = count
        }
        if let text = value("MAX_USER_POINTS") {
            guard let count = Int(text), count >= 1 else { throw .invalid(name: "BIKERIDE_MAX_USER_POINTS", value: text, expected: "a number from 1") }
            storageLimits.maximumUserPoints = count
        }
        if let secret = environment["BIKERIDE_OWNTRACKS_SECRET"], !secret.isEmpty { ownTracksSecret = secret }
        if let text = value("LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw .invalid(name: "BIKERIDE_LOG_LEVEL", value: text, expected: "trace, debug, info, notice, warning, error or critical")
            }
            logLevel = level
        }
    }

    /// Checks what can be checked before starting: both TLS files or neither, files that exist.
    public func validate() throws(ConfigurationError) {
        if (tlsCertificatePath == nil) != (tlsKeyPath == nil) {
            throw .invalid(name: "--tls-cert/--tls-key", value: tlsCertificatePath ?? tlsKeyPath ?? "", expected: "both a certificate and a key, or neither")
        }
        guard livePollSeconds.isFinite, livePollSeconds > 0 else {
            throw .invalid(name: "livePollSeconds", value: "\(livePollSeconds)", expected: "seconds more than 0")
        }
        guard loginLimits.failuresPerName >= 1, loginLimits.failuresPerAddress >= 1, loginLimits.windowSeconds.isFinite, loginLimits.windowSeconds > 0 else {
            throw .invalid(name: "loginLimits", value: "\(loginLimits)", expected: "at least one failure per name and per address, in a window of more than 0 s")
        }
        guard idleTimeoutSeconds.isFinite, idleTimeoutSeconds > 0, maximumConnections >= 1, maximumConnectionsPerAddress >= 1 else {
            throw .invalid(name: "--idle-timeout/--max-connections", value: "\(idleTimeoutSeconds)/\(maximumConnections)/\(maximumConnectionsPerAddress)",
                expected: "a timeout of more than 0 s and at least one connection")
        }
        guard minimumBodyBytesPerSecond >= 0, bodyRateWindowSeconds.isFinite, bodyRateWindowSeconds > 0, bodyTimeoutSeconds.isFinite,
              bodyTimeoutSeconds > 0
        else {
            throw .invalid(name: "--min-body-rate/--body-timeout", value: "\(minimumBodyBytesPerSecond)/\(bodyTimeoutSeconds)",
                expected: "a rate of 0 bytes a second or more and a timeout of more than 0 s")
        }
        guard maximumExports >= 1, maximumArchiveImports >= 1 else {
            throw .invalid(name: "--max-exports/--max-archive-imports", value: "\(maximumExports)/\(maximumArchiveImports)", expected: "at least 1 each")
        }
        for address in trustedProxies where TrustedProxies.normalized(address) == nil {
            throw .invalid(name: "--trusted-proxy", value: address, expected: "an IP address, such as 127.0.0.1 or ::1")
        }
        if let publicURL, Self.origin(of: publicURL) == nil {
            throw .invalid(name: "--public-url", value: publicURL, expected: "an http or https URL such as https://rides.example.org")
        }
        for path in [tilesPath, tlsCertificatePath, tlsKeyPath].compactMap({ $0 }) where !FileManager.default.isReadableFile(atPath: path) {
            throw .missingFile(path)
        }
    }

    /// `scheme://host[:port]` of an http or https URL, lower case, without a default port; nil for anything else.
    public static func origin(of url: String) -> String? {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = parsed.host(percentEncoded: false)?.lowercased(), !host.isEmpty, parsed.user == nil, parsed.password == nil
        else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let defaultPort = scheme == "https" ? 443 : 80
        return "\(scheme)://\(shownHost)" + (parsed.port.map { $0 == defaultPort ? "" : ":\($0)" } ?? "")
    }

    /// True when the server speaks HTTPS.
    public var usesTLS: Bool { tlsCertificatePath != nil && tlsKeyPath != nil }

    /// The address to print: `http://127.0.0.1:8080/`.
    public var url: String {
        let shown = host == "0.0.0.0" || host == "::" ? "localhost" : (host.contains(":") ? "[\(host)]" : host)
        return "\(usesTLS ? "https" : "http")://\(shown):\(port)/"
    }

    /// Per user: `$XDG_DATA_HOME/bikeride`, else `~/.local/share/bikeride` (on macOS `~/Library/Application Support/bikeride`).
    /// The same place the command line's library uses (`DataDirectory.default`), so `serve` and `import` share one
    /// database.
    public static func defaultDataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        var platformDefault = environment
        platformDefault["BIKERIDE_DATA_DIR"] = nil  // the variable is applied on top, with the other BIKERIDE_* ones
        let path = DataDirectory.default(environment: platformDefault).url.path(percentEncoded: false)
        return path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// `./Web` when the server is started from the package, else the `Web` folder of the package it was built from.
    public static func defaultWebRoot() -> String {
        let local = FileManager.default.currentDirectoryPath + "/Web"
        if FileManager.default.fileExists(atPath: local + "/index.html") { return local }
        let package = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.appending(path: "Web").path
    }
}

/// A setting that cannot be used, with what was expected.
public enum ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    case invalid(name: String, value: String, expected: String)
    case missingFile(String)

    public var description: String {
        switch self {
        case .invalid(let name, let value, let expected): return "\(name) is \"\(value)\"; expected \(expected)"
        case .missingFile(let path): return "cannot read \(path)"
        }
    }
}
