import Foundation
import RideKit

/// How files are imported.
public struct ImportOptions: Sendable, Hashable {
    /// Each GPX `trk` becomes a track of its own (and each `rte` a route), or the whole file one track.
    public var oneTrackPerFile: Bool
    /// The kind of the new tracks; nil guesses from the file (a GPX `type` such as "running"), else ride.
    public var kind: TrackKind?
    /// Also make a place of each waypoint.
    public var waypointsAsPlaces: Bool
    /// Import a file even when the same content was imported before.
    public var allowsDuplicates: Bool
    /// Read GPX leniently: drop invalid points and values instead of refusing the file.
    public var lenient: Bool
    /// A gzip-compressed GPX file inflating to more than this is refused (nil: the reader's own limit, 4 GiB).
    public var maximumInflatedBytes: Int?

    var readOptions: GPXReadOptions {
        var options = GPXReadOptions(lenient: lenient)
        if let maximumInflatedBytes { options.maximumInflatedBytes = maximumInflatedBytes }
        return options
    }

    public init(
        oneTrackPerFile: Bool = false, kind: TrackKind? = nil, waypointsAsPlaces: Bool = false, allowsDuplicates: Bool = false,
        lenient: Bool = false
    ) {
        self.oneTrackPerFile = oneTrackPerFile
        self.kind = kind
        self.waypointsAsPlaces = waypointsAsPlaces
        self.allowsDuplicates = allowsDuplicates
        self.lenient = lenient
    }
}

/// What importing one file did.
public struct FileImportOutcome: Sendable, Hashable {
    public var path: String
    public var result: TrackImportResult
    /// Points in the file's track segments (route points when it has no tracks).
    public var pointCount: Int
    public var byteCount: Int

    /// The tracks saved (empty for a duplicate).
    public var tracks: [TrackSummary] {
        if case .imported(_, let tracks, _) = result { return tracks }
        return []
    }
}

/// Where a folder import is, after each file: enough for a progress bar.
public struct ImportProgress: Sendable, Hashable {
    public var filesDone: Int
    public var filesTotal: Int
    public var pointsDone: Int
    public var bytesDone: Int
    public var bytesTotal: Int
    public var elapsedSeconds: Double
    /// The file just finished.
    public var currentPath: String?
    public var failures: Int

    /// Points imported per second so far.
    public var pointsPerSecond: Double { elapsedSeconds > 0 ? Double(pointsDone) / elapsedSeconds : 0 }
}

/// What a folder import did: each file's outcome, and each file that failed with its reason.
public struct ImportReport: Sendable {
    public var outcomes: [FileImportOutcome] = []
    public var failures: [(path: String, reason: String)] = []
    public var elapsedSeconds: Double = 0

