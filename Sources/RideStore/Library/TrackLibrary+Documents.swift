import Crypto
import Foundation
import RideKit

/// What one pass over the documents folder did.
public struct SyncReport: Sendable {
    /// Files new to the store, imported (one track each).
    public var imported: [(path: String, track: TrackSummary)] = []
    /// Files that changed since the last sync, their tracks' content replaced (ids kept).
    public var updated: [(path: String, track: TrackSummary)] = []
    /// Files whose content was already a track (a copy of an exported file): linked to it, not imported again.
    public var linked: [(path: String, trackID: TrackID)] = []
    /// Tracks that had no file yet, written out.
    public var written: [(path: String, trackID: TrackID)] = []
    /// Files seen unchanged.
    public var unchangedCount = 0
    /// Files that could not be imported, with the reason; they are tried again on the next sync.
    public var failures: [(path: String, reason: String)] = []
}

extension TrackLibrary {
    /// The documents folder's file types.
    static let documentExtensions: Set<String> = ["gpx", "gpx436"]

    /// Brings the documents folder and the store in step, once (`bikeride sync`; the server runs it when the
    /// folder changes):
    ///
    /// 1. every `.gpx` and `.gpx436` file in the folder (subfolders included; hidden files, symbolic links and
    ///    anything not a regular file skipped) is compared with what the last sync saw of it. Same size and
    ///    modification time: unchanged, not even read. Otherwise its SHA-256 decides: the same hash is only a
    ///    touch; a new file is imported as one track; a changed file replaces the content of the track it
    ///    was imported as (the id stays).
    /// 2. every track without a file yet (imported elsewhere, recorded, or saved while this failed) is written
    ///    as `DATE NAME.gpx` (`SafeFileName`).
    ///
    /// A file deleted from the folder deletes nothing in the store, and is not written again.
    public func sync() async throws -> SyncReport {
        guard let folder = documentsFolder else { return SyncReport() }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RideStoreError.io(path: folder.path, reason: "cannot create the documents folder: \(Self.describe(error))")
        }
        var report = SyncReport()
        let known = Dictionary(
            try await store.documentFiles(userID: userID).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let files = Self.documentFiles(in: folder)
        let present = Set(files.map(\.path))

        for file in files {
            let url = folder.appending(path: file.path)
            if let previous = known[file.path], previous.byteCount == file.byteCount,
                previous.modifiedNanoseconds == file.modifiedNanoseconds
            {
                report.unchangedCount += 1
                continue
            }
            do {
                let hash = try ContentHash.of(fileAt: url)
                var record = DocumentFile(
                    path: file.path, trackID: known[file.path]?.trackID, byteCount: file.byteCount,
                    modifiedNanoseconds: file.modifiedNanoseconds, contentHash: hash, syncedAt: Date())
                if let previous = known[file.path], previous.contentHash == hash {
                    report.unchangedCount += 1
                } else if let trackID = known[file.path]?.trackID, try await store.trackSummary(id: trackID, userID: userID) != nil {
                    let outcome = try await importFile(
                        at: url, options: ImportOptions(oneTrackPerFile: true), documentName: file.path, replacing: trackID)
                    report.updated += outcome.tracks.map { (file.path, $0) }
                } else {
                    let outcome = try await importFile(
                        at: url, options: ImportOptions(oneTrackPerFile: true), documentName: file.path, replacing: nil)
                    switch outcome.result {
                    case .imported(_, let tracks, _):
                        record.trackID = tracks.first?.id
                        report.imported += tracks.map { (file.path, $0) }
                    case .duplicate(let ids):
                        record.trackID = ids.first
                        if let id = ids.first { report.linked.append((file.path, id)) }
                    }
                }
                try await store.saveDocumentFile(record, userID: userID)
            } catch {
                report.failures.append((file.path, Self.describe(error)))
            }
        }
        for path in known.keys where !present.contains(path) {
            try await store.removeDocumentFile(path: path, userID: userID)
        }
        report.written = try await writeDocuments(for: try await store.tracksWithoutDocument(userID: userID, limit: .max))
        return report
    }

    /// Writes each track that has no file in the documents folder yet as `DATE NAME.gpx`, and remembers it.
    @discardableResult
    func writeDocuments(for tracks: [TrackSummary]) async throws -> [(path: String, trackID: TrackID)] {
        guard let folder = documentsFolder, !tracks.isEmpty else { return [] }
        var taken = try await documentNamesTaken(in: folder)
        return try await writeDocuments(for: tracks, in: folder, taken: &taken)
    }

