import Crypto
import Foundation

/// SHA-256 of a file's bytes, lower-case hex: how an import recognises a file it has seen.
///
/// SHA-256 rather than a fast non-cryptographic hash: in a server with several users, nobody should be able
/// to craft a file that passes for another one. BoringSSL's implementation uses the CPU's SHA instructions
/// (about 1.5 GB/s here), so hashing a 333 MB ride costs a fraction of reading it.
enum ContentHash {
    static func of(_ bytes: some DataProtocol) -> String { hex(SHA256.hash(data: bytes)) }

    /// Streams the file in 4 MiB chunks.
    static func of(fileAt url: URL) throws -> String {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw RideStoreError.io(path: url.path, reason: "cannot open: \(TrackLibrary.describe(error))")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        do {
            while let chunk = try handle.read(upToCount: 4 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        } catch {
            throw RideStoreError.io(path: url.path, reason: "cannot read: \(TrackLibrary.describe(error))")
        }
        return hex(hasher.finalize())
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
