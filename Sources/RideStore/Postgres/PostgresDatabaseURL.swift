import Foundation

/// Where a PostgreSQL database is: `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]`
/// (`postgresql://` too). Parsed strictly: whatever is wrong is said, nothing is guessed.
public struct PostgresDatabaseURL: Sendable, Hashable, CustomStringConvertible {
    /// How the connection uses TLS, as libpq's `sslmode` names it.
    public enum TLSMode: String, Sendable, Hashable, CaseIterable {
        /// Plain TCP.
        case disable
        /// TLS when the server offers it (libpq's default).
        case prefer
        /// TLS or no connection; the server's certificate is verified against the system's roots.
        case require
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    public init(host: String, port: Int = 5432, user: String, password: String? = nil, database: String, tls: TLSMode = .prefer) {
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.database = database
        self.tls = tls
    }

    /// Parses `text`; a password missing from the URL is taken from `environment["PGPASSWORD"]`.
    public init(parsing text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func invalid(_ reason: String) -> RideStoreError {
            .invalid(field: "database URL", reason: "\(reason) (expected postgres://USER@HOST:PORT/DATABASE)")
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw invalid("is not a URL")
        }
        guard scheme == "postgres" || scheme == "postgresql" else { throw invalid("the scheme must be postgres://, not \(scheme)://") }
        guard let host = components.host, !host.isEmpty else { throw invalid("names no host") }
        guard let user = components.user, !user.isEmpty else { throw invalid("names no user") }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is not between 1 and 65535") }
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        guard !path.isEmpty, !path.contains("/") else { throw invalid("names no database (the path after the port)") }
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let mode = TLSMode(rawValue: value) else {
                    throw invalid("sslmode must be one of \(TLSMode.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                tls = mode
            default:
                throw invalid("the parameter '\(item.name)' is not supported (only sslmode)")
            }
        }
        self.host = host
        self.port = port
        self.user = user
        self.password = components.password ?? environment["PGPASSWORD"]
        self.database = path
        self.tls = tls
    }

    /// The URL without its password, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
