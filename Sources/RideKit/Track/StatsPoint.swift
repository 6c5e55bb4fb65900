import Foundation

/// A point as the stats pipeline carries it: latitude in radians with its local scale computed once, and
/// optional elevation and time (seconds since 1970).
struct StatsPoint {
    var latitudeRadians: Double
    var longitudeDegrees: Double
    var scale: LocalScale
    var elevationMeters: Double?
    var time: Double?
    /// Taken standing still (`StationarityClassifier`): its scatter is not travel.
    var isStationary = false
    /// Its altitude starts a new level (`AltitudeGate.Verdict.newLevel`): the jump to it is no climb.
    var startsAltitudeLevel = false
    /// Its place among the points added (valid positions only): what a chart's sample maps back to.
    var index = 0

    init(latitude: Double, longitude: Double, elevationMeters: Double?, time: Double?) {
        latitudeRadians = latitude * (.pi / 180)
        longitudeDegrees = longitude
        scale = LocalScale(latitudeRadians: latitudeRadians)
        self.elevationMeters = elevationMeters
        self.time = time
    }

    /// The same, with the scale from a series of nearby latitudes (the accumulator's hot path).
    @inline(__always)
    init(latitude: Double, longitude: Double, elevationMeters: Double?, time: Double?, scales: inout LocalScaleSeries) {
        latitudeRadians = latitude * (.pi / 180)
        longitudeDegrees = longitude
        scale = scales.scale(latitudeRadians: latitudeRadians)
        self.elevationMeters = elevationMeters
        self.time = time
    }

    /// Offset of `other` from this point in metres east and north, on this point's tangent plane
    /// (for neighbours a few tens of metres away).
    @inline(__always)
    func offset(of other: StatsPoint) -> (east: Double, north: Double) {
        let dλ = EllipsoidalDistance.longitudeDifferenceRadians(from: longitudeDegrees, to: other.longitudeDegrees)
        return (dλ * scale.metersPerRadianEast, (other.latitudeRadians - latitudeRadians) * scale.metersPerRadianNorth)
    }

    /// `EllipsoidalDistance` between two points, reusing their precomputed scales.
    @inline(__always)
    func distanceMeters(to other: StatsPoint) -> Double {
        let dφ = other.latitudeRadians - latitudeRadians
        let dλ = EllipsoidalDistance.longitudeDifferenceRadians(from: longitudeDegrees, to: other.longitudeDegrees)
        let limit = EllipsoidalDistance.localLimitRadians
        if abs(dφ) <= limit && abs(dλ) <= limit {
            // The mean of the two scales equals the scale at the mid-latitude to second order in dφ.
            let north = 0.5 * (scale.metersPerRadianNorth + other.scale.metersPerRadianNorth) * dφ
            let east = 0.5 * (scale.metersPerRadianEast + other.scale.metersPerRadianEast) * dλ
            return (north * north + east * east).squareRoot()
        }
        return Vincenty.inverse(from: coordinate, to: other.coordinate).distanceMeters
    }

    /// This point moved by small distances east and north, metres (on its tangent plane).
    func moved(east: Double, north: Double) -> StatsPoint {
        var result = self
        result.latitudeRadians += north / scale.metersPerRadianNorth
        if scale.metersPerRadianEast > 1e-3 {
            var longitude = longitudeDegrees + east / scale.metersPerRadianEast * 180 / .pi
            if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
            result.longitudeDegrees = longitude
        }
        return result
    }

    var coordinate: Coordinate { Coordinate(latitude: latitudeRadians * 180 / .pi, longitude: longitudeDegrees) }
}
