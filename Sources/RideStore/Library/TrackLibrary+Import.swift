import Foundation
import RideKit

extension TrackLibrary {
    /// Imports one file in one transaction: all its tracks or, on any error, nothing. A file imported before
    /// (same SHA-256) is not imported again unless `options.allowsDuplicates`. New tracks are also written to
    /// the documents folder.
    public func importFile(at url: URL, options: ImportOptions = ImportOptions()) async throws -> FileImportOutcome {
        try await importFile(at: url, options: options, documentName: nil, replacing: nil)
    }

    /// Imports bytes (an upload) in one transaction; `fileName` names the import; `format` nil detects it
    /// (`TrackFileFormat(head:fileName:)`).
    public func importData(
        _ data: Data, fileName: String?, format: TrackFileFormat? = nil, options: ImportOptions = ImportOptions()
    ) async throws -> FileImportOutcome {
        try await save(try await prepare(data, fileName: fileName, format: format, options: options), options: options)
    }

    /// The first half of `importData`, which needs no transaction: the format, the content hash, a look for an
    /// import of the same content, and the parse. An archive prepares its next entry while the one before is saved.
    func prepare(_ data: Data, fileName: String?, format: TrackFileFormat? = nil, options: ImportOptions) async throws -> PreparedImport {
        let path = fileName ?? "upload"
        guard let format = format ?? TrackFileFormat(head: data, fileName: fileName) else {
            throw RideStoreError.invalidFile(path: path, reason: "not GPX, FIT, TCX, .gpx436 or GeoJSON")
        }
        let hash = try await Self.blocking { ContentHash.of(data) }
        if !options.allowsDuplicates, let outcome = try await duplicate(hash: hash, path: path, byteCount: data.count) {
            return .duplicate(outcome)
        }
        let handler = try await Self.blocking { try Self.read(data: data, format: format, path: path, options: limited(options)) }
        return .read(
            handler, source: ImportSource(fileName: fileName, format: format, contentHash: hash, byteCount: data.count), path: path,
            original: OriginalFileRules.keeps(format: format, byteCount: data.count) ? data : nil)
    }

    /// The second half of `importData`: the tracks of a prepared file saved in one transaction (and copied to the
    /// documents folder unless `writesDocuments` is false: the caller does it).
    func save(_ prepared: PreparedImport, options: ImportOptions, writesDocuments: Bool = true) async throws -> FileImportOutcome {
        switch prepared {
        case .duplicate(let outcome):
            return outcome
        case .read(let handler, let source, let path, let original):
            return try await save(
                handler, source: source, path: path, options: options, documentName: nil, replacing: nil, original: original,
                writesDocuments: writesDocuments)
        }
    }

    /// Where uploads go without an `uploadsFolder`.
    static var defaultUploadsFolder: URL { FileManager.default.temporaryDirectory.appending(path: "bikeride-uploads") }

    /// A new spool for an upload, in `uploadsFolder` (else the temporary folder).
    public func makeUploadSpool() throws -> UploadSpool {
        try UploadSpool(folder: uploadsFolder ?? Self.defaultUploadsFolder)
    }

    /// Imports an upload received whole into a file (`UploadSpool`), in one transaction, and removes the file.
    /// A file imported before (the same SHA-256, computed while it arrived) is found without reading it again.
    /// `fileName` names the import and the tracks that have no name of their own; `format` nil detects it
    /// (`TrackFileFormat(head:fileName:)`).
    public func importUpload(
        _ upload: SpooledUpload, fileName: String?, format: TrackFileFormat? = nil, options: ImportOptions = ImportOptions()
    ) async throws -> FileImportOutcome {
        defer { try? FileManager.default.removeItem(at: upload.url) }
        let path = fileName ?? "upload"
        guard let format = format ?? TrackFileFormat(head: upload.head, fileName: fileName) else {
            throw RideStoreError.invalidFile(path: path, reason: "not GPX, FIT, TCX, .gpx436 or GeoJSON")
        }
        if !options.allowsDuplicates, let outcome = try await duplicate(hash: upload.contentHash, path: path, byteCount: upload.byteCount) {
            return outcome
        }
        let handler = try await Self.blocking { try Self.read(fileAt: upload.url, format: format, path: path, options: limited(options)) }
        let original = OriginalFileRules.keeps(format: format, byteCount: upload.byteCount) ? try? Data(contentsOf: upload.url) : nil
        return try await save(
            handler, source: ImportSource(fileName: fileName, format: format, contentHash: upload.contentHash, byteCount: upload.byteCount),
            path: path, options: options, documentName: nil, replacing: nil, original: original)
    }

    func importFile(at url: URL, options: ImportOptions, documentName: String?, replacing: TrackID?) async throws -> FileImportOutcome {
        let path = url.path
        let byteCount: Int
        do {
            byteCount = (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        } catch {
            throw RideStoreError.io(path: path, reason: "cannot read: \(Self.describe(error))")
        }
        let checksDuplicates = !options.allowsDuplicates && replacing == nil
        // A small file is hashed first, so that a duplicate is not even parsed; a big one is hashed on another
        // thread while it is parsed (hashing 333 MB takes a fair part of the parse).
        var hash: String?
        var hashing: BackgroundJob<String>?
        if byteCount <= Self.hashFirstByteCount {
            hash = try await Self.blocking { try ContentHash.of(fileAt: url) }
        } else {
            hashing = BackgroundJob("bikeride hash") { try ContentHash.of(fileAt: url) }
        }
        if checksDuplicates, let hash, let outcome = try await duplicate(hash: hash, path: path, byteCount: byteCount) { return outcome }
        let format = try Self.format(of: url)
        let handler = try await Self.blocking { try Self.read(fileAt: url, format: format, path: path, options: limited(options)) }
        if let hashing {
            let value: String
            do {
                value = try await Self.blocking { try hashing.value() }
            } catch {
                handler.discard()
                throw error
            }
            hash = value
            if checksDuplicates, let outcome = try await duplicate(hash: value, path: path, byteCount: byteCount) {
                _ = handler.finish()
                return outcome
            }
        }
        let original = OriginalFileRules.keeps(format: format, byteCount: byteCount) ? try? Data(contentsOf: url) : nil
        return try await save(
            handler, source: ImportSource(fileName: url.lastPathComponent, format: format, contentHash: hash!, byteCount: byteCount),
            path: path, options: options, documentName: documentName, replacing: replacing, original: original)
    }

    /// Runs blocking work (parsing, hashing, waiting for the import worker) on a GCD thread rather than on Swift
    /// concurrency's cooperative pool: that pool has one thread per core, and a parse that held one for seconds
    /// would stall every other task of the process (the server's requests, a reader of the list).
    static func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Files up to this size are hashed before they are parsed.
    static let hashFirstByteCount = 16 << 20

    /// The outcome for a file already imported, or nil.
    private func duplicate(hash: String, path: String, byteCount: Int) async throws -> FileImportOutcome? {
        let existing = try await store.importedTracks(contentHash: hash, userID: userID)
        return existing.isEmpty ? nil : FileImportOutcome(path: path, result: .duplicate(of: existing), pointCount: 0, byteCount: byteCount)
    }

    /// `options` with this library's limit on a track's points.
    func limited(_ options: ImportOptions) -> ImportOptions {
        var options = options
        options.maximumTrackPoints = limits.maximumTrackPoints
        return options
    }
}

/// A file read for import and not saved yet (`TrackLibrary.prepare`): found imported before, or what it holds.
enum PreparedImport: Sendable {
    case duplicate(FileImportOutcome)
    case read(ImportContentHandler, source: ImportSource, path: String, original: Data?)
}
