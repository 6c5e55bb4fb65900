/// What a navigation app says for a cue: "Turn right in 50 feet", "Slight left in 0.3 miles",
/// "Make a U-turn in 200 m", "Sharp right in 1.2 km".
public enum CueText {
    /// The instruction and the distance to the cue in the rider's units; at the cue itself (a distance that
    /// rounds to nothing) only the instruction.
    ///
    ///     CueText.text(direction: .right, severity: .turn, distanceMeters: 15, units: .imperial)   // "Turn right in 50 feet"
    ///     CueText.text(direction: .left, severity: .slight, distanceMeters: 480, units: .imperial) // "Slight left in 0.3 miles"
    ///     CueText.text(direction: .left, severity: .uturn, distanceMeters: 190, units: .metric)    // "Make a U-turn in 200 m"
    public static func text(direction: TurnDirection, severity: TurnSeverity, distanceMeters: Double, units: UnitSystem) -> String {
        let instruction = self.instruction(direction: direction, severity: severity)
        guard let distance = CueDistance.spoken(meters: distanceMeters, units: units) else { return instruction }
        return instruction + " in " + distance
    }

    /// The text for `cue` when it is `distanceMeters` ahead.
    public static func text(for cue: Cue, distanceMeters: Double, units: UnitSystem) -> String {
        text(direction: cue.direction, severity: cue.severity, distanceMeters: distanceMeters, units: units)
    }

    /// The instruction alone: "Turn right", "Slight left", "Sharp right", "Make a U-turn".
    public static func instruction(direction: TurnDirection, severity: TurnSeverity) -> String {
        let side = direction == .left ? "left" : "right"
        switch severity {
        case .slight: return "Slight " + side
        case .turn: return "Turn " + side
        case .sharp: return "Sharp " + side
        case .uturn: return "Make a U-turn"
        }
    }
}

/// Distances to a cue rounded the way navigation apps announce them.
///
/// Imperial: feet in steps of 50 below a tenth of a mile, then tenths of a mile. Metric: steps of 10 m below
/// 100 m, of 50 m below a kilometre, then kilometres with one decimal. A whole number drops its ".0"
/// ("1 mile", "2 km"), as spoken.
public enum CueDistance {
    /// The rounded distance with its unit ("50 feet", "0.3 miles", "1 mile", "70 m", "250 m", "1.2 km"), or
    /// nil when it rounds to nothing (closer than 25 ft or 5 m: the cue is here). Negative or non-finite
    /// distances are nil too.
    ///
    ///     CueDistance.spoken(meters: 15, units: .imperial)    // "50 feet"
    ///     CueDistance.spoken(meters: 1190, units: .metric)    // "1.2 km"
    public static func spoken(meters: Double, units: UnitSystem) -> String? {
        guard meters.isFinite, meters >= 0 else { return nil }
        // Farther than ten times round the earth is not a distance along a route; it would overflow below.
        let meters = min(meters, 400_000_000)
        switch units {
        case .imperial:
            let feet = meters / footMeters
            let roundedFeet = (feet / 50).rounded() * 50
            // 528 ft is a tenth of a mile: from there on (including 510 ft that would round up to 550) say miles.
            if roundedFeet < 528 {
                return roundedFeet == 0 ? nil : "\(Int(roundedFeet)) feet"
            }
            let tenths = max(1, (meters / Split.mileMeters * 10).rounded())
            return tenthsText(tenths) + (tenths == 10 ? " mile" : " miles")
        case .metric:
            if meters < 95 {
                let rounded = (meters / 10).rounded() * 10
                return rounded == 0 ? nil : "\(Int(rounded)) m"
            }
            if meters < 975 { return "\(Int(max(100, (meters / 50).rounded() * 50))) m" }
            return tenthsText(max(10, (meters / 100).rounded())) + " km"
        }
    }

    /// One international foot, metres.
    static let footMeters = 0.3048

    /// A count of tenths as a decimal, without a trailing ".0": 3 → "0.3", 12 → "1.2", 20 → "2".
    static func tenthsText(_ tenths: Double) -> String {
        let whole = Int(tenths) / 10, fraction = Int(tenths) % 10
        return fraction == 0 ? "\(whole)" : "\(whole).\(fraction)"
    }
}
