import Foundation

/// Reads a device's file (FIT or TCX, either also gzipped as Strava exports them) into a `DeviceActivity`: the
/// one entry every door uses (`stats`, `convert`, import, uploads, the documents folder).
///
///     let activity = try DeviceFileReader.read(bytes: Array(data), format: .fit)
public enum DeviceFileReader {
    /// 512 MiB: a gzipped device file never inflates to more (a 100,000-record FIT is about 3 MB); a few MiB of
    /// gzip can hold gigabytes of the same byte.
    public static let defaultMaximumInflatedBytes = 512 << 20

    /// Why a device file could not be read: the reader's own error (`FITError` with its byte, `GPXError` with
    /// its line), or the gzip around it.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    public static func read(
        bytes: [UInt8], format: TrackFileFormat, lenient: Bool = false, maximumInflatedBytes: Int = defaultMaximumInflatedBytes
    ) throws(Failure) -> DeviceActivity {
        var bytes = bytes
        if bytes.starts(with: [0x1F, 0x8B]) {
            do {
                bytes = try inflate(bytes, maximumInflatedBytes: maximumInflatedBytes)
            } catch {
                throw Failure(description: "gzip: \(error.message)")
            }
        }
        do {
            switch format {
            case .fit: return try FITReader.read(bytes, lenient: lenient)
            case .tcx: return try TCXReader.read(bytes: bytes, lenient: lenient)
            case .gpx, .gpx436, .geojson: throw Failure(description: "\(format.rawValue) is not a device's format")
            }
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure(description: "\(error)")
        }
    }

    /// The whole of a gzip stream, inflated, or an error past `maximumInflatedBytes`.
    static func inflate(_ bytes: [UInt8], maximumInflatedBytes: Int) throws(GPXError) -> [UInt8] {
        let source = try GzipSource(MemorySource(bytes), maximumInflatedBytes: maximumInflatedBytes)
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do {
                count = try chunk.withUnsafeMutableBytes { try source.read(into: $0) }
            } catch let error as GPXError {
                throw error
            } catch {
                throw GPXError(.compressed("\(error)"), line: 0, column: 0)
            }
            if count == 0 { return out }
            out.append(contentsOf: chunk[..<count])
        }
    }

    /// The first bytes a gzip stream inflates to (up to 4 KiB), to tell what it holds; empty when its start is
    /// damaged.
    static func inflatedHead(_ bytes: [UInt8]) -> [UInt8] {
        guard let source = try? GzipSource(MemorySource(bytes), maximumInflatedBytes: 1 << 16) else { return [] }
        var head = [UInt8](repeating: 0, count: 4096)
        var filled = 0
        while filled < head.count {
            let count = (try? head.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...])) }) ?? 0
            if count == 0 { break }
            filled += count
        }
        return Array(head[..<filled])
    }
}
