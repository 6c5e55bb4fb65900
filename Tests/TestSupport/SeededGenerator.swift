import Foundation

/// SplitMix64: a small, seeded generator so that every noisy test is the same on every run.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Uniform in −amplitude…amplitude.
    public mutating func symmetric(_ amplitude: Double) -> Double { (2 * unit() - 1) * amplitude }

    /// Normally distributed with mean 0 and standard deviation `sigma` (Box–Muller).
    public mutating func gaussian(_ sigma: Double) -> Double {
        let u = max(unit(), 1e-300), v = unit()
        return sigma * (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}
