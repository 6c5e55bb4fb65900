import Foundation
import RideKit
import ZIPFoundation

/// What importing an archive did, entry by entry.
public struct ArchiveImportReport: Sendable, Hashable {
    /// Track files found in the archive (what the progress counts to).
    public var filesTotal = 0
    /// Files imported now, and the tracks they made.
    public var imported = 0
    public var tracks: [TrackSummary] = []
    /// Files imported before (the same content): nothing added.
    public var alreadyImported = 0
    /// Entries that could not be imported, each with why (`entry: reason`); the others were imported still.
    public var failures: [String] = []
    /// Entries left out on purpose (not track files, symlinks, folders): how many.
    public var skippedEntries = 0
    /// What was imported of a bikeride export (`GET /api/export`, `bikeride export-all`): nil for other archives.
    public var libraryImport: LibraryImportReport?

    /// "312 imported, 2,041 already imported, 2 failed".
    public var message: String {
        if let libraryImport {
            return libraryImport.message + (failures.isEmpty ? "" : "; \(failures.count.formatted()) failed")
        }
        var parts: [String] = []
        if imported > 0 || (alreadyImported == 0 && failures.isEmpty) { parts.append("\(imported.formatted()) imported") }
        if alreadyImported > 0 { parts.append("\(alreadyImported.formatted()) already imported") }
        if !failures.isEmpty { parts.append("\(failures.count.formatted()) failed") }
        return parts.joined(separator: ", ")
    }
}

/// Where an archive import is: after each file.
public struct ArchiveProgress: Sendable, Hashable {
    public var filesDone: Int
    public var filesTotal: Int
}

/// Bounds an archive must keep, against hostile ones: the entries it may hold, what one entry and all of them
/// may inflate to, and how much an entry may grow (a zip bomb inflates a thousandfold and more; real track files
/// compress 3–10 times).
public struct ArchiveLimits: Sendable, Hashable {
    public var maximumEntries = 100_000
    public var maximumEntryBytes = 256 << 20
    public var maximumTotalBytes = 16 << 30
    public var maximumRatio = 100
    /// `activities.csv` of a Strava export with 100,000 activities is about 100 MB.
    public var maximumIndexBytes = 256 << 20

    public init() {}
}

