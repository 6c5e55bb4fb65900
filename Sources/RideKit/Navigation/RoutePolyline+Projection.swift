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
    func project(_ position: Coordinate, ontoSegment index: Int, scale: LocalScale) -> SegmentProjection {
        let a = vertices[index], b = vertices[index + 1]
        let start = cumulativeMeters[index], length = cumulativeMeters[index + 1] - start
        let radians = Double.pi / 180
        let aNorth = (a.latitude - position.latitude) * radians, bNorth = (b.latitude - position.latitude) * radians
        let aEast = EllipsoidalDistance.longitudeDifferenceRadians(from: position.longitude, to: a.longitude)
        let bEast = EllipsoidalDistance.longitudeDifferenceRadians(from: position.longitude, to: b.longitude)
        // 0.003 rad ≈ 19 km of latitude.
        if max(abs(aNorth), abs(bNorth), abs(aEast), abs(bEast)) > 0.003 {
            guard let projection = PolylineProjection.nearest(to: position, on: [a, b]) else {
                return SegmentProjection(segment: index, alongMeters: start, distanceMeters: .infinity)
            }
            return SegmentProjection(segment: index, alongMeters: start + projection.fraction * length,
                                     distanceMeters: projection.distanceMeters)
        }
        let ax = aEast * scale.metersPerRadianEast, ay = aNorth * scale.metersPerRadianNorth
        let dx = bEast * scale.metersPerRadianEast - ax, dy = bNorth * scale.metersPerRadianNorth - ay
        let squared = dx * dx + dy * dy
        let fraction = squared > 0 ? min(1, max(0, -(ax * dx + ay * dy) / squared)) : 0
        let x = ax + fraction * dx, y = ay + fraction * dy
        return SegmentProjection(segment: index, alongMeters: start + fraction * length, distanceMeters: (x * x + y * y).squareRoot())
    }
}
