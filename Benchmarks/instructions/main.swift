// What `bikeride stats` does to a GPX file, with nothing else linked: valgrind cannot run the full `bikeride`
// binary (it dies in libdispatch's signal thread), but runs this. See run-instructions.sh.
import Foundation
import RideKit

var handler = GPXSummaryHandler(activity: .ride)
let report = try GPXReader.parse(contentsOf: URL(filePath: CommandLine.arguments[1]), into: &handler, options: GPXReadOptions(lenient: false))
let summary = handler.summary(report: report)
print(summary.points, summary.stats.distanceMeters, summary.stats.movingSeconds, summary.stats.maxSpeedMetersPerSecond, summary.stats.ascentMeters)
