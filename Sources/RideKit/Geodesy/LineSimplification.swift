import Foundation

/// Douglas–Peucker line simplification with a tolerance in metres.
public enum LineSimplification {
    /// Offsets of the points to keep so that no dropped point lies farther than `toleranceMeters` from the
    /// simplified line; the first and last points are always kept. Iterative (an explicit stack, not
    /// recursion), so a million points cannot overflow the call stack.
    ///
    /// Distances are measured from each point to the great-circle arcs of the simplified line on the mean
    /// sphere (within 0.6 % of the ellipsoid, which is far finer than any tolerance one would choose), using
    /// unit vectors so that the inner loop needs no trigonometry.
    ///
    ///     let line = [(0.0, 0.0), (0.0, 0.001), (0.00001, 0.002), (0.0, 0.003)].map { Coordinate(latitude: $0.0, longitude: $0.1) }
    ///     LineSimplification.douglasPeuckerIndices(of: line, toleranceMeters: 5)  // [0, 3]: the middle points are within 1.2 m
    ///
    /// Complexity: O(n log n) for typical tracks, O(n²) in the worst case; O(n) memory.
    public static func douglasPeuckerIndices(of points: some RandomAccessCollection<Coordinate>, toleranceMeters: Double) -> [Int] {
        let vectors = points.map(UnitVector.init)
        let count = vectors.count
        guard count > 2 else { return Array(0..<count) }
        // Compare sines of angles rather than angles: sin is monotonic up to 90°, which no tolerance reaches.
        let tolerance = sin(min(max(0, toleranceMeters) / WGS84.meanRadiusMeters, .pi / 2))
        var keep = [Bool](repeating: false, count: count)
        keep[0] = true
        keep[count - 1] = true
        var stack: [(Int, Int)] = [(0, count - 1)]
        while let (first, last) = stack.popLast() {
            guard last - first > 1 else { continue }
            let a = vectors[first], b = vectors[last]
            let normal = a.cross(b)
            let normalLength = normal.length
            var farthest = -1
            var farthestMeasure = -1.0
            for index in (first + 1)..<last {
                let measure = deviation(of: vectors[index], a: a, b: b, normal: normal, normalLength: normalLength)
                if measure > farthestMeasure {
                    farthestMeasure = measure
                    farthest = index
                }
            }
            if farthestMeasure > tolerance {
                keep[farthest] = true
                stack.append((farthest, last))
                stack.append((first, farthest))
            }
        }
        return keep.indices.filter { keep[$0] }
    }

    /// A measure that grows with the angle between `p` and the arc a→b: the sine of that angle up to 90°,
    /// 2 − sine beyond it.
    private static func deviation(of p: UnitVector, a: UnitVector, b: UnitVector, normal: UnitVector, normalLength: Double) -> Double {
        if normalLength > 1e-15 {
            // Inside the arc's span the nearest point is the foot on the great circle: sin(angle) = |p·n̂|.
            if a.cross(p).dot(normal) >= 0 && p.cross(b).dot(normal) >= 0 {
                return abs(p.dot(normal)) / normalLength
            }
        }
        return min(angleMeasure(p, a), angleMeasure(p, b))
    }

    private static func angleMeasure(_ p: UnitVector, _ q: UnitVector) -> Double {
        let sine = min(1, p.cross(q).length)
        return p.dot(q) >= 0 ? sine : 2 - sine
    }
}
