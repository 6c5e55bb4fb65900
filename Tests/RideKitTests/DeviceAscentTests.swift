import Foundation
import Testing
import RideKit
import TestSupport

/// bikeride's climb against the ascent each real device file states for itself (its session's total_ascent),
/// read by the file's own reader. docs/stats.md lists every file's figures.
@Suite struct DeviceAscentTests {
    /// Every FIT fixture with positions, altitudes and a device ascent.
    static let files: [String] = Fixtures.files(under: "fit").filter { $0.lowercased().hasSuffix(".fit") }

    static func figures(_ path: String) -> (device: Double, ours: TrackStats)? {
        guard let bytes = try? Fixtures.bytes(path),
              let activity = try? DeviceFileReader.read(bytes: bytes, format: .fit, lenient: true),
              let device = activity.totals?.ascentMeters, device > 0
        else { return nil }
        let ours = activity.document.stats(activity: activity.kind?.activity ?? .ride)
        guard ours.altitudeKind != nil else { return nil }
        return (device, ours)
    }

    /// Garmin's bike computers with a barometer (Edge 500, 810): within 5 % of what the device says.
    @Test(arguments: [
        "fit/python-fitparse/garmin-edge-500-activity.fit", "fit/python-fitparse/sample-activity.fit",
        "fit/python-fitparse/Edge810-Vector-2013-08-16-15-35-10.fit",
    ])
    func barometricBikeComputersClimbWithinFivePercentOfTheDevice(_ path: String) throws {
        let figures = try #require(Self.figures(path))
        #expect(relativeError(figures.ours.ascentMeters, figures.device) < 0.05, "\(path): device \(figures.device), ours \(figures.ours.ascentMeters)")
    }

    /// Prints every fixture's figures (for docs/stats.md): `swift test --filter DeviceAscentTests`.
    @Test func everyDeviceFileWithAnAscentIsListed() {
        var listed = 0
        for path in Self.files {
            guard let figures = Self.figures(path) else { continue }
            listed += 1
            let noise = figures.ours.altitudeNoiseMeters.map { String(format: "%.3f", $0) } ?? "–"
            print(String(format: "ascent %@: device %.0f m, bikeride %.0f m (%+.1f %%), %@ σ %@ m", path, figures.device,
                         figures.ours.ascentMeters, 100 * (figures.ours.ascentMeters / figures.device - 1),
                         figures.ours.altitudeKind?.rawValue ?? "-", noise))
        }
        #expect(listed >= 8)
    }
}
