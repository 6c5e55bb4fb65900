/// Which way a cue turns.
public enum TurnDirection: String, Sendable, Hashable, Codable, CaseIterable {
    case left
    case right
}

/// How much a cue turns, by the size of the change of heading.
///
/// The bands are the ones navigation apps speak (OsmAnd and BRouter use nearly the same): slight 30–60°,
/// turn 60–120°, sharp 120–160°, U-turn beyond 160°.
public enum TurnSeverity: String, Sendable, Hashable, Codable, CaseIterable {
    case slight
    case turn
    case sharp
    case uturn

    /// Smallest change of heading, degrees, that is a cue at all.
    public static let minimumDegrees: Double = 30

    /// The band of an unsigned change of heading in degrees, or nil under `minimumDegrees`.
    ///
    ///     TurnSeverity(angleDegrees: 95)   // .turn
    ///     TurnSeverity(angleDegrees: 12)   // nil
    public init?(angleDegrees: Double) {
        let size = abs(angleDegrees)
        guard size.isFinite, size >= Self.minimumDegrees else { return nil }
        if size < 60 { self = .slight } else if size < 120 { self = .turn } else if size < 160 { self = .sharp } else { self = .uturn }
    }
}

/// One turn on a route: where it is, how far along the route, which way and how much.
public struct Cue: Sendable, Hashable, Codable {
    /// The corner itself (for a rounded corner, its middle).
    public var coordinate: Coordinate
    /// Distance along the route from its start to the corner, metres.
    public var distanceMeters: Double
    /// Left or right (never straight: going straight is not a cue).
    public var direction: TurnDirection
    /// Slight, turn, sharp or U-turn.
    public var severity: TurnSeverity
    /// Change of heading, degrees, −180…180: positive to the right, negative to the left.
    public var angleDegrees: Double

    public init(coordinate: Coordinate, distanceMeters: Double, direction: TurnDirection, severity: TurnSeverity, angleDegrees: Double) {
        self.coordinate = coordinate
        self.distanceMeters = distanceMeters
        self.direction = direction
        self.severity = severity
        self.angleDegrees = angleDegrees
    }
}
