/// Why the store refused or failed; each case says what a user can do about it.
public enum RideStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No such thing for this user (or it was deleted).
    case notFound(kind: String, id: String)
    /// A value that cannot be stored as it is.
    case invalid(field: String, reason: String)
    /// The request clashes with what is stored (a name already taken, a recording already stopped …).
    case conflict(String)
    /// Stored data could not be read back.
    case damaged(String)
    /// The database failed (disk full, locked by another program, unreadable file …).
    case database(String)
    /// A file to import is not a track file bikeride can read; `reason` says where and why.
    case invalidFile(path: String, reason: String)
    /// A file or folder could not be read or written.
    case io(path: String, reason: String)
    /// Something bikeride does not do (writing TCX, say): not a failure, and retrying will not help.
    case unsupported(String)
    /// The database cannot be reached now (PostgreSQL restarting, the network to it cut): nothing of the call was
    /// done, or its outcome is unknown to a retry that the store deduplicates. Retrying later will help.
    case unavailable(String)
    /// More than this server lets one track or one user hold (`StorageLimits`); nothing of the request was stored.
    case limitExceeded(String)
    /// A file that holds nothing to save as a track (no point in any track or route: empty, or only waypoints);
    /// the reason says what it has and what to do instead. Nothing was stored.
    case nothingToImport(String)
    /// Another request (on this instance or another) is doing this now, such as the heatmap's first build: nothing
    /// was done; ask again after `retryAfterSeconds`.
    case busy(String, retryAfterSeconds: Int)

    public var description: String {
        switch self {
        case .notFound(let kind, let id): return "no \(kind) with id \(id)"
        case .invalid(let field, let reason): return "\(field): \(reason)"
        case .conflict(let reason): return reason
        case .damaged(let reason): return "stored data is damaged: \(reason)"
        case .database(let reason): return "database error: \(reason)"
        case .invalidFile(let path, let reason): return "\(path): \(reason)"
        case .io(let path, let reason): return "\(path): \(reason)"
        case .unsupported(let reason): return reason
        case .unavailable(let reason): return "the database is unavailable: \(reason)"
        case .limitExceeded(let reason): return reason
        case .nothingToImport(let reason): return reason
        case .busy(let reason, _): return reason
        }
    }
}
