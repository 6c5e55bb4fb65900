/// Estimates the scatter of a track's altitudes from the altitudes themselves, and so their kind.
///
/// Each altitude is compared with the mean of its two neighbours: terrain between fixes a second or a few
/// metres apart is nearly straight, so what is left is noise (for independent scatter σ, the mean of
/// |e₁ − (e₀ + e₂)/2| is √1.5 · √(2/π) σ = 0.977 σ). A barometric recording shows a few centimetres (the
/// Edge 500 fixtures: 0.04 and 0.07 m); GPS altitude shows decimetres to metres (a phone: 0.9 m, the GPS-only
/// Edge 200 and Forerunner 110: 0.2 m, a synthetic ±2 m scatter: 1.2 m).
struct AltitudeNoise {
    /// At or under this σ, metres, the altitudes are barometric.
    static let barometricSigmaMeters = 0.1
    /// Fewer residuals than this say nothing: GPS, the cautious choice.
    static let minimumResiduals = 10
    /// Mean |residual| per σ of independent scatter.
    static let residualPerSigma = 0.977
    /// A residual is clipped here: a single step this large is a glitch, not the receiver's scatter.
    static let residualCapMeters = 10.0

    private var previous: Double?
    private var beforePrevious: Double?
    private var residualSum = 0.0
    private var residualCount = 0

    mutating func add(_ elevation: Double) {
        if let previous, let beforePrevious {
            residualSum += min(Self.residualCapMeters, abs(previous - (beforePrevious + elevation) / 2))
            residualCount += 1
        }
        beforePrevious = previous
        previous = elevation
    }

    /// Neighbours across a pause are not neighbours.
    mutating func endSegment() {
        previous = nil
        beforePrevious = nil
    }

    /// The estimated σ, metres; nil with too few altitudes.
    var sigmaMeters: Double? {
        residualCount >= Self.minimumResiduals ? residualSum / Double(residualCount) / Self.residualPerSigma : nil
    }

    var kind: AltitudeKind {
        guard let sigmaMeters else { return .gps }
        return sigmaMeters <= Self.barometricSigmaMeters ? .barometric : .gps
    }
}
