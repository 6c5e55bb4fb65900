import Foundation

/// Removes GPS scatter from dense fixes without rounding off real corners.
///
/// Each fix is moved towards the mean of a centred window of up to seven fixes (three on each side, taken in
/// pairs so that a straight line at an even pace stays exactly where it is), but:
/// - only over neighbours that are close (within `maxSpacingMeters` per step), so that sparse tracks and
///   planned routes, where there is nothing to average, are left alone;
/// - by at most twice the noise the track itself shows. That noise is measured as the distance of each fix
///   from the cubic through its four neighbours (1.747 σ for independent scatter of σ per axis), averaged
///   over the last ~32 fixes with large values — real corners — clipped out. A clean track (or one whose
///   error drifts slowly, as most receivers' does) shows little noise and is barely touched; a scattered
///   one is smoothed as much as its scatter needs.
///
/// Elevations are averaged over the same window (no clamp: altitude noise is larger and terrain smoother).
/// Memory: a fixed ring of seven points.
struct PositionSmoother {
    /// Neighbour k steps away is used only within k × this distance.
    static let maxSpacingMeters = 10.0
    /// A fix moves by at most this many estimated noise σ.
    static let maxCorrectionInSigmas = 2.0
    /// Mean of |cubic residual| per σ of independent scatter: √(1 + 2/36 + 32/36) · √(π/2).
    static let residualPerSigma = 1.747
    static let noiseAveraging = 1.0 / 32
    static let residualCapMeters = 10.0

    /// Neighbours on each side: up to seven fixes in all.
    static let halfWindow = 3
    private static let capacity = 2 * halfWindow + 1
    private var ring: [StatsPoint]
    private var received = 0
    private var emitted = 0
    private var residualSum = 0.0
    private var residualWeight = 0.0

    init() {
        ring = Array(repeating: StatsPoint(latitude: 0, longitude: 0, elevationMeters: nil, time: nil), count: Self.capacity)
    }

    /// Starts a new segment (the noise estimate carries over: it belongs to the receiver, not the segment).
    mutating func beginSegment() {
        received = 0
        emitted = 0
    }

    /// Takes the next fix; returns the smoothed fix `halfWindow` places back, once it has its neighbours.
    mutating func push(_ point: StatsPoint) -> StatsPoint? {
        ring[received % Self.capacity] = point
        received += 1
        guard received > Self.halfWindow else { return nil }
        let index = received - 1 - Self.halfWindow
        emitted = index + 1
        return smooth(index, last: received - 1)
    }

    /// At the end of a segment: the fixes still waiting for neighbours, one per call, then nil.
    mutating func drain() -> StatsPoint? {
        guard emitted < received else { return nil }
        let index = emitted
        emitted += 1
        return smooth(index, last: received - 1)
    }

    private var noiseSigmaMeters: Double {
        residualWeight > 0 ? residualSum / residualWeight / Self.residualPerSigma : 0
    }

    private mutating func smooth(_ index: Int, last: Int) -> StatsPoint {
        let center = ring[index % Self.capacity]
        let reach = min(Self.halfWindow, index, last - index)
        guard reach > 0 else { return center }
        func neighbour(_ k: Int) -> StatsPoint { ring[(index + k) % Self.capacity] }

        // The offsets of the nearest two on each side serve both the noise estimate and the mean: computed once.
        let b1 = center.offset(of: neighbour(-1)), a1 = center.offset(of: neighbour(1))
        var b2 = (east: 0.0, north: 0.0), a2 = b2
        if reach >= 2 {
            b2 = center.offset(of: neighbour(-2))
            a2 = center.offset(of: neighbour(2))
            updateNoise(east: (b2.east, b1.east, a1.east, a2.east), north: (b2.north, b1.north, a1.north, a2.north))
        }

        var sumEast = 0.0, sumNorth = 0.0, count = 1.0
        var sumElevation = center.elevationMeters ?? 0, elevationCount: Double = center.elevationMeters == nil ? 0 : 1
        for k in 1...reach {
            let before = neighbour(-k), after = neighbour(k)
            let b = k == 1 ? b1 : k == 2 ? b2 : center.offset(of: before)
            let a = k == 1 ? a1 : k == 2 ? a2 : center.offset(of: after)
            let reachMeters = Self.maxSpacingMeters * Double(k)
            guard b.east * b.east + b.north * b.north <= reachMeters * reachMeters,
                a.east * a.east + a.north * a.north <= reachMeters * reachMeters
            else { break }
            sumEast += b.east + a.east
            sumNorth += b.north + a.north
            count += 2
            if let elevation = before.elevationMeters {
                sumElevation += elevation
                elevationCount += 1
            }
            if let elevation = after.elevationMeters {
                sumElevation += elevation
                elevationCount += 1
            }
        }
        guard count > 1 else { return center }

        var correctionEast = sumEast / count, correctionNorth = sumNorth / count
        let length = (correctionEast * correctionEast + correctionNorth * correctionNorth).squareRoot()
        let allowed = Self.maxCorrectionInSigmas * noiseSigmaMeters
        if length > allowed {
            let factor = length > 0 ? allowed / length : 0
            correctionEast *= factor
            correctionNorth *= factor
        }
        var result = center
        if elevationCount > 0 { result.elevationMeters = sumElevation / elevationCount }
        guard correctionEast != 0 || correctionNorth != 0 else { return result }
        result.latitudeRadians += correctionNorth / center.scale.metersPerRadianNorth
        if center.scale.metersPerRadianEast > 1e-3 {
            var longitude = center.longitudeDegrees + correctionEast / center.scale.metersPerRadianEast * 180 / .pi
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            result.longitudeDegrees = longitude
        }
        return result
    }

    /// Adds the centre's distance from the cubic through its four neighbours to the running noise estimate,
    /// when the five fixes are dense enough to say anything about noise.
    private mutating func updateNoise(east: (Double, Double, Double, Double), north: (Double, Double, Double, Double)) {
        let limit = Self.maxSpacingMeters
        func hop(_ e1: Double, _ n1: Double, _ e2: Double, _ n2: Double) -> Bool {
            let de = e2 - e1, dn = n2 - n1
            return de * de + dn * dn <= limit * limit
        }
        guard hop(east.0, north.0, east.1, north.1), hop(east.1, north.1, 0, 0), hop(0, 0, east.2, north.2),
            hop(east.2, north.2, east.3, north.3)
        else { return }
        let predictedEast = (-east.0 + 4 * east.1 + 4 * east.2 - east.3) / 6
        let predictedNorth = (-north.0 + 4 * north.1 + 4 * north.2 - north.3) / 6
        var residual = (predictedEast * predictedEast + predictedNorth * predictedNorth).squareRoot()
        // Clip what cannot be noise (a corner, a bad fix) so that it does not inflate the estimate.
        let cap = residualWeight > 0 ? min(Self.residualCapMeters, 3 * residualSum / residualWeight + 0.5) : Self.residualCapMeters
        residual = min(residual, cap)
        residualSum = residualSum * (1 - Self.noiseAveraging) + Self.noiseAveraging * residual
        residualWeight = residualWeight * (1 - Self.noiseAveraging) + Self.noiseAveraging
    }
}
