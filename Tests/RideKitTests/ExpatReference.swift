import CExpat
import Foundation

/// libexpat, namespace-aware, as the reference the GPX tokenizer is checked against.
///
/// Configured with bikeride's one deliberate policy: a document with a DOCTYPE is refused (GPX never needs
/// one). Besides accept/reject it collects the `lat`/`lon` of every GPX point, so that the two readers can be
/// compared on what they read, not only on whether they read.
enum ExpatReference {
    struct Result {
        var accepted: Bool
        var message: String
        /// (element local name, lat, lon) of every wpt/rtept/trkpt, as written.
        var points: [(String, String?, String?)]
    }

    private final class Context {
        var sawDoctype = false
        var points: [(String, String?, String?)] = []
        var parser: XML_Parser?
    }

    static let gpxNamespaces: Set<String> = ["", "http://www.topografix.com/GPX/1/0", "http://www.topografix.com/GPX/1/1"]

    static func parse(_ bytes: [UInt8]) -> Result {
        guard let parser = XML_ParserCreateNS(nil, 0x01) else { return Result(accepted: false, message: "no parser", points: []) }
        defer { XML_ParserFree(parser) }
        let context = Context()
        context.parser = parser
        let unmanaged = Unmanaged.passRetained(context)
        defer { unmanaged.release() }
        XML_SetUserData(parser, unmanaged.toOpaque())
        XML_SetStartDoctypeDeclHandler(parser) { userData, _, _, _, _ in
            let context = Unmanaged<Context>.fromOpaque(userData!).takeUnretainedValue()
            context.sawDoctype = true
            XML_StopParser(context.parser, XML_FALSE)
        }
        XML_SetStartElementHandler(parser) { userData, name, attributes in
            let context = Unmanaged<Context>.fromOpaque(userData!).takeUnretainedValue()
            let full = String(cString: name!)
            let parts = full.split(separator: "\u{1}", omittingEmptySubsequences: false)
            let (uri, local) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : ("", full)
            guard ExpatReference.gpxNamespaces.contains(uri), ["wpt", "rtept", "trkpt"].contains(local) else { return }
            var lat: String?
            var lon: String?
            var index = 0
            while let key = attributes?[index] {
                let value = String(cString: attributes![index + 1]!)
                switch String(cString: key) {
                case "lat": lat = value
                case "lon": lon = value
                default: break
                }
                index += 2
            }
            context.points.append((local, lat, lon))
        }
        let status = bytes.withUnsafeBufferPointer { buffer in
            XML_Parse(parser, UnsafeRawPointer(buffer.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) }, Int32(buffer.count), 1)
        }
        if context.sawDoctype { return Result(accepted: false, message: "DOCTYPE", points: []) }
        if status != XML_STATUS_OK {
            let message = String(cString: XML_ErrorString(XML_GetErrorCode(parser)))
            return Result(accepted: false, message: message, points: context.points)
        }
        return Result(accepted: true, message: "", points: context.points)
    }
}
