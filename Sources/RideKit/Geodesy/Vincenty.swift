import Foundation

/// The answer to the inverse geodesic problem: how far, and in which directions, from one point to another.
public struct GeodesicInverse: Sendable, Hashable {
    /// Length of the geodesic, metres.
    public var distanceMeters: Double
    /// Direction of departure at the first point, degrees clockwise from true north, 0..<360.
    public var initialBearingDegrees: Double
    /// Direction of travel on arrival at the second point, degrees clockwise from true north, 0..<360.
    public var finalBearingDegrees: Double
    /// True when Vincenty's fixed-point iteration converged; false when the points were nearly antipodal
    /// and the longitude on the auxiliary sphere was found by bisection instead.
    public var convergedByIteration: Bool
}

/// The answer to the direct geodesic problem: where a given distance and bearing lead.
public struct GeodesicDirect: Sendable, Hashable {
    public var coordinate: Coordinate
    /// Direction of travel on arrival, degrees clockwise from true north, 0..<360.
    public var finalBearingDegrees: Double
}

/// Vincenty's formulae (1975) on the WGS-84 ellipsoid: geodesic distances accurate to well under a millimetre.
///
/// The inverse solution iterates on λ, the longitude difference on the auxiliary sphere. For nearly
/// antipodal points that iteration may oscillate instead of converging; then λ is found by bisection
/// instead: the iteration's residual g(λ) = λ′(λ) − λ is ≥ 0 at λ = |L| and ≤ 0 at λ = π, so a root lies
/// between. Where no geodesic of the λ family reaches the second point (within about 0.6° of the exact
/// antipode on the equator, where the shortest path runs near a pole), bisection ends at the meridional
/// solution λ = π, which is then longer than the true geodesic by at most a few kilometres in twenty
/// thousand (≤ 0.17 %, the difference between half a meridian and b·π).
///
///     Vincenty.inverse(from: Coordinate(latitude: -37.95103342, longitude: 144.42486789),
///                      to: Coordinate(latitude: -37.65282114, longitude: 143.92649554)).distanceMeters
///     // 54972.271… (Flinders Peak to Buninyong, the classic test line)
public enum Vincenty {
    private static let a = WGS84.semiMajorAxisMeters
    private static let b = WGS84.semiMinorAxisMeters
    private static let f = WGS84.flattening

    /// Solves the inverse problem between two positions.
    ///
    /// Complexity: a handful of iterations of a few trigonometric calls (up to 200 plus 64 bisection steps
    /// near antipodes).
    public static func inverse(from start: Coordinate, to end: Coordinate) -> GeodesicInverse {
        let longitudeDifference = EllipsoidalDistance.longitudeDifferenceRadians(from: start.longitude, to: end.longitude)
        let mirrored = longitudeDifference < 0
        let L = abs(longitudeDifference)
        let (sinU1, cosU1) = reducedLatitude(start.latitude)
        let (sinU2, cosU2) = reducedLatitude(end.latitude)

        struct Step {
            var sinσ = 0.0, cosσ = 1.0, σ = 0.0, sinα = 0.0, cos2α = 1.0, cos2σm = 0.0, nextλ = 0.0
        }
        func evaluate(_ λ: Double) -> Step {
            var step = Step()
            let sinλ = sin(λ), cosλ = cos(λ)
            let x = cosU2 * sinλ, y = cosU1 * sinU2 - sinU1 * cosU2 * cosλ
            step.sinσ = (x * x + y * y).squareRoot()
            step.cosσ = sinU1 * sinU2 + cosU1 * cosU2 * cosλ
            step.σ = atan2(step.sinσ, step.cosσ)
            step.sinα = step.sinσ == 0 ? 0 : cosU1 * cosU2 * sinλ / step.sinσ
            step.cos2α = 1 - step.sinα * step.sinα
            // On the equator cos²α = 0 and cos 2σm does not matter (it is multiplied by C = 0).
            step.cos2σm = step.cos2α == 0 ? 0 : step.cosσ - 2 * sinU1 * sinU2 / step.cos2α
            let C = f / 16 * step.cos2α * (4 + f * (4 - 3 * step.cos2α))
            step.nextλ = L + (1 - C) * f * step.sinα
                * (step.σ + C * step.sinσ * (step.cos2σm + C * step.cosσ * (-1 + 2 * step.cos2σm * step.cos2σm)))
            return step
        }

        var λ = L
        var step = evaluate(λ)
        var converged = false
        for _ in 0..<200 {
            let next = step.nextλ
            if abs(next - λ) < 1e-12 {
                λ = next
                converged = λ <= .pi
                break
            }
            λ = next
            if λ > .pi { break }
            step = evaluate(λ)
        }
        if converged {
            step = evaluate(λ)
        } else {
            var low = L, high = Double.pi
            for _ in 0..<64 {
                let middle = 0.5 * (low + high)
                if evaluate(middle).nextλ - middle > 0 { low = middle } else { high = middle }
            }
            λ = 0.5 * (low + high)
            step = evaluate(λ)
        }

        if step.sinσ == 0 && step.cosσ > 0 {
            return GeodesicInverse(distanceMeters: 0, initialBearingDegrees: 0, finalBearingDegrees: 0, convergedByIteration: true)
        }
        let uSquared = step.cos2α * (a * a - b * b) / (b * b)
        let (A, B) = seriesCoefficients(uSquared)
        let Δσ = sigmaCorrection(B: B, sinσ: step.sinσ, cosσ: step.cosσ, cos2σm: step.cos2σm)
        let distance = b * A * (step.σ - Δσ)

        let sinλ = sin(λ), cosλ = cos(λ)
        var initial = atan2(cosU2 * sinλ, cosU1 * sinU2 - sinU1 * cosU2 * cosλ) * 180 / .pi
        var final = atan2(cosU1 * sinλ, -sinU1 * cosU2 + cosU1 * sinU2 * cosλ) * 180 / .pi
        if mirrored {
            initial = -initial
            final = -final
        }
        return GeodesicInverse(
            distanceMeters: distance, initialBearingDegrees: normalizedBearing(initial),
            finalBearingDegrees: normalizedBearing(final), convergedByIteration: converged
        )
    }

