import Foundation

/// The element names the reader knows, GPX 1.0 and 1.1 and the extensions it reads as typed fields.
enum GPXName: UInt8 {
    case unknown
    // GPX
    case gpx, metadata, wpt, rte, rtept, trk, trkseg, trkpt, extensions
    case name, desc, cmt, src, link, text, type, author, email, url, urlname, time, keywords, bounds
    case copyright, year, license, number
    case ele, magvar, geoidheight, sym, fix, sat, hdop, vdop, pdop, ageofdgpsdata, dgpsid, speed, course
    // Garmin TrackPointExtension and PowerExtension, and the bare names apps write
    case trackPointExtension, hr, cad, atemp, wtemp, depth, powerExtension, powerInWatts, power

    private static let spellings: [(String, GPXName)] = [
        ("gpx", .gpx), ("metadata", .metadata), ("wpt", .wpt), ("rte", .rte), ("rtept", .rtept), ("trk", .trk),
        ("trkseg", .trkseg), ("trkpt", .trkpt), ("extensions", .extensions), ("name", .name), ("desc", .desc),
        ("cmt", .cmt), ("src", .src), ("link", .link), ("text", .text), ("type", .type), ("author", .author),
        ("email", .email), ("url", .url), ("urlname", .urlname), ("time", .time), ("keywords", .keywords),
        ("bounds", .bounds), ("copyright", .copyright), ("year", .year), ("license", .license),
        ("number", .number), ("ele", .ele), ("magvar", .magvar), ("geoidheight", .geoidheight), ("sym", .sym),
        ("fix", .fix), ("sat", .sat), ("hdop", .hdop), ("vdop", .vdop), ("pdop", .pdop),
        ("ageofdgpsdata", .ageofdgpsdata), ("dgpsid", .dgpsid), ("speed", .speed), ("course", .course),
        ("TrackPointExtension", .trackPointExtension), ("hr", .hr), ("cad", .cad), ("atemp", .atemp),
        ("wtemp", .wtemp), ("depth", .depth), ("PowerExtension", .powerExtension),
        ("PowerInWatts", .powerInWatts), ("power", .power),
    ]

    /// Spellings grouped by length, so a lookup compares a handful of candidates.
    private static let byLength: [[([UInt8], GPXName)]] = {
        var table = [[([UInt8], GPXName)]](repeating: [], count: 32)
        for (spelling, name) in spellings { table[spelling.utf8.count].append((Array(spelling.utf8), name)) }
        return table
    }()

    static func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> GPXName {
        let count = bytes.count
        guard count < 32 else { return .unknown }
        for (spelling, name) in byLength[count] where spelling.withUnsafeBufferPointer({
            memcmp($0.baseAddress!, bytes.baseAddress!, count) == 0
        }) {
            return name
        }
        return .unknown
    }
}

/// What a namespace means to the reader.
enum NamespaceKind {
    /// GPX 1.0, GPX 1.1, or no namespace (files without `xmlns`).
    case gpx
    /// Garmin TrackPointExtension v1 or v2.
    case trackPointExtension
    /// Garmin PowerExtension v1.
    case power
    /// bikeride's own, for values GPX 1.1 has no place for.
    case bikeride
    case other

    static let gpx10 = "http://www.topografix.com/GPX/1/0"
    static let gpx11 = "http://www.topografix.com/GPX/1/1"
    static let trackPointExtensionV1 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v1"
    static let trackPointExtensionV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"
    static let powerExtensionV1 = "http://www.garmin.com/xmlschemas/PowerExtension/v1"
    static let bikerideNamespace = "https://bikeride.dev/xmlns/gpx/1"

    init(uri: String) {
        switch uri {
        case "", NamespaceKind.gpx10, NamespaceKind.gpx11: self = .gpx
        case NamespaceKind.trackPointExtensionV1, NamespaceKind.trackPointExtensionV2: self = .trackPointExtension
        case NamespaceKind.powerExtensionV1: self = .power
        case NamespaceKind.bikerideNamespace: self = .bikeride
        default: self = .other
        }
    }
}