extension TrackLibrary {
    /// Imports every track file of a zip archive (GPX, FIT, TCX, gzipped or not; `.gpx436` and GeoJSON), each in
    /// a transaction of its own: a damaged entry fails alone, and an entry imported before is found by its
    /// content and not imported again. A Strava bulk export's `activities.csv` gives each activity its name,
    /// kind and description.
    ///
    /// Nothing is written by an entry's path: entries are read as streams into memory (within `limits`), so a
    /// name like `../../x` or `/etc/passwd` reaches no file; symlinks and folders are skipped.
    public func importArchive(
        at url: URL, options: ImportOptions = ImportOptions(), limits: ArchiveLimits = ArchiveLimits(),
        progress: (@Sendable (ArchiveProgress) async -> Void)? = nil
    ) async throws -> ArchiveImportReport {
        let archive: Archive
        do {
            archive = try Archive(url: url, accessMode: .read)
        } catch {
            throw RideStoreError.invalidFile(path: url.path, reason: "not a zip archive, or a damaged one")
        }
        if let manifest = try Self.libraryExportManifest(in: archive, path: url.path, limits: limits) {
            return try await importLibraryExport(archive, path: url.path, manifest: manifest, options: options, limits: limits, progress: progress)
        }
        var report = ArchiveImportReport()
        var entries: [Entry] = []
        var index: Entry?
        var count = 0
        for entry in archive {
            count += 1
            if count > limits.maximumEntries {
                throw RideStoreError.invalidFile(
                    path: url.path, reason: "the archive holds more than \(limits.maximumEntries.formatted()) entries; nothing was imported")
            }
            let path = entry.path
            let name = (path as NSString).lastPathComponent
            guard entry.type == .file, !name.hasPrefix("."), !path.hasPrefix("__MACOSX/") else {
                report.skippedEntries += 1
                continue
            }
            if name.lowercased() == "activities.csv", index == nil || !path.contains("/") {
                index = entry
            } else if TrackFileFormat.isTrackFileName(name) {
                entries.append(entry)
            } else {
                report.skippedEntries += 1
            }
        }
        var activities: [String: StravaActivity] = [:]
        if let index {
            let bytes = try Self.read(index, of: archive, limits: limits, maximumBytes: limits.maximumIndexBytes)
            activities = try StravaActivity.index(csv: String(decoding: bytes, as: UTF8.self))
        }
        report.filesTotal = entries.count
        await progress?(ArchiveProgress(filesDone: 0, filesTotal: entries.count))
        // A pipeline of three: while one entry's tracks are saved (a transaction, in the archive's order), the next
        // is inflated, hashed and parsed, and the entry before is copied to the documents folder (GPX written from the
        // store), each stage one at a time. The zip is read in order on this task (its file handle is not shared).
        // An entry prepared before the one with the same content was saved is still found a duplicate: the store
        // looks again in the transaction that saves. The documents folder is listed once, not once per entry.
        var inflatedTotal = 0
        var done = 0
        var copying: Task<Set<String>?, Never>?
        func copyToDocuments(_ tracks: [TrackSummary]) async {
            guard let folder = documentsFolder, !tracks.isEmpty else { return }
            let taken = await copying?.value
            let library = self
            copying = Task {
                var names: Set<String>
                if let taken {
                    names = taken
                } else {
                    // A folder that cannot be made loses nothing: the next sync writes the files.
                    guard let listed = try? await library.documentNamesTaken(in: folder) else { return nil }
                    names = listed
                }
                _ = try? await library.writeDocuments(for: tracks, in: folder, taken: &names)
                return names
            }
        }
        var pending: (path: String, options: ImportOptions, task: Task<PreparedImport, any Error>)?

        func failed(_ path: String, _ error: any Error) {
            if let error = error as? RideStoreError {
                report.failures.append("\(path): \(Self.reason(error))")
            } else {
                report.failures.append("\(path): \(error)")
            }
        }
        func settle() async {
            guard let entry = pending else { return }
            pending = nil
            do {
                let outcome = try await save(try await entry.task.value, options: entry.options, writesDocuments: false)
                switch outcome.result {
                case .imported(_, let tracks, _):
                    report.imported += 1
                    report.tracks += tracks
                    await copyToDocuments(tracks)
                case .duplicate:
                    report.alreadyImported += 1
                }
            } catch {
                failed(entry.path, error)
            }
            done += 1
            await progress?(ArchiveProgress(filesDone: done, filesTotal: entries.count))
        }

        for entry in entries {
            let name = (entry.path as NSString).lastPathComponent
            let bytes: [UInt8]
            do {
                bytes = try Self.read(entry, of: archive, limits: limits, maximumBytes: limits.maximumEntryBytes)
            } catch {
                await settle()
                failed(entry.path, error)
                done += 1
                await progress?(ArchiveProgress(filesDone: done, filesTotal: entries.count))
                continue
            }
            inflatedTotal += bytes.count
            guard inflatedTotal <= limits.maximumTotalBytes else {
                await settle()
                report.failures.append("\(entry.path): the archive inflates to more than \(limits.maximumTotalBytes >> 30) GiB; the rest was not imported")
                break
            }
            var entryOptions = options
            entryOptions.oneTrackPerFile = true
            if let activity = activities[StravaActivity.key(entry.path)] {
                entryOptions.trackName = activity.name
                entryOptions.trackDescription = activity.description
                if options.kind == nil { entryOptions.kind = activity.kind }
            }
            let library = self
            let prepareOptions = entryOptions
            let task = Task { try await library.prepare(Data(bytes), fileName: name, options: prepareOptions) }
            await settle()
            pending = (entry.path, entryOptions, task)
        }
        await settle()
        _ = await copying?.value
        if report.imported >= Self.bulkImportTrackCount {
            // The tracks are saved; statistics that cannot be brought up to date now will be by the database later.
            try? await store.refreshPlannerStatistics()
        }
        return report
    }

