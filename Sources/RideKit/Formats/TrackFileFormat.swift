import Foundation

/// The file formats bikeride reads and writes.
public enum TrackFileFormat: String, CaseIterable, Sendable {
    case gpx
    /// The brief's JSON track format.
    case gpx436
    case geojson
    /// Garmin's FIT: bike computers' and watches' activities, courses, saved locations.
    case fit
    /// Garmin's Training Center XML.
    case tcx

    /// The format a file name's extension says, if any (`.gpx`, `.fit`, `.tcx`, each also gzipped as `….gz`;
    /// `.gpx436`, `.geojson` or `.json`).
    public init?(fileName: String) {
        var name = fileName.lowercased()
        if name.hasSuffix(".gz") { name.removeLast(3) }
        switch (name as NSString).pathExtension {
        case "gpx": self = .gpx
        case "fit": self = .fit
        case "tcx": self = .tcx
        case "gpx436" where !fileName.lowercased().hasSuffix(".gz"): self = .gpx436
        case "geojson" where !fileName.lowercased().hasSuffix(".gz"), "json" where !fileName.lowercased().hasSuffix(".gz"): self = .geojson
        default: return nil
        }
    }

    /// Whether the format is a device's (FIT, TCX): read whole into a `DeviceActivity` (`DeviceFileReader`),
    /// with the device's own totals and laps.
    public var isDeviceFormat: Bool { self == .fit || self == .tcx }

    /// Guesses from the first bytes: a FIT header is FIT; `<` is TCX when its root is `TrainingCenterDatabase`,
    /// else GPX; gzip is what it holds (GPX when its start cannot be inflated); a JSON object with `segments` the
    /// JSON track format, other JSON GeoJSON.
    public init?(sniffing bytes: [UInt8]) {
        if FITReader.isFIT(bytes) {
            self = .fit
            return
        }
        if bytes.starts(with: [0x1F, 0x8B]) {
            let inner = DeviceFileReader.inflatedHead(bytes)
            if FITReader.isFIT(inner) {
                self = .fit
            } else if TCXReader.isTCX(inner) {
                self = .tcx
            } else {
                self = .gpx
            }
            return
        }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        // UTF-16: GPX (TCX never comes so).
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            self = .gpx
            return
        }
        guard let first = bytes[start...].first(where: { !DecimalParser.isSpace($0) }) else { return nil }
        switch first {
        case UInt8(ascii: "<"): self = TCXReader.isTCX(bytes) ? .tcx : .gpx
        case UInt8(ascii: "{"):
            let head = String(decoding: bytes.prefix(1 << 16), as: UTF8.self)
            self = head.contains("\"coords\"") || head.contains("\"feetClimbed\"") ? .gpx436 : .geojson
        default: return nil
        }
    }

    /// The usual file extension.
    public var fileExtension: String { rawValue }

    /// How many first bytes `init?(head:fileName:)` looks at (`init?(sniffing:)` reads no further).
    public static let headByteCount = 1 << 16

    /// The format of a file, the one rule every reader uses (import, upload, the command line): the content
    /// decides (`init?(sniffing:)` on its first `headByteCount` bytes), the name's extension only when the
    /// content says nothing (an empty or unreadable start). nil when neither tells.
    ///
    ///     TrackFileFormat(head: Array("<?xml …".utf8), fileName: "ride.json")    // .gpx
    ///     TrackFileFormat(head: [], fileName: "ride.gpx436")                      // .gpx436
    public init?(head: some Collection<UInt8>, fileName: String?) {
        if let format = TrackFileFormat(sniffing: Array(head.prefix(Self.headByteCount))) {
            self = format
        } else if let format = fileName.flatMap(TrackFileFormat.init(fileName:)) {
            self = format
        } else {
            return nil
        }
    }

    /// Whether a folder import picks up a file of this name: the names `init?(fileName:)` knows, `.gpx.gz`
    /// included, but not `.json`, which names all sorts of files that are not tracks.
    ///
    ///     TrackFileFormat.isTrackFileName("ride.GPX.gz")     // true
    ///     TrackFileFormat.isTrackFileName("package.json")    // false
    public static func isTrackFileName(_ name: String) -> Bool {
        TrackFileFormat(fileName: name) != nil && !name.lowercased().hasSuffix(".json")
    }
}

extension TrackFileFormat {
    /// The name a file gives its track, the one rule for every format: the first track's own name, else the
    /// file's (its metadata), else the first route's; a blank name counts as none. nil when none has one (an
    /// import then names the track after the file).
    ///
    ///     TrackFileFormat.trackName(firstTrack: " ", metadata: "Alps 2024", firstRoute: "Stage 1")    // "Alps 2024"
    public static func trackName(firstTrack: String?, metadata: String?, firstRoute: String?) -> String? {
        [firstTrack, metadata, firstRoute].lazy.compactMap { $0 }.first { !$0.allSatisfy(\.isWhitespace) }
    }
}
