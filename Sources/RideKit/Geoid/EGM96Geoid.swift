import Foundation

/// The EGM96 geoid, offline: its height above the WGS-84 ellipsoid (the undulation N) on the model's 15' grid
/// (about 28 km; ≈ 2 MB in memory once decoded), made from PROJ's `egm96_15.gtx` (NGA's EGM96, public domain) by
/// `scripts/make_geoid_grid.py`. Heights above sea level, as riders and maps give them, are heights above this
/// surface: a browser on Android reports its altitude above the ellipsoid (the W3C Geolocation definition), and
/// `seaLevelMeters(ellipsoidalMeters:latitude:longitude:)` turns it into one.
///
///     EGM96Geoid.shared?.undulationMeters(latitude: 4.75, longitude: 78.75)   // ≈ -107.0 (south of India)
///
/// Between nodes N is interpolated bilinearly, as PROJ does on the same grid, so the two agree within the grid's
/// 5 cm rounding; across the antimeridian the grid wraps, and at the poles its rows hold the pole's one value.
public struct EGM96Geoid: Sendable {
    /// The grid shipped with bikeride, decoded once (nil only if the packed data were damaged).
    public static let shared: EGM96Geoid? = {
        guard let bytes = ShippedData.unpack(packedGrid, maximumBytes: 8 << 20) else { return nil }
        return EGM96Geoid(bytes: bytes)
    }()

    /// Nodes per row (around the Earth, the antimeridian once).
    let columns: Int
    /// Rows from the south pole to the north pole, both included.
    let rows: Int
    /// Decimetres, row by row from the south.
    let decimetres: [Int16]

    /// Decodes the grid format `scripts/make_geoid_grid.py` describes; nil when the bytes are not one.
    init?(bytes: [UInt8]) {
        guard bytes.count >= 9, bytes.starts(with: Array("BRGE".utf8)), bytes[4] == 1 else { return nil }
        let columns = Int(bytes[5]) | Int(bytes[6]) << 8
        let rows = Int(bytes[7]) | Int(bytes[8]) << 8
        // Square cells from pole to pole: rows - 1 cells span 180°, columns span 360°.
        guard columns > 1, rows > 1, columns == 2 * (rows - 1) else { return nil }
        var values = [Int16](repeating: 0, count: rows * columns)
        var offset = 9
        for row in 0..<rows {
            for column in 0..<columns {
                guard offset < bytes.count else { return nil }
                var difference = Int(Int8(bitPattern: bytes[offset]))
                offset += 1
                if difference == -128 {
                    guard offset + 2 <= bytes.count else { return nil }
                    difference = Int(Int16(bitPattern: UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8))
                    offset += 2
                }
                let left = column > 0 ? Int(values[row * columns + column - 1]) : 0
                let below = row > 0 ? Int(values[(row - 1) * columns + column]) : 0
                let corner = row > 0 && column > 0 ? Int(values[(row - 1) * columns + column - 1]) : 0
                guard let value = Int16(exactly: difference + left + below - corner) else { return nil }
                values[row * columns + column] = value
            }
        }
        guard offset == bytes.count else { return nil }
        self.columns = columns
        self.rows = rows
        self.decimetres = values
    }

    /// The geoid's height above the WGS-84 ellipsoid at a position, metres (−107 to +85); nil for an invalid one.
    public func undulationMeters(latitude: Double, longitude: Double) -> Double? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        let cellDegrees = 360 / Double(columns)
        let y = (latitude + 90) / cellDegrees
        let row = min(rows - 2, Int(y))
        let fy = y - Double(row)
        let x = (longitude + 180) / cellDegrees
        let column = min(columns - 1, Int(x))
        let fx = x - Double(column)
        let east = (column + 1) % columns  // the column after 179.75° E is 180° W
        func node(_ row: Int, _ column: Int) -> Double { Double(decimetres[row * columns + column]) / 10 }
        let south = node(row, column) * (1 - fx) + node(row, east) * fx
        let north = node(row + 1, column) * (1 - fx) + node(row + 1, east) * fx
        return south * (1 - fy) + north * fy
    }

    /// A height above the WGS-84 ellipsoid as a height above sea level (the geoid): h − N.
    public func seaLevelMeters(ellipsoidalMeters: Double, latitude: Double, longitude: Double) -> Double? {
        undulationMeters(latitude: latitude, longitude: longitude).map { ellipsoidalMeters - $0 }
    }
}