    /// Solves the direct problem: the point `distanceMeters` from `start` along the geodesic that leaves it
    /// at `initialBearingDegrees`. Always converges.
    ///
    ///     Vincenty.direct(from: Coordinate(latitude: 0, longitude: 0), distanceMeters: 110_574.389, initialBearingDegrees: 0)
    ///         .coordinate.latitude  // 1.0000… (one degree of latitude at the equator)
    public static func direct(from start: Coordinate, distanceMeters: Double, initialBearingDegrees: Double) -> GeodesicDirect {
        let α1 = initialBearingDegrees * .pi / 180
        let sinα1 = sin(α1), cosα1 = cos(α1)
        let (sinU1, cosU1) = reducedLatitude(start.latitude)
        let σ1 = atan2(sinU1, cosU1 * cosα1)
        let sinα = cosU1 * sinα1
        let cos2α = 1 - sinα * sinα
        let uSquared = cos2α * (a * a - b * b) / (b * b)
        let (A, B) = seriesCoefficients(uSquared)

        var σ = distanceMeters / (b * A)
        var sinσ = sin(σ), cosσ = cos(σ), cos2σm = cos(2 * σ1 + σ)
        for _ in 0..<100 {
            cos2σm = cos(2 * σ1 + σ)
            sinσ = sin(σ)
            cosσ = cos(σ)
            let next = distanceMeters / (b * A) + sigmaCorrection(B: B, sinσ: sinσ, cosσ: cosσ, cos2σm: cos2σm)
            if abs(next - σ) < 1e-13 {
                σ = next
                break
            }
            σ = next
        }
        sinσ = sin(σ)
        cosσ = cos(σ)
        cos2σm = cos(2 * σ1 + σ)

        let tmp = sinU1 * sinσ - cosU1 * cosσ * cosα1
        let φ2 = atan2(sinU1 * cosσ + cosU1 * sinσ * cosα1, (1 - f) * (sinα * sinα + tmp * tmp).squareRoot())
        let λ = atan2(sinσ * sinα1, cosU1 * cosσ - sinU1 * sinσ * cosα1)
        let C = f / 16 * cos2α * (4 + f * (4 - 3 * cos2α))
        let L = λ - (1 - C) * f * sinα * (σ + C * sinσ * (cos2σm + C * cosσ * (-1 + 2 * cos2σm * cos2σm)))
        var longitude = start.longitude + L * 180 / .pi
        longitude = longitude - 360 * ((longitude + 180) / 360).rounded(.down)
        let final = atan2(sinα, -tmp) * 180 / .pi
        return GeodesicDirect(
            coordinate: Coordinate(latitude: φ2 * 180 / .pi, longitude: longitude),
            finalBearingDegrees: normalizedBearing(final)
        )
    }

    /// sin and cos of the reduced latitude U, tan U = (1 − f) tan φ, computed without dividing by cos φ.
    private static func reducedLatitude(_ latitudeDegrees: Double) -> (sin: Double, cos: Double) {
        let φ = latitudeDegrees * .pi / 180
        let sine = (1 - f) * sin(φ), cosine = cos(φ)
        let length = (sine * sine + cosine * cosine).squareRoot()
        return (sine / length, cosine / length)
    }

    private static func seriesCoefficients(_ uSquared: Double) -> (A: Double, B: Double) {
        let A = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let B = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        return (A, B)
    }

    private static func sigmaCorrection(B: Double, sinσ: Double, cosσ: Double, cos2σm: Double) -> Double {
        B * sinσ * (cos2σm + B / 4 * (cosσ * (-1 + 2 * cos2σm * cos2σm)
            - B / 6 * cos2σm * (-3 + 4 * sinσ * sinσ) * (-3 + 4 * cos2σm * cos2σm)))
    }
}

/// A bearing in degrees brought into 0..<360.
@usableFromInline
func normalizedBearing(_ degrees: Double) -> Double {
    let value = degrees.truncatingRemainder(dividingBy: 360)
    let positive = value < 0 ? value + 360 : value
    return positive >= 360 ? 0 : positive
}

extension Coordinate {
    /// Geodesic distance on WGS-84 in metres by Vincenty's inverse formula: the reference the faster
    /// `distanceMeters(to:)` is checked against.
    public func ellipsoidalDistanceMeters(to other: Coordinate) -> Double {
        Vincenty.inverse(from: self, to: other).distanceMeters
    }
}
