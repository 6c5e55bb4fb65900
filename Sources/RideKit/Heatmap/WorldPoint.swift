/// A position on the Web Mercator square in fixed point: 2^30 units across the world, x eastwards from the
/// antimeridian, y southwards from 85.05° N. The heatmap and explorer tiles work in these units so that every tile
/// and pixel boundary at zoom 0…22 falls on a whole unit and the same line gives the same pixels however it is cut.
///
///     WorldPoint(Coordinate(latitude: 0, longitude: 0))  // (536870912, 536870912): the middle of the map
///
/// At zoom z a tile is 2^(30−z) units wide and a pixel of a 256-pixel tile 2^(22−z): at zoom 18 a pixel is 16 units,
/// so positions keep 1/16 of a zoom-18 pixel (about 3.7 cm at the equator).
public struct WorldPoint: Sendable, Hashable {
    public var x: Int32
    public var y: Int32

    /// log2 of the units across the world.
    public static let bits = 30
    /// 2^30: the units across the world.
    public static let size = 1 << bits

    public init(x: Int32, y: Int32) {
        self.x = x
        self.y = y
    }

    /// The position's point; latitudes beyond ±85.05° fall on the map's edge.
    public init(_ coordinate: Coordinate) {
        let (x, y) = WebMercator.tileCoordinates(of: coordinate, zoom: 0)
        func units(_ value: Double) -> Int32 {
            let scaled = (value * Double(Self.size)).rounded(.down)
            return Int32(max(0, min(Double(Self.size - 1), scaled.isFinite ? scaled : 0)))
        }
        self.init(x: units(x), y: units(y))
    }

    /// The tile at `zoom` (0…30) holding the point.
    public func tile(zoom: Int) -> (x: Int, y: Int) {
        (Int(x) >> (Self.bits - zoom), Int(y) >> (Self.bits - zoom))
    }

    /// The point in pixel units of 256-pixel tiles at `zoom` (0…22): whole numbers name the pixel, from the map's top left.
    public func pixel(zoom: Int) -> (x: Double, y: Double) {
        let scale = Double(1 << (Self.bits - 8 - zoom))
        return (Double(x) / scale, Double(y) / scale)
    }
}