    public var importedTrackCount: Int { outcomes.reduce(0) { $0 + $1.tracks.count } }
    public var duplicateCount: Int {
        outcomes.filter { if case .duplicate = $0.result { return true } else { return false } }.count
    }
    public var pointCount: Int { outcomes.reduce(0) { $0 + $1.pointCount } }
}

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
        let path = fileName ?? "upload"
        guard let format = format ?? TrackFileFormat(head: data, fileName: fileName) else {
            throw RideStoreError.invalidFile(path: path, reason: "not GPX, .gpx436 or GeoJSON")
        }
        let hash = try await Self.blocking { ContentHash.of(data) }
        if !options.allowsDuplicates {
            let existing = try await store.importedTracks(contentHash: hash, userID: userID)
            if !existing.isEmpty { return FileImportOutcome(path: path, result: .duplicate(of: existing), pointCount: 0, byteCount: data.count) }
        }
        let handler = try await Self.blocking { try Self.read(data: data, format: format, path: path, options: options) }
        return try await save(
            handler, source: ImportSource(fileName: fileName, format: format, contentHash: hash, byteCount: data.count),
            path: path, options: options, documentName: nil, replacing: nil)
    }

    /// A new spool for an upload, in `uploadsFolder` (else the temporary folder).
    public func makeUploadSpool() throws -> UploadSpool {
        try UploadSpool(folder: uploadsFolder ?? FileManager.default.temporaryDirectory.appending(path: "bikeride-uploads"))
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
            throw RideStoreError.invalidFile(path: path, reason: "not GPX, .gpx436 or GeoJSON")
        }
        if !options.allowsDuplicates, let outcome = try await duplicate(hash: upload.contentHash, path: path, byteCount: upload.byteCount) {
            return outcome
        }
        let handler = try await Self.blocking { try Self.read(fileAt: upload.url, format: format, path: path, options: options) }
        return try await save(
            handler, source: ImportSource(fileName: fileName, format: format, contentHash: upload.contentHash, byteCount: upload.byteCount),
            path: path, options: options, documentName: nil, replacing: nil)
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
        let handler = try await Self.blocking { try Self.read(fileAt: url, format: format, path: path, options: options) }
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
        return try await save(
            handler, source: ImportSource(fileName: url.lastPathComponent, format: format, contentHash: hash!, byteCount: byteCount),
            path: path, options: options, documentName: documentName, replacing: replacing)
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

    /// Imports files and folders (walked recursively for `.gpx`, `.gpx436` and `.geojson` files), each file in
    /// its own transaction; a bad file is reported with its reason and the others go on. `progress` is called
    /// before the first file and after each one.
    public func importPaths(
        _ urls: [URL], options: ImportOptions = ImportOptions(), progress: @Sendable (ImportProgress) -> Void = { _ in }
    ) async -> ImportReport {
        let started = Date()
        var report = ImportReport()
        var files: [URL] = []
        for url in urls {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                report.failures.append((url.path, "no such file or folder"))
                continue
            }
            if isDirectory.boolValue {
                files += Self.importableFiles(in: url)
            } else {
                files.append(url)
            }
        }
        let sizes = files.map { (try? FileManager.default.attributesOfItem(atPath: $0.path)[.size] as? NSNumber)?.intValue ?? 0 }
        var state = ImportProgress(
            filesDone: 0, filesTotal: files.count, pointsDone: 0, bytesDone: 0, bytesTotal: sizes.reduce(0, +), elapsedSeconds: 0,
            currentPath: nil, failures: report.failures.count)
        progress(state)
        for (file, size) in zip(files, sizes) {
            do {
                let outcome = try await importFile(at: file, options: options)
                report.outcomes.append(outcome)
                state.pointsDone += outcome.tracks.isEmpty ? 0 : outcome.pointCount
            } catch {
                report.failures.append((file.path, Self.describe(error)))
                state.failures += 1
            }
            state.filesDone += 1
            state.bytesDone += size
            state.currentPath = file.path
            state.elapsedSeconds = Date().timeIntervalSince(started)
            progress(state)
        }
        report.elapsedSeconds = Date().timeIntervalSince(started)
        return report
    }

    // MARK: Reading

    /// A file's format by `TrackFileFormat(head:fileName:)`, from its first bytes and its name.
    static func format(of url: URL) throws -> TrackFileFormat {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw RideStoreError.io(path: url.path, reason: "cannot open")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: TrackFileFormat.headByteCount)) ?? Data()
        guard let format = TrackFileFormat(head: head, fileName: url.lastPathComponent) else {
            throw RideStoreError.invalidFile(path: url.path, reason: "not GPX, .gpx436 or GeoJSON")
        }
        return format
    }

    /// Reads a file: GPX streamed from the disk in 1 MiB chunks (a big ride never sits in memory as text), the
    /// JSON formats whole. `path` names the file in errors.
    static func read(fileAt url: URL, format: TrackFileFormat, path: String, options: ImportOptions) throws -> ImportContentHandler {
        guard format == .gpx else {
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw RideStoreError.io(path: path, reason: "cannot read: \(Self.describe(error))")
            }
            return try Self.read(data: data, format: format, path: path, options: options)
        }
        var streaming = ImportContentHandler(oneTrack: options.oneTrackPerFile, activity: options.kind?.activity ?? .ride)
        do throws(GPXError) {
            _ = try GPXReader.parse(contentsOf: url, into: &streaming, options: options.readOptions)
        } catch {
            streaming.discard()
            throw RideStoreError.invalidFile(path: path, reason: Self.located(error))
        }
        return streaming
    }

    /// Reads a whole file in memory (`.gpx436`, GeoJSON, bytes handed over).
    static func read(data: Data, format: TrackFileFormat, path: String, options: ImportOptions) throws -> ImportContentHandler {
        var handler = ImportContentHandler(oneTrack: options.oneTrackPerFile, activity: options.kind?.activity ?? .ride)
        do {
            switch format {
            case .gpx:
                _ = try GPXReader.parse(bytes: [UInt8](data), into: &handler, options: options.readOptions)
            case .gpx436:
                try JSONTrackFormat.decode(data).replay(into: &handler)
            case .geojson:
                try GeoJSONReader.read(data).replay(into: &handler)
            }
        } catch let error as GPXError {
            handler.discard()
            throw RideStoreError.invalidFile(path: path, reason: located(error))
        } catch let error as TrackFormatError {
            handler.discard()
            throw RideStoreError.invalidFile(path: path, reason: error.description)
        }
        return handler
    }

    /// Files a folder import picks up, sorted: track file names (`TrackFileFormat.isTrackFileName`), no hidden
    /// files or folders.
    static func importableFiles(in folder: URL) -> [URL] {
        guard let enumerator = FileManager.default.enumerator(
            at: folder, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else { return [] }
        var files: [URL] = []
        for case let url as URL in enumerator {
            guard TrackFileFormat.isTrackFileName(url.lastPathComponent),
                (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            else { continue }
            files.append(url)
        }
        return files.sorted { $0.path < $1.path }
    }

    // MARK: Saving

    /// Turns what was read into tracks and saves them in one `saveImport`.
    func save(
        _ handler: ImportContentHandler, source: ImportSource, path: String, options: ImportOptions, documentName: String?,
        replacing: TrackID?
    ) async throws -> FileImportOutcome {
        let baseName = Self.baseName(source.fileName)
        let shared = TrackContent(
            version: handler.version, creator: handler.creator, metadata: handler.metadata, extensions: handler.extensions)
        let read = try await Self.blocking { handler.finish() }
        var tracks: [NewTrack] = []
        let pointCount = read.tracks.isEmpty
            ? handler.routes.reduce(0) { $0 + $1.points.count }
            : handler.pointCount

        if options.oneTrackPerFile || replacing != nil {
            var content = shared
            content.waypoints = handler.waypoints
            content.routes = handler.routes
            content.tracks = read.tracks
            let kind = options.kind ?? Self.guessKind(content)
            var stats: TrackStats
            if let first = read.stats.first {
                stats = first
            } else if handler.routeStats.count == 1 {
                stats = handler.routeStats[0]
            } else {
                stats = try Self.stats(of: content, kind: kind)
            }
            if stats.activity != kind.activity { stats = try Self.stats(of: content, kind: kind) }
            let name = TrackFileFormat.trackName(
                firstTrack: content.tracks.first?.header.name, metadata: content.metadata.name, firstRoute: content.routes.first?.header.name)
            tracks.append(
                NewTrack(
                    name: Self.usableName(name, fallback: baseName), kind: kind, content: content, stats: stats,
                    documentName: documentName, preview: read.previews.first))
        } else {
            for (index, track) in read.tracks.enumerated() {
                var content = shared
                content.tracks = [track]
                if index == 0 { content.waypoints = handler.waypoints }
                let kind = options.kind ?? Self.guessKind(content)
                var stats = read.stats[index]
                if stats.activity != kind.activity { stats = try Self.stats(of: content, kind: kind) }
                let fallback = read.tracks.count > 1 ? "\(baseName) \(index + 1)" : baseName
                tracks.append(
                    NewTrack(
                        name: Self.usableName(
                            TrackFileFormat.trackName(firstTrack: track.header.name, metadata: index == 0 ? handler.metadata.name : nil, firstRoute: nil),
                            fallback: fallback),
                        kind: kind, content: content, stats: stats, preview: read.previews[index]))
            }
            for (index, route) in handler.routes.enumerated() {
                var content = shared
                content.routes = [route]
                if read.tracks.isEmpty, index == 0 { content.waypoints = handler.waypoints }
                let fallback = handler.routes.count > 1 ? "\(baseName) route \(index + 1)" : baseName
                tracks.append(
                    NewTrack(
                        name: Self.usableName(route.header.name, fallback: fallback), kind: options.kind ?? .route,
                        content: content, stats: handler.routeStats[index]))
            }
            if tracks.isEmpty {
                // Only waypoints (or nothing but metadata): kept as one entry, so that exporting gives the file back.
                var content = shared
                content.waypoints = handler.waypoints
                tracks.append(
                    NewTrack(
                        name: Self.usableName(handler.metadata.name, fallback: baseName), kind: options.kind ?? .route,
                        content: content, stats: TrackStats(activity: (options.kind ?? .route).activity), preview: []))
            }
        }

        var places: [NewPlace] = []
        if options.waypointsAsPlaces {
            places = try handler.waypoints.points().map(NewPlace.init(waypoint:))
        }
        let result = try await store.saveImport(
            TrackImport(source: source, tracks: tracks, places: places, allowsDuplicate: options.allowsDuplicates, replacing: replacing),
            userID: userID)
        let outcome = FileImportOutcome(path: path, result: result, pointCount: pointCount, byteCount: source.byteCount)
        if documentName == nil, replacing == nil, case .imported(_, let saved, _) = result {
            // The documents folder gets a copy now; a failure here loses nothing (the next sync writes it).
            _ = try? await writeDocuments(for: saved)
        }
        return outcome
    }

    /// `LINE:COLUMN: message`, so that a report reads `FILE:LINE:COLUMN: message` as the command line prints.
    static func located(_ error: GPXError) -> String {
        error.line > 0 ? "\(error.line):\(error.column): \(error.message)" : error.message
    }

    /// The kind a file's GPX `type` names, else ride (a route when it has only routes).
    static func guessKind(_ content: TrackContent) -> TrackKind {
        for track in content.tracks {
            if let type = track.header.type, let kind = TrackKind(gpxType: type) { return kind }
        }
        if content.tracks.isEmpty { return .route }
        return .ride
    }

    static func baseName(_ fileName: String?) -> String {
        guard let fileName, !fileName.isEmpty else { return "Track" }
        let base = (fileName as NSString).deletingPathExtension
        return base.isEmpty ? fileName : base
    }

    /// A name as the store keeps it (`TrackSummary.cleanedName`), at most 200 characters; `fallback` when blank.
    static func usableName(_ name: String?, fallback: String) -> String {
        let cleaned = TrackSummary.cleanedName(name ?? "")
        if !cleaned.isEmpty { return String(cleaned.prefix(200)) }
        let fallback = fallback.trimmingCharacters(in: .whitespaces)
        return fallback.isEmpty ? "Track" : String(fallback.prefix(200))
    }
}
