import Foundation

/// The IANA time zone at a position, offline: a 0.05° grid of the Earth (about 5.5 km; ≈ 200 kB in the binary)
/// made from timezone-boundary-builder's zone borders (OpenStreetMap data, ODbL 1.0) by
/// `scripts/make_timezone_grid.py`. At sea, the nautical zones (`Etc/GMT-1` …).
///
///     TimeZoneGrid.shared?.identifier(latitude: 48.137, longitude: 11.575)   // "Europe/Berlin"
///
/// A position within a cell of a border may get the neighbour's zone: a few kilometres, where both sides
/// keep nearly always the same time. The offset at a date, summer time included, comes from the system's
/// tzdata through Foundation's `TimeZone` (`offsetSeconds(latitude:longitude:at:)`).
public struct TimeZoneGrid: Sendable {
    /// The grid shipped with bikeride, decoded once (nil only if the packed data were damaged).
    public static let shared: TimeZoneGrid? = {
        guard let bytes = ShippedData.unpack(packedGrid, maximumBytes: 16 << 20) else { return nil }
        return TimeZoneGrid(bytes: bytes)
    }()

    let columns: Int
    let rows: Int
    let zones: [String]
    /// Where each row's runs start in `runZones`/`runEnds` (rows + 1 entries).
    let rowStarts: [Int]
    let runZones: [UInt16]
    /// The column after each run's last (cumulative within its row).
    let runEnds: [UInt16]

    /// Decodes the grid format `scripts/make_timezone_grid.py` describes; nil when the bytes are not one.
    init?(bytes: [UInt8]) {
        var offset = 0
        func u8() -> Int? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return Int(bytes[offset])
        }
        func u16() -> Int? {
            guard offset + 2 <= bytes.count else { return nil }
            defer { offset += 2 }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
        }
        guard bytes.starts(with: Array("BRTZ".utf8)) else { return nil }
        offset = 4
        guard u8() == 1, let columns = u16(), let rows = u16(), let zoneCount = u16(), columns > 0, rows > 0 else { return nil }
        var zones: [String] = []
        for _ in 0..<zoneCount {
            guard let length = u8(), offset + length <= bytes.count else { return nil }
            zones.append(String(decoding: bytes[offset..<(offset + length)], as: UTF8.self))
            offset += length
        }
        var rowStarts: [Int] = [0], runZones: [UInt16] = [], runEnds: [UInt16] = []
        for _ in 0..<rows {
            guard let count = u16() else { return nil }
            var end = 0
            for _ in 0..<count {
                guard let zone = u16(), let cells = u16(), zone < zoneCount else { return nil }
                end += cells
                runZones.append(UInt16(zone))
                runEnds.append(UInt16(min(end, Int(UInt16.max))))
            }
            guard end == columns else { return nil }
            rowStarts.append(runZones.count)
        }
        self.columns = columns
        self.rows = rows
        self.zones = zones
        self.rowStarts = rowStarts
        self.runZones = runZones
        self.runEnds = runEnds
    }

    /// The IANA identifier of the zone at a position; nil for an invalid position.
    public func identifier(latitude: Double, longitude: Double) -> String? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let cell = 360 / Double(columns)
        let row = min(rows - 1, max(0, Int((90 - latitude) / cell)))
        let column = min(columns - 1, max(0, Int((longitude + 180) / cell)))
        // The first run of the row that ends after the column (binary search).
        var low = rowStarts[row], high = rowStarts[row + 1] - 1
        while low < high {
            let middle = (low + high) / 2
            if Int(runEnds[middle]) > column { high = middle } else { low = middle + 1 }
        }
        return zones[Int(runZones[low])]
    }

    /// The zone at a position as Foundation's `TimeZone` (tzdata), nil when the system does not know it.
    public func timeZone(latitude: Double, longitude: Double) -> TimeZone? {
        identifier(latitude: latitude, longitude: longitude).flatMap { TimeZone(identifier: $0) }
    }

    /// The offset from UTC at a position at an instant, seconds (summer time included).
    public func offsetSeconds(latitude: Double, longitude: Double, at date: Date) -> Int? {
        timeZone(latitude: latitude, longitude: longitude)?.secondsFromGMT(for: date)
    }
}
