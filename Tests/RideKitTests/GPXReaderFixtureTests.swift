import CExpat
import Foundation
import Testing

@testable import RideKit
import TestSupport

/// Every well-formed fixture, read from its file, has the tracks, segments, routes and points that libexpat finds
/// in it: the shape of the document from a second parser, not only "it did not throw".
@Suite struct GPXReaderFixtureTests {
    /// The GPX structure of a document as libexpat sees it: elements named wpt, rte/rtept, trk/trkseg/trkpt in
    /// the GPX 1.0 or 1.1 namespace (or none), each directly inside the one GPX puts it in.
    struct Shape: Equatable, CustomStringConvertible {
        var waypoints = 0
        var routePoints: [Int] = []
        /// Points per segment, per track.
        var trackPoints: [[Int]] = []

        var description: String { "\(waypoints) wpt, rte \(routePoints), trk \(trackPoints)" }
    }

    private final class Context {
        var shape = Shape()
        /// Local names of the open elements, "" for an element outside the GPX namespaces.
        var path: [String] = []
    }

    static func expatShape(_ bytes: [UInt8]) -> Shape? {
        guard let parser = XML_ParserCreateNS(nil, 0x01) else { return nil }
        defer { XML_ParserFree(parser) }
        let context = Context()
        let unmanaged = Unmanaged.passRetained(context)
        defer { unmanaged.release() }
        XML_SetUserData(parser, unmanaged.toOpaque())
        XML_SetElementHandler(
            parser,
            { userData, name, attributes in
                let context = Unmanaged<Context>.fromOpaque(userData!).takeUnretainedValue()
                let parts = String(cString: name!).split(separator: "\u{1}", omittingEmptySubsequences: false)
                let (uri, local) = parts.count == 2 ? (String(parts[0]), String(parts[1])) : ("", String(parts[0]))
                let name = ExpatReference.gpxNamespaces.contains(uri) ? local : ""
                let parent = context.path.last
                let depth = context.path.count
                context.path.append(name)
                switch (depth, parent, name) {
                case (1, "gpx", "wpt"): context.shape.waypoints += 1
                case (1, "gpx", "rte"): context.shape.routePoints.append(0)
                case (2, "rte", "rtept"): context.shape.routePoints[context.shape.routePoints.count - 1] += 1
                case (1, "gpx", "trk"): context.shape.trackPoints.append([])
                case (2, "trk", "trkseg"): context.shape.trackPoints[context.shape.trackPoints.count - 1].append(0)
                case (3, "trkseg", "trkpt"):
                    var latitude: String?
                    var index = 0
                    while let key = attributes?[index] {
                        if String(cString: key) == "lat" { latitude = String(cString: attributes![index + 1]!) }
                        index += 2
                    }
                    let track = context.shape.trackPoints.count - 1
                    let segment = context.shape.trackPoints[track].count - 1
                    // Old OpenTracks exports mark a pause with points at latitude 100 and 200 (GPXParser documents
                    // it): they end a segment that has points, and are no points themselves.
                    if let value = latitude.flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }), value == 100 || value == 200 {
                        if context.shape.trackPoints[track][segment] > 0 { context.shape.trackPoints[track].append(0) }
                    } else {
                        context.shape.trackPoints[track][segment] += 1
                    }
                default: break
                }
            },
            { userData, _ in
                let context = Unmanaged<Context>.fromOpaque(userData!).takeUnretainedValue()
                context.path.removeLast()
            })
        let status = bytes.withUnsafeBufferPointer { buffer in
            XML_Parse(parser, UnsafeRawPointer(buffer.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) }, Int32(buffer.count), 1)
        }
        return status == XML_STATUS_OK ? context.shape : nil
    }

    @Test(arguments: Fixtures.wellFormedGPX)
    func aFixtureReadFromItsFileHasTheShapeExpatFinds(_ path: String) throws {
        let expected = try #require(Self.expatShape(try Fixtures.bytes(path)), "libexpat refuses \(path)")
        let document = try GPXReader.read(contentsOf: Fixtures.url(path))
        let shape = Shape(
            waypoints: document.waypoints.count, routePoints: document.routes.map(\.points.count),
            trackPoints: document.tracks.map { $0.segments.map(\.points.count) })
        #expect(shape == expected)
    }

    @Test func theFixturesAreThere() {
        // A missing fixtures folder would make the test above pass with no arguments.
        #expect(Fixtures.wellFormedGPX.count >= 20)
    }
}
