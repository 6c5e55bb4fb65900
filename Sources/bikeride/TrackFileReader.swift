import Foundation
import RideKit

/// A problem with one input file, said the way compilers say it: `FILE:LINE:COLUMN: message`.
struct FileError: Error, CustomStringConvertible {
    var file: String
    var line: Int = 0
    var column: Int = 0
    var message: String

    var description: String {
        line > 0 ? "\(file):\(line):\(column): \(message)" : "\(file): \(message)"
    }

    init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    init(file: String, _ error: GPXError) {
        self.file = file
        line = error.line
        column = error.column
        message = error.message
    }
}

/// Reads track files given on the command line; `-` is standard input.
enum TrackFileReader {
    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// The whole document, in whichever format the file is.
    static func document(at path: String, format: TrackFileFormat? = nil, lenient: Bool) throws(FileError) -> (GPXDocument, GPXReadReport) {
        let name = displayName(path)
        let bytes = try readAll(path)
        guard let format = format ?? TrackFileFormat(head: bytes, fileName: path == "-" ? nil : path) else {
            throw FileError(file: name, message: "unknown format: name the file .gpx, .fit, .tcx, .gpx436 or .geojson, or pass --from")
        }
        if format.isDeviceFormat {
            return (try deviceActivity(bytes, name: name, format: format, lenient: lenient).document, GPXReadReport())
        }
        do {
            switch format {
            case .gpx:
                do {
                    return try GPXReader.readWithReport(bytes: bytes, options: GPXReadOptions(lenient: lenient))
                } catch {
                    throw FileError(file: name, error)
                }
            case .gpx436:
                return (try JSONTrackFormat.decode(Data(bytes)), GPXReadReport())
            case .geojson:
                return (try GeoJSONReader.read(Data(bytes)), GPXReadReport())
            case .fit, .tcx:
                return (try deviceActivity(bytes, name: name, format: format, lenient: lenient).document, GPXReadReport())
            }
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(file: name, message: "\(error)")
        }
    }

    /// A device's file (FIT, TCX, or either gzipped): its points, and the device's own totals and laps. What a
    /// lenient read left out is said on standard error.
    static func deviceActivity(at path: String, format: TrackFileFormat, lenient: Bool) throws(FileError) -> DeviceActivity {
        try deviceActivity(try readAll(path), name: displayName(path), format: format, lenient: lenient)
    }

    static func deviceActivity(_ bytes: [UInt8], name: String, format: TrackFileFormat, lenient: Bool) throws(FileError) -> DeviceActivity {
        do {
            let activity = try DeviceFileReader.read(bytes: bytes, format: format, lenient: lenient)
            for warning in activity.warnings { printError("\(name): lenient reading: \(warning)") }
            return activity
        } catch {
            throw FileError(file: name, message: error.description)
        }
    }

    /// Streams a GPX file into `handler` (memory stays flat, whatever the file's size).
    static func stream<Handler: GPXContentHandler>(_ path: String, into handler: inout Handler, lenient: Bool) throws(FileError) -> GPXReadReport {
        let options = GPXReadOptions(lenient: lenient)
        if path != "-" { try checkReadable(path) }
        do {
            if path == "-" {
                return try GPXReader.parse(fileHandle: FileHandle.standardInput, into: &handler, options: options)
            }
            return try GPXReader.parse(contentsOf: URL(filePath: path), into: &handler, options: options)
        } catch {
            throw FileError(file: displayName(path), error)
        }
    }

    static func readAll(_ path: String) throws(FileError) -> [UInt8] {
        do {
            if path == "-" { return [UInt8](try FileHandle.standardInput.readToEnd() ?? Data()) }
            try checkReadable(path)
            return [UInt8](try Data(contentsOf: URL(filePath: path)))
        } catch let error as FileError {
            throw error
        } catch {
            throw FileError(file: displayName(path), message: "cannot read: \(error.localizedDescription)")
        }
    }

    /// Clear words for the usual mistakes, before Foundation's.
    static func checkReadable(_ path: String) throws(FileError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw FileError(file: path, message: "no such file")
        }
        if isDirectory.boolValue { throw FileError(file: path, message: "is a folder, not a file") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw FileError(file: path, message: "not readable (permission denied)") }
    }
}

/// Writes to standard error.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
