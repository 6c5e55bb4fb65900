import Foundation
import RideKit
import Testing

/// The share pages' local times, against Python's `zoneinfo` on the same instants (values noted from
/// `datetime.fromtimestamp(t, ZoneInfo(zone))`): summer time, a 45-minute zone, a half-hour zone in its summer.
@Suite struct LocalTimeTextTests {
    @Test(arguments: [
        (48.137, 11.575, 1_334_235_180, "2012-04-12 14:53 (UTC+02:00, Europe/Berlin)"),     // zoneinfo: 2012-04-12T14:53:00+02:00
        (27.717, 85.324, 1_705_309_200, "2024-01-15 14:45 (UTC+05:45, Asia/Kathmandu)"),     // 2024-01-15T14:45:00+05:45
        (-34.929, 138.601, 1_705_309_200, "2024-01-15 19:30 (UTC+10:30, Australia/Adelaide)"),  // 2024-01-15T19:30:00+10:30
    ])
    func theClockWhereThePositionIs(latitude: Double, longitude: Double, seconds: Int, expected: String) {
        #expect(LocalTimeText.text(Date(timeIntervalSince1970: TimeInterval(seconds)), latitude: latitude, longitude: longitude) == expected)
    }

    @Test func secondsOnRequestAndUTCWithoutAGrid() {
        let date = Date(timeIntervalSince1970: 1_334_235_187)
        #expect(LocalTimeText.text(date, latitude: 48.137, longitude: 11.575, seconds: true) == "2012-04-12 14:53:07 (UTC+02:00, Europe/Berlin)")
        #expect(LocalTimeText.text(date, latitude: 48.137, longitude: 11.575, grid: nil) == "2012-04-12 12:53 (UTC)")
    }
}
