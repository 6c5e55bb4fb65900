import Foundation

/// What the store remembers of a file in the documents folder, to tell on the next sync whether it changed.
///
/// A file whose size and modification time are those remembered is taken as unchanged without being read;
/// otherwise its SHA-256 decides (a file touched but not changed is not imported again).
public struct DocumentFile: Sendable, Hashable {
    /// The path inside the documents folder, `/`-separated.
    public var path: String
    /// The track it was imported as or written from (nil once that track is gone).
    public var trackID: TrackID?
    public var byteCount: Int
    /// Modification time, nanoseconds since 1970.
    public var modifiedNanoseconds: Int64
    /// SHA-256, lower-case hex.
    public var contentHash: String
    public var syncedAt: Date

    public init(path: String, trackID: TrackID?, byteCount: Int, modifiedNanoseconds: Int64, contentHash: String, syncedAt: Date) {
        self.path = path
        self.trackID = trackID
        self.byteCount = byteCount
        self.modifiedNanoseconds = modifiedNanoseconds
        self.contentHash = contentHash
        self.syncedAt = syncedAt
    }
}
