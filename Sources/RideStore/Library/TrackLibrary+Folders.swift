import Foundation
import RideKit

// Importing many files at once: folders walked, each file in its own transaction, progress reported.

extension TrackLibrary {
    /// Imports files and folders (walked recursively for track files, `TrackFileFormat.isTrackFileName`), each file in
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
            } catch RideStoreError.invalidFile(_, let reason), RideStoreError.io(_, let reason) {
                // The path is the failure's own: the reason alone, not "path: path: 3:1: …".
                report.failures.append((file.path, reason))
                state.failures += 1
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
}
