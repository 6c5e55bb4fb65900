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

    /// The children of a point that hold only text.
    var isSimplePointField: Bool {
        switch self {
        case .ele, .time, .magvar, .geoidheight, .name, .cmt, .desc, .src, .sym, .type, .fix, .sat, .hdop, .vdop, .pdop,
            .ageofdgpsdata, .dgpsid, .speed, .course:
            return true
        default: return false
        }
    }

    /// The TrackPointExtension / PowerExtension values read as typed fields.
    var isTypedExtensionValue: Bool {
        switch self {
        case .hr, .cad, .atemp, .wtemp, .depth, .speed, .course, .powerInWatts: return true
        default: return false
        }
    }

    /// The name as written in files, for messages about typed extension values.
    var spelling: StaticString {
        switch self {
        case .hr: return "hr"
        case .cad: return "cad"
        case .atemp: return "atemp"
        case .wtemp: return "wtemp"
        case .depth: return "depth"
        case .speed: return "speed"
        case .course: return "course"
        case .powerInWatts: return "PowerInWatts"
        case .power: return "power"
        default: return "extension"
        }
    }

    /// The name for a local name's bytes. Names of up to eight bytes are packed into an integer and matched
    /// by one switch: this runs for every element of every file.
    static func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> GPXName {
        let count = bytes.count
        if count <= 8 {
            var key: UInt64 = 0
            for index in 0..<count { key |= UInt64(bytes[index]) << (8 * UInt64(index)) }
            return lookup(packed: key)
        }
        switch count {
        case 10 where sameBytes(bytes.baseAddress!, "extensions"): return .extensions
        case 19 where sameBytes(bytes.baseAddress!, "TrackPointExtension"): return .trackPointExtension
        case 9 where sameBytes(bytes.baseAddress!, "copyright"): return .copyright
        case 11 where sameBytes(bytes.baseAddress!, "geoidheight"): return .geoidheight
        case 13 where sameBytes(bytes.baseAddress!, "ageofdgpsdata"): return .ageofdgpsdata
        case 14 where sameBytes(bytes.baseAddress!, "PowerExtension"): return .powerExtension
        case 12 where sameBytes(bytes.baseAddress!, "PowerInWatts"): return .powerInWatts
        default: return .unknown
        }
    }

    // Each name's bytes, little-endian (at most 8; longer names are compared whole above).
    private static func lookup(packed key: UInt64) -> GPXName {
        switch key {
        case 0x787067: return .gpx
        case 0x617461646174656D: return .metadata
        case 0x747077: return .wpt
        case 0x657472: return .rte
        case 0x7470657472: return .rtept
        case 0x6B7274: return .trk
        case 0x6765736B7274: return .trkseg
        case 0x74706B7274: return .trkpt
        case 0x656D616E: return .name
        case 0x63736564: return .desc
        case 0x746D63: return .cmt
        case 0x637273: return .src
        case 0x6B6E696C: return .link
        case 0x74786574: return .text
        case 0x65707974: return .type
        case 0x726F68747561: return .author
        case 0x6C69616D65: return .email
        case 0x6C7275: return .url
        case 0x656D616E6C7275: return .urlname
        case 0x656D6974: return .time
        case 0x7364726F7779656B: return .keywords
        case 0x73646E756F62: return .bounds
        case 0x72616579: return .year
        case 0x65736E6563696C: return .license
        case 0x7265626D756E: return .number
        case 0x656C65: return .ele
        case 0x72617667616D: return .magvar
        case 0x6D7973: return .sym
        case 0x786966: return .fix
        case 0x746173: return .sat
        case 0x706F6468: return .hdop
        case 0x706F6476: return .vdop
        case 0x706F6470: return .pdop
        case 0x646973706764: return .dgpsid
        case 0x6465657073: return .speed
        case 0x657372756F63: return .course
        case 0x7268: return .hr
        case 0x646163: return .cad
        case 0x706D657461: return .atemp
        case 0x706D657477: return .wtemp
        case 0x6874706564: return .depth
        case 0x7265776F70: return .power
        default: return .unknown
        }
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
