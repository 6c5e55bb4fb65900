import Testing
import RideKit

/// Every figure people read, formatted in one place; the expected strings are worked out by hand from the
/// definitions of the units (1 mi = 1609.344 m, 1 ft = 0.3048 m).
@Suite struct UnitSystemTests {
    @Test func distancesInMetresOrKilometres() {
        #expect(UnitSystem.metric.formatDistance(meters: 0) == "0 m")
        #expect(UnitSystem.metric.formatDistance(meters: 849.6) == "850 m")
        #expect(UnitSystem.metric.formatDistance(meters: 1234.5) == "1.23 km")
        #expect(UnitSystem.metric.formatDistance(meters: 17_880) == "17.88 km")
        #expect(UnitSystem.metric.formatDistance(meters: 86, smallUnits: false) == "0.09 km")
    }

    @Test func distancesInFeetOrMiles() {
        #expect(UnitSystem.imperial.formatDistance(meters: 100) == "328 ft")
        #expect(UnitSystem.imperial.formatDistance(meters: 1609.344) == "1.00 mi")
        #expect(UnitSystem.imperial.formatDistance(meters: 12_345) == "7.67 mi")
        #expect(UnitSystem.imperial.formatDistance(meters: 100, smallUnits: false) == "0.06 mi")
    }

    @Test func elevations() {
        #expect(UnitSystem.metric.formatElevation(meters: 431.6) == "432 m")
        #expect(UnitSystem.imperial.formatElevation(meters: 431.6) == "1416 ft")
        #expect(UnitSystem.metric.formatElevation(meters: -12.4) == "-12 m")
    }

    @Test func speeds() {
        #expect(UnitSystem.metric.formatSpeed(metersPerSecond: 5) == "18.0 km/h")
        #expect(UnitSystem.metric.formatSpeed(metersPerSecond: 17_880 / 5_097) == "12.6 km/h")
        #expect(UnitSystem.imperial.formatSpeed(metersPerSecond: 5) == "11.2 mph")
        #expect(UnitSystem.metric.formatSpeed(metersPerSecond: 0) == "0.0 km/h")
    }

    @Test func paces() {
        #expect(UnitSystem.metric.formatPace(secondsPerKilometer: 330) == "5:30 /km")
        // 330 s/km × 1.609344 = 531.08 s per mile.
        #expect(UnitSystem.imperial.formatPace(secondsPerKilometer: 330) == "8:51 /mi")
        #expect(UnitSystem.metric.formatPace(metersPerSecond: 1000.0 / 330) == "5:30 /km")
        #expect(UnitSystem.metric.formatPace(metersPerSecond: 0) == "-")
    }

    @Test func durations() {
        #expect(UnitSystem.formatDuration(seconds: 5_097) == "1:24:57")
        #expect(UnitSystem.formatDuration(seconds: 245.4) == "0:04:05")
        #expect(UnitSystem.formatDuration(seconds: 0) == "0:00:00")
        #expect(UnitSystem.formatDuration(seconds: 100 * 3600 + 59.6) == "100:01:00")
        #expect(UnitSystem.imperial.formatDuration(seconds: 61) == "0:01:01")
    }

    @Test func valuesThatAreNotNumbersDoNotTrap() {
        #expect(UnitSystem.metric.formatDistance(meters: .nan) == "0.00 km")
        #expect(UnitSystem.metric.formatSpeed(metersPerSecond: .infinity) == "0.0 km/h")
        #expect(UnitSystem.formatDuration(seconds: -.infinity) == "0:00:00")
    }
}
