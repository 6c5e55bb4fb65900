import Crypto
import Foundation
import RideKit

/// An upload written to a file as it arrives, and hashed on the way: the server hands each piece of a request
/// body to `append(_:)`, so that an upload of any size costs about 1 MiB of memory, then imports the file
/// with `TrackLibrary.importUpload(_:fileName:format:options:)`, which reads it from the disk as a stream.
///
///     let spool = try library.makeUploadSpool()
///     for try await chunk in request.body { try await spool.append(chunk.readableBytesView) }
///     let outcome = try await library.importUpload(try await spool.finish(), fileName: "ride.gpx")
///
/// The file is removed by `importUpload`, by `discard()`, or at the latest when the spool is released, so an
/// upload that fails halfway leaves nothing behind. Used by one task at a time (each call awaited in turn).
public final class UploadSpool: @unchecked Sendable {
    /// Bytes gathered before they are written (and hashed) off Swift's cooperative threads.
    static let flushBytes = 1 << 20
    /// Bytes of the start kept in memory, to sniff the format.
    public static let headBytes = TrackFileFormat.headByteCount

    /// The file being written.
    public let url: URL
    private let handle: FileHandle
    private var hasher = SHA256()
    private var pending: [UInt8] = []
    private var closed = false
    /// Whether the file now belongs to a `SpooledUpload` (and `importUpload` removes it).
    private var handedOver = false
    /// Bytes received so far.
    public private(set) var byteCount = 0
    /// The first `headBytes` bytes.
    public private(set) var head: [UInt8] = []

    /// Creates an empty file in `folder` (created if needed).
    init(folder: URL) throws {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RideStoreError.io(path: folder.path, reason: "cannot create the uploads folder: \(TrackLibrary.describe(error))")
        }
        url = folder.appending(path: "upload-\(UUID().uuidString).part")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = try? FileHandle(forWritingTo: url)
        else { throw RideStoreError.io(path: url.path, reason: "cannot create the upload's file") }
        self.handle = handle
        pending.reserveCapacity(Self.flushBytes)
    }

    deinit {
        if !closed { try? handle.close() }
        if !handedOver { try? FileManager.default.removeItem(at: url) }
    }

    /// Adds the next bytes of the upload.
    public func append(_ bytes: some Collection<UInt8>) async throws {
        precondition(!closed, "append after finish or discard")
        if head.count < Self.headBytes { head += bytes.prefix(Self.headBytes - head.count) }
        pending.append(contentsOf: bytes)
        byteCount += bytes.count
        if pending.count >= Self.flushBytes { try await flush() }
    }

    /// Writes what is gathered, and hashes it, on a thread outside the cooperative pool.
    private func flush() async throws {
        guard !pending.isEmpty else { return }
        let chunk = pending
        pending.removeAll(keepingCapacity: true)
        try await TrackLibrary.blocking { [self] in
            hasher.update(data: chunk)
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw RideStoreError.io(path: url.path, reason: "cannot write the upload: \(TrackLibrary.describe(error))")
            }
        }
    }

    /// The whole upload, on the disk and hashed.
    public func finish() async throws -> SpooledUpload {
        precondition(!closed, "finish twice")
        try await flush()
        closed = true
        try handle.close()
        handedOver = true
        return SpooledUpload(
            url: url, byteCount: byteCount, contentHash: ContentHash.hex(hasher.finalize()), head: head)
    }

    /// Drops the upload and its file.
    public func discard() {
        if !closed {
            closed = true
            try? handle.close()
        }
        if !handedOver { try? FileManager.default.removeItem(at: url) }
    }

    /// Removes files left in `folder` by uploads older than a day (a crash mid-upload); younger ones may
    /// belong to an upload in progress in another process.
    package static func removeLeftovers(in folder: URL, olderThan age: TimeInterval = 24 * 3600) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let limit = Date().addingTimeInterval(-age)
        for name in names where name.hasPrefix("upload-") && name.hasSuffix(".part") {
            let url = folder.appending(path: name)
            if let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date, modified < limit {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }
}

/// An upload written whole to a file: what `TrackLibrary.importUpload` imports.
public struct SpooledUpload: Sendable {
    public var url: URL
    public var byteCount: Int
    /// SHA-256, lower-case hex (as `ContentHash`).
    public var contentHash: String
    /// The first bytes (up to `UploadSpool.headBytes`), to sniff the format.
    public var head: [UInt8]
}
