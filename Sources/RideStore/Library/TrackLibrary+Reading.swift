import Foundation
import RideKit

// Reading a file for import: its format, then its content into an `ImportContentHandler`, GPX streamed.

extension TrackLibrary {
    /// A file's format by `TrackFileFormat(head:fileName:)`, from its first bytes and its name.
    static func format(of url: URL) throws -> TrackFileFormat {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            throw RideStoreError.io(path: url.path, reason: "cannot open")
        }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: TrackFileFormat.headByteCount)) ?? Data()
        guard let format = TrackFileFormat(head: head, fileName: url.lastPathComponent) else {
            throw RideStoreError.invalidFile(path: url.path, reason: "not GPX, FIT, TCX, .gpx436 or GeoJSON")
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
        var streaming = ImportContentHandler(
            oneTrack: options.oneTrackPerFile, activity: options.kind?.activity ?? .ride, maximumTrackPoints: options.maximumTrackPoints)
        do throws(GPXError) {
            let report = try GPXReader.parse(contentsOf: url, into: &streaming, options: options.readOptions)
            streaming.readReport = report
        } catch {
            streaming.discard()
            throw RideStoreError.invalidFile(path: path, reason: Self.located(error))
        }
        return streaming
    }

    /// Reads a whole file in memory (`.gpx436`, GeoJSON, bytes handed over).
    static func read(data: Data, format: TrackFileFormat, path: String, options: ImportOptions) throws -> ImportContentHandler {
        var handler = ImportContentHandler(
            oneTrack: options.oneTrackPerFile, activity: options.kind?.activity ?? .ride, maximumTrackPoints: options.maximumTrackPoints)
        do {
            switch format {
            case .gpx:
                let report = try GPXReader.parse(bytes: [UInt8](data), into: &handler, options: options.readOptions)
                handler.readReport = report
            case .gpx436:
                try JSONTrackFormat.decode(data).replay(into: &handler)
            case .geojson:
                try GeoJSONReader.read(data).replay(into: &handler)
            case .fit, .tcx:
                let activity = try DeviceFileReader.read(
                    bytes: [UInt8](data), format: format, lenient: options.readOptions.lenient,
                    maximumInflatedBytes: min(options.readOptions.maximumInflatedBytes, DeviceFileReader.defaultMaximumInflatedBytes))
                activity.document.replay(into: &handler)
                handler.device = activity
                handler.readReport = GPXReadReport(deviceWarnings: activity.warnings)
            }
        } catch let error as GPXError {
            handler.discard()
            throw RideStoreError.invalidFile(path: path, reason: located(error))
        } catch let error as TrackFormatError {
            handler.discard()
            throw RideStoreError.invalidFile(path: path, reason: error.description)
        } catch let error as DeviceFileReader.Failure {
            handler.discard()
            throw RideStoreError.invalidFile(path: path, reason: error.description)
        }
        return handler
    }

    /// `LINE:COLUMN: message`, so that a report reads `FILE:LINE:COLUMN: message` as the command line prints.
    static func located(_ error: GPXError) -> String {
        error.line > 0 ? "\(error.line):\(error.column): \(error.message)" : error.message
    }
}
