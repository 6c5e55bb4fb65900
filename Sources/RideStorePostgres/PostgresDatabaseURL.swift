import Foundation
import RideStore

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

    /// Parses `text`. The password is the URL's; else the one in `passwordFile` (`--database-password-file`),
    /// else in the file `environment["BIKERIDE_DATABASE_PASSWORD_FILE"]` names; else `environment["PGPASSWORD"]`.
    /// A password file that is named is always read, and refused clearly when missing, unreadable or empty.
    public init(
        parsing text: String, passwordFile: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
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
        let file = passwordFile ?? environment["BIKERIDE_DATABASE_PASSWORD_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        let filePassword = try file.map(Self.password(fromFile:))
        self.password = components.password ?? filePassword ?? environment["PGPASSWORD"]
        self.database = path
        self.tls = tls
    }

    /// The database the command line names: `--database` (`option`), else `BIKERIDE_DATABASE_URL`; nil for neither
    /// (the SQLite store). The password as `init(parsing:passwordFile:environment:)` finds it, `passwordFile` being
    /// `--database-password-file`. A password file without a database is refused, not ignored.
    public static func configured(
        option: String?, passwordFile: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> PostgresDatabaseURL? {
        guard let text = option ?? environment["BIKERIDE_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            if let passwordFile {
                throw RideStoreError.invalid(
                    field: "database password file", reason: "\(passwordFile) is given but no database: add --database postgres://USER@HOST:PORT/DB")
            }
            return nil
        }
        return try PostgresDatabaseURL(parsing: text, passwordFile: passwordFile, environment: environment)
    }

    /// The most bytes a password file may hold: a password, not a document.
    public static let maximumPasswordFileBytes = 4096

    /// The password in a file (a Docker or Kubernetes secret, a file readable by the service's user only): its
    /// text without the line break(s) at its end. Refused, naming the file, when it does not exist, cannot be
    /// read, is empty, is not UTF-8 text, holds more than one line or more than `maximumPasswordFileBytes`.
    public static func password(fromFile path: String) throws -> String {
        func refused(_ reason: String) -> RideStoreError { .invalid(field: "database password file", reason: "\(path) \(reason)") }
        var isDirectory: ObjCBool = false
        guard !path.isEmpty, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw refused("does not exist") }
        guard !isDirectory.boolValue else { throw refused("is a directory, not a file") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw refused("cannot be read (check its permissions)") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumPasswordFileBytes + 1) ?? Data()
        } catch {
            throw refused("cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= maximumPasswordFileBytes else {
            throw refused("is larger than \(maximumPasswordFileBytes) bytes; it should hold the password alone")
        }
        var bytes = [UInt8](data)
        while let last = bytes.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw refused("is empty; it should hold the password") }
        guard let password = String(validating: bytes, as: UTF8.self) else { throw refused("is not UTF-8 text") }
        guard !bytes.contains(UInt8(ascii: "\n")), !bytes.contains(UInt8(ascii: "\r")) else {
            throw refused("holds more than one line; it should hold the password alone")
        }
        return password
    }

    /// The URL without its password, for messages and logs.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
