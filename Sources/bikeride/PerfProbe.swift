import Foundation
import RideKit

struct CountingHandler: GPXContentHandler {
    var points = 0
    var latSum = 0.0
    var keepsUnknownExtensions: Bool { false }
    mutating func beginDocument(version: String, creator: String?) {}
    mutating func waypoint(_ waypoint: Waypoint) {}
    mutating func route(_ route: Route) {}
    mutating func beginTrack() {}
    mutating func beginSegment() {}
    mutating func trackPoint(_ point: TrackPoint) { points += 1; latSum += point.latitude }
    mutating func endSegment(extensions: [XMLElementNode]) {}
    mutating func endTrack(_ track: Track) {}
    mutating func endDocument(metadata: GPXMetadata, extensions: [XMLElementNode]) {}
}

func perfProbe(_ path: String) throws {
    var handler = CountingHandler()
    let start = Date()
    _ = try GPXReader.parse(contentsOf: URL(filePath: path), into: &handler)
    print(handler.points, handler.latSum, Date().timeIntervalSince(start))
}