    /// Files of an archive past which the database's planner statistics are refreshed after the import.
    static let bulkImportTrackCount = 100

    /// What a store error says about an entry, without the path it names again.
    private static func reason(_ error: RideStoreError) -> String {
        if case .invalidFile(_, let reason) = error { return reason }
        return error.description
    }

    /// An entry's bytes, refused past `maximumBytes` or past `limits.maximumRatio` times its compressed size
    /// (checked as it inflates: the sizes an entry's header claims may lie).
    static func read(_ entry: Entry, of archive: Archive, limits: ArchiveLimits, maximumBytes: Int) throws -> [UInt8] {
        struct TooLarge: Error {}
        let compressed = max(Int(entry.compressedSize), 1)
        // Small entries may compress well (a run of the same bytes) without being a bomb.
        let cap = min(maximumBytes, max(1 << 20, compressed.multipliedReportingOverflow(by: limits.maximumRatio).partialValue))
        var bytes: [UInt8] = []
        do {
            _ = try archive.extract(entry, skipCRC32: false) { chunk in
                guard bytes.count + chunk.count <= cap else { throw TooLarge() }
                bytes.append(contentsOf: chunk)
            }
        } catch is TooLarge {
            throw RideStoreError.invalidFile(
                path: entry.path,
                reason: "inflates to more than \(cap >> 20 > 0 ? "\(cap >> 20) MiB" : "\(cap) bytes") (\(limits.maximumRatio) times its compressed size at most): not imported")
        } catch {
            throw RideStoreError.invalidFile(path: entry.path, reason: "cannot be read from the archive: \(error)")
        }
        return bytes
    }
}

/// One row of a Strava export's `activities.csv`: what its file should be called and what it was.
struct StravaActivity: Sendable, Hashable {
    var name: String?
    var kind: TrackKind?
    var description: String?

    /// The rows by their `Filename` (as `key` writes it); rows without a file (manual entries) are left out.
    static func index(csv: String) throws -> [String: StravaActivity] {
        let table: CSVTable
        do {
            table = try CSVTable(text: csv)
        } catch {
            throw RideStoreError.invalidFile(path: "activities.csv", reason: error.description)
        }
        guard let file = table.column("Filename") else { return [:] }
        let name = table.column("Activity Name")
        let type = table.column("Activity Type")
        let description = table.column("Activity Description")
        var result: [String: StravaActivity] = [:]
        for row in table.rows where file < row.count && !row[file].isEmpty {
            func value(_ column: Int?) -> String? {
                guard let column, column < row.count else { return nil }
                let text = row[column].trimmingCharacters(in: .whitespacesAndNewlines)
                return text.isEmpty ? nil : text
            }
            result[key(row[file])] = StravaActivity(
                name: value(name), kind: value(type).flatMap(Self.kind), description: value(description))
        }
        return result
    }

    /// A file's path as a key: without a leading `./` or `/`, in lower case.
    static func key(_ path: String) -> String {
        var path = path.lowercased()
        while path.hasPrefix("./") || path.hasPrefix("/") { path.removeFirst(path.hasPrefix("/") ? 1 : 2) }
        return path
    }

    /// Strava's activity types: rides (Ride, Virtual Ride, E-Bike Ride, Gravel Ride, Mountain Bike Ride …), runs
    /// (Run, Trail Run, Virtual Run), walks (Walk, Hike); others (Swim, Workout …) are left to the file.
    static func kind(_ type: String) -> TrackKind? {
        let type = type.lowercased()
        if type.contains("ride") || type.contains("cycl") || type.contains("bik") { return .ride }
        if type.contains("run") { return .run }
        if type.contains("walk") || type.contains("hike") { return .walk }
        return nil
    }
}
