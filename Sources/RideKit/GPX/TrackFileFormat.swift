import Foundation

/// The file formats bikeride reads and writes.
public enum TrackFileFormat: String, CaseIterable, Sendable {
    case gpx
    /// The brief's JSON track format.
    case gpx436
    case geojson

    /// The format a file name's extension says, if any (`.gpx`, `.gpx.gz`, `.gpx436`, `.geojson` or `.json`).
    public init?(fileName: String) {
        if fileName.lowercased().hasSuffix(".gpx.gz") {
            self = .gpx
            return
        }
        switch (fileName as NSString).pathExtension.lowercased() {
        case "gpx": self = .gpx
        case "gpx436": self = .gpx436
        case "geojson", "json": self = .geojson
        default: return nil
        }
    }

    /// Guesses from the first bytes: `<` (or gzip) is GPX, a JSON object with `segments` the JSON track format, other JSON GeoJSON.
    public init?(sniffing bytes: [UInt8]) {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        // UTF-16, or gzip: GPX is the format bikeride reads compressed.
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x1F, 0x8B]) {
            self = .gpx
            return
        }
        guard let first = bytes[start...].first(where: { !DecimalParser.isSpace($0) }) else { return nil }
        switch first {
        case UInt8(ascii: "<"): self = .gpx
        case UInt8(ascii: "{"):
            let head = String(decoding: bytes.prefix(1 << 16), as: UTF8.self)
            self = head.contains("\"coords\"") || head.contains("\"feetClimbed\"") ? .gpx436 : .geojson
        default: return nil
        }
    }

    /// The usual file extension.
    public var fileExtension: String { rawValue }
}
