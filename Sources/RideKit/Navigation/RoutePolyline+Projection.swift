import Foundation

extension RoutePolyline {
    /// The point of one segment nearest to a position: how far along the line, and how far from the position.
    struct SegmentProjection {
        var segment: Int
        /// Distance along the whole line to the nearest point, metres.
        var alongMeters: Double
        /// Distance from the position to the nearest point, metres.
        var distanceMeters: Double
    }

    /// Projects `position` onto segment `index`.
    ///
    /// On a plane tangent at the position (metres east and north by `scale`, antimeridian-safe), which for
    /// segments within about 20 km is as good as the geodesic at this purpose and costs no trigonometry per
    /// segment; longer segments (a sparse planner's export) go through `PolylineProjection`'s great circles.
    func project(_ position: Coordinate, ontoSegment index: Int, scale: LocalScale, unit: UnitVector? = nil) -> SegmentProjection {
        let a = vertices[index], b = vertices[index + 1]
        let start = cumulativeMeters[index], length = cumulativeMeters[index + 1] - start
        let radians = Double.pi / 180
        let aNorth = (a.latitude - position.latitude) * radians, bNorth = (b.latitude - position.latitude) * radians
        let aEast = EllipsoidalDistance.longitudeDifferenceRadians(from: position.longitude, to: a.longitude)
        let bEast = EllipsoidalDistance.longitudeDifferenceRadians(from: position.longitude, to: b.longitude)
        // 0.003 rad ≈ 19 km of latitude.
        if max(abs(aNorth), abs(bNorth), abs(aEast), abs(bEast)) > 0.003 {
            return projectOnSphere(unit ?? UnitVector(position), ontoSegment: index)
        }
        let ax = aEast * scale.metersPerRadianEast, ay = aNorth * scale.metersPerRadianNorth
        let dx = bEast * scale.metersPerRadianEast - ax, dy = bNorth * scale.metersPerRadianNorth - ay
        let squared = dx * dx + dy * dy
        let fraction = squared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / squared)) : 0
        let x = ax + fraction * dx, y = ay + fraction * dy
        return SegmentProjection(segment: index, alongMeters: start + fraction * length, distanceMeters: (x * x + y * y).squareRoot())
    }

    /// The great-circle projection for segments far away or long (a sparse planner's export): the position
    /// is dropped onto the plane of the segment's great circle and clamped to its ends; the distance is on the
    /// mean sphere (0.5 % off the ellipsoid is nothing at the distances where this is used).
    func projectOnSphere(_ p: UnitVector, ontoSegment index: Int) -> SegmentProjection {
        let a = unitVectors[index], b = unitVectors[index + 1]
        let start = cumulativeMeters[index], length = cumulativeMeters[index + 1] - start
        func result(_ fraction: Double, _ point: UnitVector) -> SegmentProjection {
            let angle = atan2(p.cross(point).length, p.dot(point))
            return SegmentProjection(segment: index, alongMeters: start + fraction * length, distanceMeters: angle * WGS84.meanRadiusMeters)
        }
        let normal = a.cross(b)
        let normalLength = normal.length
        guard normalLength > 1e-15 else { return result(0, a) }
        let n = normal.scaled(1 / normalLength)
        let foot = p.minus(n.scaled(p.dot(n)))
        guard foot.length > 1e-15 else { return result(0, a) }
        let onCircle = foot.scaled(1 / foot.length)
        if a.cross(onCircle).dot(n) < 0 { return result(0, a) }
        if onCircle.cross(b).dot(n) < 0 { return result(1, b) }
        let fraction = atan2(a.cross(onCircle).length, a.dot(onCircle)) / atan2(normalLength, a.dot(b))
        return result(min(1, max(0, fraction)), onCircle)
    }

    /// A distance, metres, that the position's distance to segment `index` is sure not to be under: the
    /// straight-line (chord) distance to its first vertex on a sphere smaller than the earth, less the
    /// segment's length. Costs no trigonometry, so a whole-route search can skip most segments.
    func lowerBoundMeters(from position: UnitVector, toSegment index: Int) -> Double {
        let vertex = unitVectors[index]
        let dx = position.x - vertex.x, dy = position.y - vertex.y, dz = position.z - vertex.z
        // 6,330 km: under the smallest radius of curvature of WGS-84 (6,335 km, north–south at the equator).
        return (dx * dx + dy * dy + dz * dz).squareRoot() * 6_330_000 - (cumulativeMeters[index + 1] - cumulativeMeters[index])
    }
}