    /// The names a new file of the documents folder must not take: the files there and those the store knows,
    /// lower-cased (names that differ only in case are one file on macOS and Windows). Creates the folder.
    func documentNamesTaken(in folder: URL) async throws -> Set<String> {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw RideStoreError.io(path: folder.path, reason: "cannot create the documents folder: \(Self.describe(error))")
        }
        var taken = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).map { $0.lowercased() })
        for file in try await store.documentFiles(userID: userID) { taken.insert(file.path.lowercased()) }
        return taken
    }

    /// `writeDocuments(for:)` with the names taken already known and kept up to date, for many writes in a row
    /// (an archive's entries) without listing the folder again for each.
    func writeDocuments(for tracks: [TrackSummary], in folder: URL, taken: inout Set<String>) async throws -> [(path: String, trackID: TrackID)] {
        var written: [(path: String, trackID: TrackID)] = []
        for summary in tracks where summary.documentName == nil {
            guard let track = try await store.track(id: summary.id, userID: userID) else { continue }
            let name = SafeFileName.make(for: summary, extension: "gpx", taken: taken)
            taken.insert(name.lowercased())
            let url = folder.appending(path: name)
            let content = track.content
            let file = try await Self.blocking { try Self.writeGPX(content, to: url) }
            let attributes = Self.fileAttributes(url)
            try await store.saveDocumentFile(
                DocumentFile(
                    path: name, trackID: summary.id, byteCount: attributes?.byteCount ?? file.byteCount,
                    modifiedNanoseconds: attributes?.modifiedNanoseconds ?? 0, contentHash: file.contentHash, syncedAt: Date()),
                userID: userID)
            written.append((name, summary.id))
        }
        return written
    }

    /// Writes a stored track as GPX 1.1, atomically (a temporary file renamed into place), one block of points
    /// at a time: a track of any length costs a block's worth of memory, not the whole file's. Returns the
    /// file's size and SHA-256.
    static func writeGPX(_ content: TrackContent, to url: URL) throws -> (byteCount: Int, contentHash: String) {
        let temporary = url.deletingLastPathComponent().appending(path: ".\(UUID().uuidString).gpx.tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil), let handle = try? FileHandle(forWritingTo: temporary) else {
            throw RideStoreError.io(path: url.path, reason: "cannot create a file in the documents folder")
        }
        var hasher = SHA256()
        var byteCount = 0
        do {
            defer { try? handle.close() }
            var writer = GPXWriter(creator: content.creator, metadata: content.metadata) { chunk in
                hasher.update(data: chunk)
                byteCount += chunk.count
                try handle.write(contentsOf: chunk)
            }
            for block in content.waypoints.packedBlocks {
                for waypoint in try block.points() { writer.writeWaypoint(waypoint) }
            }
            for route in content.routes { writer.writeRoute(try route.route()) }
            for track in content.tracks {
                writer.beginTrack(track.header)
                for segment in track.segments {
                    writer.beginSegment()
                    for block in segment.points.packedBlocks {
                        for point in try block.points() { writer.writeTrackPoint(point) }
                    }
                    writer.endSegment(extensions: segment.extensions)
                }
                writer.endTrack()
            }
            try writer.finish(extensions: content.extensions)
            try handle.synchronize()
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw RideStoreError.io(path: url.path, reason: "cannot write: \(Self.describe(error))")
        }
        guard Foundation.rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: temporary)
            throw RideStoreError.io(path: url.path, reason: "cannot write: \(reason)")
        }
        return (byteCount, ContentHash.hex(hasher.finalize()))
    }

    /// Removes the files of tracks that are gone for good.
    func removeDocuments(of tracks: [TrackSummary]) {
        guard let folder = documentsFolder else { return }
        for track in tracks {
            guard let name = track.documentName, !name.isEmpty, !name.hasPrefix("/"),
                !name.split(separator: "/").contains("..")
            else { continue }
            try? FileManager.default.removeItem(at: folder.appending(path: name))
        }
    }

    /// The documents folder's `.gpx` and `.gpx436` regular files, paths relative to it.
    static func documentFiles(in folder: URL) -> [(path: String, byteCount: Int, modifiedNanoseconds: Int64)] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey, .isSymbolicLinkKey], options: [.skipsHiddenFiles])
        else { return [] }
        let base = folder.standardizedFileURL.path
        var files: [(path: String, byteCount: Int, modifiedNanoseconds: Int64)] = []
        for case let url as URL in enumerator {
            guard documentExtensions.contains(url.pathExtension.lowercased()),
                let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isSymbolicLinkKey]),
                values.isRegularFile == true, values.isSymbolicLink != true,
                let attributes = fileAttributes(url)
            else { continue }
            let full = url.standardizedFileURL.path
            guard full.hasPrefix(base + "/") else { continue }
            files.append((String(full.dropFirst(base.count + 1)), attributes.byteCount, attributes.modifiedNanoseconds))
        }
        return files.sorted { $0.path < $1.path }
    }

    static func fileAttributes(_ url: URL) -> (byteCount: Int, modifiedNanoseconds: Int64)? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            attributes[.type] as? FileAttributeType == .typeRegular,
            let size = (attributes[.size] as? NSNumber)?.intValue, let modified = attributes[.modificationDate] as? Date
        else { return nil }
        return (size, Int64((modified.timeIntervalSince1970 * 1e9).rounded()))
    }
}
