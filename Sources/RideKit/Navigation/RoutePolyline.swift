import Foundation

/// A route's line with the distance along it at every vertex, so that it can be walked by arc length.
///
/// Invalid coordinates are left out and repeated points (hops under a centimetre) merged, so every segment
/// has a length and a direction. Longitudes are compared through `EllipsoidalDistance.longitudeDifferenceRadians`,
/// so a route that crosses the antimeridian is one short line, not two long ones.
struct RoutePolyline: Sendable {
    /// The vertices kept, in order.
    let vertices: [Coordinate]
    /// Distance along the line from the first vertex to each vertex, metres (same count as `vertices`).
    let cumulativeMeters: [Double]
    /// The vertices as points on the unit sphere, for projections onto long segments and quick bounds.
    let unitVectors: [UnitVector]

    init(_ coordinates: [Coordinate]) {
        var kept: [Int] = []
        self.init(coordinates, keptIndices: &kept)
    }

    /// The line, and in `keptIndices` the index in `coordinates` of each vertex kept.
    init(_ coordinates: [Coordinate], keptIndices: inout [Int]) {
        var vertices: [Coordinate] = []
        var cumulative: [Double] = []
        keptIndices = []
        vertices.reserveCapacity(coordinates.count)
        cumulative.reserveCapacity(coordinates.count)
        for (index, coordinate) in coordinates.enumerated() where coordinate.isValid {
            guard let last = vertices.last else {
                vertices.append(coordinate)
                cumulative.append(0)
                keptIndices.append(index)
                continue
            }
            let hop = last.distanceMeters(to: coordinate)
            // 1 cm: below any GPS or planner resolution, so such a hop is a repeat with no direction.
            guard hop.isFinite, hop >= 0.01 else { continue }
            vertices.append(coordinate)
            cumulative.append(cumulative[cumulative.count - 1] + hop)
            keptIndices.append(index)
        }
        self.vertices = vertices
        self.cumulativeMeters = cumulative
        self.unitVectors = vertices.map(UnitVector.init)
    }

    /// Length of the whole line, metres.
    var lengthMeters: Double { cumulativeMeters.last ?? 0 }

    /// Number of segments (vertices − 1, or 0).
    var segmentCount: Int { max(0, vertices.count - 1) }

    /// The segment that holds the point `distanceMeters` along the line: the largest index whose start is at
    /// or before it, clamped to the segments there are. O(log n).
    func segmentIndex(atDistance distanceMeters: Double) -> Int {
        guard segmentCount > 0 else { return 0 }
        var low = 0, high = segmentCount - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if cumulativeMeters[middle] <= distanceMeters { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The point `distanceMeters` along the line (clamped to its ends). O(log n).
    func coordinate(atDistance distanceMeters: Double) -> Coordinate {
        coordinate(atDistance: distanceMeters, inSegment: segmentIndex(atDistance: distanceMeters))
    }

    /// The point `distanceMeters` along the line, known to lie in segment `index` (or beyond an end of the line).
    func coordinate(atDistance distanceMeters: Double, inSegment index: Int) -> Coordinate {
        guard let first = vertices.first else { return Coordinate(latitude: 0, longitude: 0) }
        guard segmentCount > 0 else { return first }
        let start = cumulativeMeters[index], length = cumulativeMeters[index + 1] - start
        let fraction = min(1, max(0, (distanceMeters - start) / length))
        return Self.interpolate(vertices[index], vertices[index + 1], fraction: fraction)
    }

    /// The point a `fraction` of the way from `a` to `b`.
    ///
    /// Short hops (the usual case) interpolate latitude and the antimeridian-safe longitude difference, which
    /// for a few kilometres is within centimetres of the geodesic; longer ones go through unit vectors so that
    /// they follow the great circle, even across a pole.
    static func interpolate(_ a: Coordinate, _ b: Coordinate, fraction: Double) -> Coordinate {
        let dLatitude = b.latitude - a.latitude
        let dLongitude = EllipsoidalDistance.longitudeDifferenceRadians(from: a.longitude, to: b.longitude) * 180 / .pi
        if abs(dLatitude) < 0.05 && abs(dLongitude) < 0.05 {
            return Coordinate(latitude: a.latitude + fraction * dLatitude, longitude: wrapLongitude(a.longitude + fraction * dLongitude))
        }
        let u = UnitVector(a), v = UnitVector(b)
        let mixed = UnitVector(x: u.x + fraction * (v.x - u.x), y: u.y + fraction * (v.y - u.y), z: u.z + fraction * (v.z - u.z))
        guard mixed.length > 1e-12 else { return fraction < 0.5 ? a : b }  // antipodal ends: no single great circle
        return mixed.scaled(1 / mixed.length).coordinate
    }

    /// A longitude brought back into −180…180.
    static func wrapLongitude(_ longitude: Double) -> Double {
        if longitude > 180 { return longitude - 360 }
        if longitude < -180 { return longitude + 360 }
        return longitude
    }
}

/// The signed difference `to − from` of two bearings, degrees in (−180, 180]: positive is a turn to the right.

func signedTurnDegrees(from: Double, to: Double) -> Double {
    var difference = (to - from).truncatingRemainder(dividingBy: 360)
    if difference > 180 { difference -= 360 } else if difference <= -180 { difference += 360 }
    return difference
}
