// xmlparser-stats FILE.gpx
//
// Baseline for the GPX benchmark: reads the file with Foundation's XMLParser(contentsOf:) (streaming
// from the file, SAX-style) and computes what `bikeride stats` and gpxpy compute for the comparison:
//   - the 2D length over all trkpt of each trkseg (haversine, mean Earth radius 6371008.8 m),
//   - uphill / downhill from ele, each segment's elevations smoothed with a 3-point weighted average
//     (0.3, 0.4, 0.3), as gpxpy's get_uphill_downhill does, then positive / negative differences summed.
// Prints one JSON object. Exit code 1 if the parse fails.
//
// Never use XMLParser on untrusted input (DESIGN 4.1): this program exists only to be measured against.

import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

final class StatsDelegate: NSObject, XMLParserDelegate {
    static let earthRadius = 6_371_008.8

    var points = 0
    var segments = 0
    var distance = 0.0
    var uphill = 0.0
    var downhill = 0.0

    // Current segment state.
    private var inTrkpt = false
    private var inEle = false
    private var eleText = ""
    private var pointLat = 0.0
    private var pointLon = 0.0
    private var pointEle: Double?
    private var havePrevious = false
    private var prevLat = 0.0  // radians
    private var prevLon = 0.0
    private var prevCosLat = 0.0
    // Elevation smoothing window: the last two raw elevations and the last smoothed one.
    private var eleCount = 0
    private var e0 = 0.0, e1 = 0.0
    private var lastSmoothed: Double?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        switch elementName {
        case "trkpt":
            inTrkpt = true
            pointLat = attributeDict["lat"].flatMap(Double.init) ?? .nan
            pointLon = attributeDict["lon"].flatMap(Double.init) ?? .nan
            pointEle = nil
        case "ele" where inTrkpt:
            inEle = true
            eleText = ""
        case "trkseg":
            startSegment()
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if inEle { eleText += string }
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?
    ) {
        switch elementName {
        case "ele" where inEle:
            inEle = false
            pointEle = Double(eleText.trimmingCharacters(in: .whitespacesAndNewlines))
        case "trkpt":
            inTrkpt = false
            addPoint()
        case "trkseg":
            finishSegment()
        default:
            break
        }
    }

    private func startSegment() {
        segments += 1
        havePrevious = false
        eleCount = 0
        lastSmoothed = nil
    }

    private func addPoint() {
        points += 1
        let lat = pointLat * .pi / 180, lon = pointLon * .pi / 180
        let cosLat = cos(lat)
        if havePrevious {
            let sinDLat = sin((lat - prevLat) / 2), sinDLon = sin((lon - prevLon) / 2)
            let a = sinDLat * sinDLat + prevCosLat * cosLat * sinDLon * sinDLon
            distance += 2 * Self.earthRadius * asin(min(1, a.squareRoot()))
        }
        havePrevious = true
        prevLat = lat
        prevLon = lon
        prevCosLat = cosLat
        if let e = pointEle { addElevation(e) }
    }

    // Streaming version of the 3-point smoothing: when elevation n+1 arrives, elevation n can be
    // smoothed; the first and the last elevation of a segment are used as they are.
    private func addElevation(_ e: Double) {
        switch eleCount {
        case 0:
            accept(e)  // the first one, unsmoothed
        case 1:
            break
        default:
            accept(e0 * 0.3 + e1 * 0.4 + e * 0.3)
        }
        e0 = e1
        e1 = e
        eleCount += 1
    }

    private func finishSegment() {
        if eleCount >= 2 { accept(e1) }  // the last one, unsmoothed
        eleCount = 0
    }

    private func accept(_ smoothed: Double) {
        if let previous = lastSmoothed {
            let d = smoothed - previous
            if d > 0 { uphill += d } else { downhill -= d }
        }
        lastSmoothed = smoothed
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: xmlparser-stats FILE.gpx\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: arguments[1])
guard let parser = XMLParser(contentsOf: url) else {
    FileHandle.standardError.write(Data("xmlparser-stats: cannot open \(arguments[1])\n".utf8))
    exit(1)
}
let delegate = StatsDelegate()
parser.delegate = delegate
guard parser.parse() else {
    let message = parser.parserError.map { "\($0)" } ?? "unknown error"
    FileHandle.standardError.write(
        Data("xmlparser-stats: \(arguments[1]):\(parser.lineNumber):\(parser.columnNumber): \(message)\n".utf8))
    exit(1)
}
let fileJSON = arguments[1].replacingOccurrences(of: "\\", with: "\\\\")
    .replacingOccurrences(of: "\"", with: "\\\"")
print(
    "{\"file\":\"\(fileJSON)\",\"segments\":\(delegate.segments),\"points\":\(delegate.points),"
        + "\"distanceMeters\":\(delegate.distance),\"uphillMeters\":\(delegate.uphill),"
        + "\"downhillMeters\":\(delegate.downhill)}")
