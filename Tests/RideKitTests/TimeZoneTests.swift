import Foundation
import TestSupport
import Testing
import RideKit

/// The local time at a ride's start: the IANA zone at the position (`TimeZoneGrid`) and its offset at the date,
/// checked against Python's zoneinfo (Tests/tools/zone_offsets.py) in winter and summer.
@Suite struct TimeZoneTests {
    /// Places and the zone each keeps (a fact about the place, not a figure of bikeride's).
    static let places: [(name: String, latitude: Double, longitude: Double, zone: String)] = [
        ("Munich", 48.137, 11.575, "Europe/Berlin"),
        ("Lausanne", 46.519, 6.632, "Europe/Zurich"),
        ("Paris", 48.857, 2.352, "Europe/Paris"),
        ("London", 51.507, -0.128, "Europe/London"),
        ("Madrid", 40.417, -3.704, "Europe/Madrid"),
        ("Helsinki", 60.170, 24.938, "Europe/Helsinki"),
        ("Moscow", 55.756, 37.617, "Europe/Moscow"),
        ("New Delhi", 28.614, 77.209, "Asia/Kolkata"),
        ("Kathmandu", 27.717, 85.324, "Asia/Kathmandu"),
        ("Tehran", 35.689, 51.389, "Asia/Tehran"),
        ("Kabul", 34.555, 69.207, "Asia/Kabul"),
        ("Tokyo", 35.690, 139.692, "Asia/Tokyo"),
        ("Shanghai", 31.230, 121.474, "Asia/Shanghai"),
        ("Ürümqi", 43.825, 87.617, "Asia/Urumqi"),
        ("Adelaide", -34.929, 138.601, "Australia/Adelaide"),
        ("Eucla", -31.677, 128.889, "Australia/Eucla"),
        ("Brisbane", -27.470, 153.026, "Australia/Brisbane"),
        ("Sydney", -33.869, 151.209, "Australia/Sydney"),
        ("Auckland", -36.848, 174.763, "Pacific/Auckland"),
        ("Chatham Islands", -43.954, -176.559, "Pacific/Chatham"),
        ("Suva", -18.142, 178.442, "Pacific/Fiji"),
        ("Taveuni (east of 180°)", -16.80, -179.97, "Pacific/Fiji"),
        ("Apia", -13.833, -171.767, "Pacific/Apia"),
        ("Kiritimati", 1.872, -157.430, "Pacific/Kiritimati"),
        ("Honolulu", 21.307, -157.858, "Pacific/Honolulu"),
        ("Cupertino", 37.323, -122.032, "America/Los_Angeles"),
        ("Phoenix", 33.448, -112.074, "America/Phoenix"),
        ("New York", 40.713, -74.006, "America/New_York"),
        ("St. John's", 47.561, -52.713, "America/St_Johns"),
        ("São Paulo", -23.551, -46.633, "America/Sao_Paulo"),
        ("Caracas", 10.481, -66.904, "America/Caracas"),
        ("Reykjavik", 64.147, -21.942, "Atlantic/Reykjavik"),
        ("Nairobi", -1.286, 36.817, "Africa/Nairobi"),
        ("Cape Town", -33.925, 18.424, "Africa/Johannesburg"),
    ]

    /// A winter and a summer instant of each hemisphere.
    static let instants: [Int64] = [1_705_309_200, 1_720_000_000]  // 2024-01-15T09:00Z, 2024-07-03T09:46:40Z

    /// zoneinfo's offsets for each place's zone at each instant, in `places` × `instants` order.
    static let references: Result<[Int], any Error> = Result {
        let pairs = places.flatMap { place in instants.map { [place.zone, String($0)] } }
        let script = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appending(path: "tools/zone_offsets.py")
        let process = TestProcess()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let json = "[" + pairs.map { "[\"\($0[0])\", \($0[1])]" }.joined(separator: ",") + "]"
        input.fileHandleForWriting.write(Data(json.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return try JSONDecoder().decode([Int].self, from: data)
    }

    @Test func thePlacesCoverTheHardCases() {
        #expect(Set(Self.places.map(\.zone)).count >= 20)
    }

    @Test func eachPlaceIsInItsZone() throws {
        let grid = try #require(TimeZoneGrid.shared)
        for place in Self.places {
            #expect(grid.identifier(latitude: place.latitude, longitude: place.longitude) == place.zone, "\(place.name)")
        }
    }

    @Test func offsetsInWinterAndSummerAgreeWithZoneinfo() throws {
        let references = try Self.references.get()
        let grid = try #require(TimeZoneGrid.shared)
        var index = 0
        for place in Self.places {
            for instant in Self.instants {
                let start = GPXTime(secondsSince1970: instant, offset: .utc)
                let local = LocalStartTime(start: start, latitude: place.latitude, longitude: place.longitude, grid: grid)
                let expected = references[index]
                index += 1
                #expect(local.source == .zone && local.zone == place.zone, "\(place.name)")
                #expect(local.time.offset == .minutes(expected / 60), "\(place.name) at \(instant): \(local.time.rfc3339), zoneinfo \(expected) s")
                #expect(local.time.isSameInstant(as: start))
            }
        }
    }

    /// The Garmin Edge 800 ride in Munich on 12 April 2012, started 12:53:00 UTC: 14:53 CEST.
    @Test func theMunichRideStartsAtTenToThreeSummerTime() throws {
        let local = LocalStartTime(start: try GPXTime(parsing: "2012-04-12T12:53:00Z"), latitude: 48.137, longitude: 11.575)
        #expect(local.time.rfc3339 == "2012-04-12T14:53:00+02:00")
    }

    @Test func theOpenSeaKeepsNauticalTime() throws {
        let grid = try #require(TimeZoneGrid.shared)
        // Mid-Atlantic at 30° W: nautical zone −2 (Etc/GMT+2, POSIX's inverted sign).
        #expect(grid.identifier(latitude: 0, longitude: -30) == "Etc/GMT+2")
    }

    @Test func aWrittenOffsetIsKeptAndAZonelessTimeIsShownAsWritten() throws {
        let offset = LocalStartTime(start: try GPXTime(parsing: "2024-05-01T10:00:00+02:00"), latitude: 37.3, longitude: -122)
        #expect(offset.time.rfc3339 == "2024-05-01T10:00:00+02:00" && offset.source == .file)
        let written = LocalStartTime(start: try GPXTime(parsing: "2013-01-01T12:00:00"), latitude: 0, longitude: 100)
        #expect(written.time.rfc3339 == "2013-01-01T12:00:00" && written.source == .asWritten)
    }

    @Test func withoutAPositionUTCStays() throws {
        let local = LocalStartTime(start: try GPXTime(parsing: "2024-01-15T08:00:00Z"), latitude: nil, longitude: nil)
        #expect(local.time.rfc3339 == "2024-01-15T08:00:00Z" && local.source == .utc)
    }

    @Test(arguments: [(-91.0, 0.0), (0, 181), (.nan, 0), (90, 180), (-90, -180)])
    func edgesAndNonsenseNeverCrash(latitude: Double, longitude: Double) throws {
        let grid = try #require(TimeZoneGrid.shared)
        let valid = abs(latitude) <= 90 && abs(longitude) <= 180
        #expect((grid.identifier(latitude: latitude, longitude: longitude) != nil) == valid)
    }
}
