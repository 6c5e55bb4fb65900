import Foundation

/// The point of a polyline nearest to a given position: which segment, how far along it, where, how far away.
public struct PolylineProjection: Sendable, Hashable {
    /// Index of the segment's first vertex: the nearest point lies between vertex `segmentIndex` and the next.
    public var segmentIndex: Int
    /// Position along that segment, 0 (at its first vertex) … 1 (at its last).
    public var fraction: Double
    /// The nearest point itself.
    public var coordinate: Coordinate
    /// Distance from the query position to `coordinate`, metres.
    public var distanceMeters: Double
}

extension PolylineProjection {
    /// Finds the point of `polyline` nearest to `position`, or nil when the polyline is empty.
    ///
    /// Each segment is a great-circle arc: the position is projected onto the arc's plane through the earth's
    /// centre and clamped to the arc's ends, which works at any scale, across the antimeridian and near the
    /// poles. The distance is then `distanceMeters(to:)` on WGS-84. A polyline of one vertex gives that vertex
    /// (segment 0, fraction 0).
    ///
    ///     let line = [Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 0.01)]
    ///     PolylineProjection.nearest(to: Coordinate(latitude: 0.001, longitude: 0.004), on: line)
    ///     // segment 0, fraction 0.4, (0, 0.004), 110.57… m
    ///
    /// Complexity: O(n) in the number of vertices.
    public static func nearest(to position: Coordinate, on polyline: [Coordinate]) -> PolylineProjection? {
        guard let first = polyline.first else { return nil }
        var best = PolylineProjection(
            segmentIndex: 0, fraction: 0, coordinate: first, distanceMeters: position.distanceMeters(to: first)
        )
        guard polyline.count > 1 else { return best }
        let p = UnitVector(position)
        var a = UnitVector(first)
        for index in 0..<(polyline.count - 1) {
            let b = UnitVector(polyline[index + 1])
            let (fraction, point) = closestOnArc(p: p, a: a, b: b, start: polyline[index], end: polyline[index + 1])
            let distance = position.distanceMeters(to: point)
            if distance < best.distanceMeters {
                best = PolylineProjection(segmentIndex: index, fraction: fraction, coordinate: point, distanceMeters: distance)
            }
            a = b
        }
        return best
    }

    private static func closestOnArc(
        p: UnitVector, a: UnitVector, b: UnitVector, start: Coordinate, end: Coordinate
    ) -> (Double, Coordinate) {
        let normal = a.cross(b)
        let normalLength = normal.length
        guard normalLength > 1e-15 else { return (0, start) }  // a zero-length (or antipodal) segment
        let n = normal.scaled(1 / normalLength)
        let foot = p.minus(n.scaled(p.dot(n)))
        guard foot.length > 1e-15 else { return (0, start) }  // the position is a pole of the arc's circle
        let onCircle = foot.scaled(1 / foot.length)
        if a.cross(onCircle).dot(n) < 0 { return (0, start) }
        if onCircle.cross(b).dot(n) < 0 { return (1, end) }
        let arc = atan2(normalLength, a.dot(b))
        let part = atan2(a.cross(onCircle).length, a.dot(onCircle))
        return (min(1, max(0, part / arc)), onCircle.coordinate)
    }
}

/// A point on the unit sphere, x towards (0°, 0°), z towards the north pole.
struct UnitVector {
    var x: Double, y: Double, z: Double

    init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    init(_ coordinate: Coordinate) {
        let φ = coordinate.latitude * .pi / 180, λ = coordinate.longitude * .pi / 180
        let cosφ = cos(φ)
        self.init(x: cosφ * cos(λ), y: cosφ * sin(λ), z: sin(φ))
    }

    var coordinate: Coordinate {
        Coordinate(latitude: atan2(z, (x * x + y * y).squareRoot()) * 180 / .pi, longitude: atan2(y, x) * 180 / .pi)
    }

    var length: Double { (x * x + y * y + z * z).squareRoot() }
    func dot(_ other: UnitVector) -> Double { x * other.x + y * other.y + z * other.z }
    func cross(_ o: UnitVector) -> UnitVector { UnitVector(x: y * o.z - z * o.y, y: z * o.x - x * o.z, z: x * o.y - y * o.x) }
    func scaled(_ factor: Double) -> UnitVector { UnitVector(x: x * factor, y: y * factor, z: z * factor) }
    func minus(_ o: UnitVector) -> UnitVector { UnitVector(x: x - o.x, y: y - o.y, z: z - o.z) }
}
