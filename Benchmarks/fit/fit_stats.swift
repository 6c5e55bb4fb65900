// fit_stats FILE.fit: what `bikeride stats` does with a FIT file (Bikeride+Stats.swift: DeviceFileReader, then the
// document replayed into GPXSummaryHandler), compiled with RideKit alone by `swiftc -O` (Benchmarks/fit/build.sh),
// for measuring the reader in release on a machine where the whole package's release build does not fit the time.
// Prints the point count, the distance and the device's distance.
import Foundation

@main
struct FITStats {
    static func main() throws {
        let path = CommandLine.arguments[1]
        let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
        let activity = try DeviceFileReader.read(bytes: bytes, format: .fit, lenient: false)
        var handler = GPXSummaryHandler(activity: activity.kind?.activity ?? .ride)
        activity.document.replay(into: &handler)
        let summary = handler.summary(report: GPXReadReport())
        print("{\"points\": \(summary.stats.pointCount), \"distanceMeters\": \(summary.stats.distanceMeters), \"device\": {\"distanceMeters\": \(activity.totals?.distanceMeters ?? 0)}}")
    }
}
