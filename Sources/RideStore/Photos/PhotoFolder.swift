import Foundation
import RideKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where photos' bytes live: one file per photo (and one per thumbnail) in `<data directory>/Photos/`, named by
/// the photo's id and its type (`Ab3dE9fQ.jpg`, `Ab3dE9fQ-thumbnail.jpg`), never by anything a user sent.
///
/// A file is written whole before it gets its name: to a temporary file in the same folder, flushed to the disk
/// (`fsync`), renamed into place (atomic on POSIX), then the folder is flushed so the new name survives a power
/// cut. The store (`SQLiteRideStore+PhotoFiles`) names a file in its row only after that, and removes a file only
/// after the row that named it is gone, so a crash leaves at worst a file no row names, which `removeLeftovers`
/// clears at the next start.
public struct PhotoFolder: Sendable, Hashable {
    public let url: URL

    public init(url: URL) { self.url = url }

    /// A leftover is only removed when older than this: another process (the CLI beside `serve`) may be between
    /// writing a file and storing its row.
    public static let leftoverAgeSeconds: TimeInterval = 3600

    /// The file extension a photo of `mediaType` is kept under.
    public static func fileExtension(mediaType: String) -> String {
        switch mediaType {
        case "image/jpeg": "jpg"
        case "image/png": "png"
        case "image/webp": "webp"
        case "image/heic": "heic"
        default: "bin"
        }
    }

    /// The file name of a photo, or of its thumbnail.
    public static func fileName(photoID: PhotoID, mediaType: String, thumbnail: Bool = false) -> String {
        "\(photoID.rawValue)\(thumbnail ? "-thumbnail" : "").\(fileExtension(mediaType: mediaType))"
    }

    /// Creates the folder when missing.
    func create() throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw RideStoreError.io(path: url.path, reason: "cannot create the photos folder: \(error.localizedDescription)")
        }
    }

    /// Writes `data` to a new temporary file in the folder and flushes it; `install` gives it its name.
    func writeTemporary(_ data: Data) throws -> URL {
        try create()
        let temporary = url.appending(path: ".tmp-\(UUID().uuidString)")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw ioError(temporary, "cannot create") }
        var written = 0
        // The reason, with errno's words, taken before `close` can change errno.
        let failure: String? = data.withUnsafeBytes { buffer -> String? in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return "cannot write (\(String(cString: strerror(errno))))"
                }
                written += count
            }
            return fsync(descriptor) == 0 ? nil : "cannot flush (\(String(cString: strerror(errno))))"
        }
        close(descriptor)
        if let failure {
            unlink(temporary.path)
            throw RideStoreError.io(path: temporary.path, reason: failure)
        }
        return temporary
    }

    /// Renames a temporary file to `name` (replacing a file of that name) and flushes the folder.
    func install(_ temporary: URL, as name: String) throws {
        let target = url.appending(path: name)
        guard rename(temporary.path, target.path) == 0 else { throw ioError(target, "cannot rename into place") }
        let folder = open(url.path, O_RDONLY)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    /// The bytes of the file `name`.
    func read(_ name: String) throws -> Data {
        let file = url.appending(path: name)
        do {
            return try Data(contentsOf: file)
        } catch {
            throw RideStoreError.io(path: file.path, reason: "cannot read the photo: \(error.localizedDescription)")
        }
    }

    /// Removes files; a file already gone is no error.
    func remove(_ names: some Sequence<String>) {
        for name in names { unlink(url.appending(path: name).path) }
    }

    func remove(temporary: URL) { unlink(temporary.path) }

    /// Removes temporary files and files that `referenced` does not name, when older than
    /// `leftoverAgeSeconds`: what a crash between writing a file and storing (or deleting) its row left.
    func removeLeftovers(referenced: Set<String>, now: Date = Date()) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: url.path) else { return }
        for name in names where !referenced.contains(name) {
            let file = url.appending(path: name)
            guard let modified = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date,
                  now.timeIntervalSince(modified) > Self.leftoverAgeSeconds
            else { continue }
            unlink(file.path)
        }
    }

    private func ioError(_ file: URL, _ what: String) -> RideStoreError {
        RideStoreError.io(path: file.path, reason: "\(what) (\(String(cString: strerror(errno))))")
    }
}
