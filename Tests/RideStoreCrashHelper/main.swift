// A helper process for the store tests: it writes into a database until the test kills it (SIGKILL), so
// that the test can check that a killed import leaves the database consistent and without a half-saved track.
//
//   ridestore-crash-helper import DB FILE         imports FILE again and again, printing "imported N" after each
//   ridestore-crash-helper blocks DB BLOCKS        saves one track of BLOCKS × 1,024 points in one transaction
import Foundation
import RideKit
import RideStore

/// Writes a line at once (no buffering), so the test sees it before a kill.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = CommandLine.arguments
guard arguments.count == 4, let mode = arguments.dropFirst().first else {
    FileHandle.standardError.write(Data("usage: ridestore-crash-helper import|blocks DB FILE|BLOCKS\n".utf8))
    exit(2)
}
do {
    let store = try SQLiteRideStore(path: arguments[2])
    let user = try await store.localUser()
    switch mode {
    case "import":
        let library = TrackLibrary(store: store, userID: user.id)
        say("started")
        var count = 0
        while true {
            _ = try await library.importFile(at: URL(filePath: arguments[3]), options: ImportOptions(allowsDuplicates: true))
            count += 1
            say("imported \(count)")
        }
    case "blocks":
        guard let blocks = Int(arguments[3]) else { exit(2) }
        // One real block, stored many times: a big transaction without the cost of making its points.
        let points = (0..<PackedPoints.blockCapacity).map { index in
            TrackPoint(latitude: 48 + Double(index) * 1e-5, longitude: 11 + Double(index) * 1e-5, elevation: 500)
        }
        let block = PointBlock(points: points[...])
        let packed = PackedPoints(blocks: Array(repeating: block, count: blocks))
        let content = TrackContent(tracks: [PackedTrack(header: Track(name: "big"), segments: [PackedSegment(points: packed)])])
        say("started")
        _ = try await store.saveImport(
            TrackImport(
                source: ImportSource(fileName: "big.gpx", format: .gpx, contentHash: "helper-\(blocks)", byteCount: 0),
                tracks: [NewTrack(name: "big", kind: .ride, content: content, stats: TrackStats(), preview: [])],
                allowsDuplicate: true),
            userID: user.id)
        say("imported 1")
    default:
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("ridestore-crash-helper: \(error)\n".utf8))
    exit(1)
}
