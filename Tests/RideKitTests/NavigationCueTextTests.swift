import RideKit
import Testing

/// The words of a cue and the distance rounded the way navigation apps say it.
@Suite struct NavigationCueTextTests {
    @Test func instructionsNameTheSeverityAndSide() {
        #expect(CueText.instruction(direction: .right, severity: .turn) == "Turn right")
        #expect(CueText.instruction(direction: .left, severity: .slight) == "Slight left")
        #expect(CueText.instruction(direction: .right, severity: .sharp) == "Sharp right")
        #expect(CueText.instruction(direction: .left, severity: .uturn) == "Make a U-turn")
        #expect(CueText.instruction(direction: .right, severity: .uturn) == "Make a U-turn")
    }

    @Test func theBriefsExamples() {
        #expect(CueText.text(direction: .right, severity: .turn, distanceMeters: 15, units: .imperial) == "Turn right in 50 feet")
        #expect(CueText.text(direction: .left, severity: .slight, distanceMeters: 0.3 * 1609.344, units: .imperial) == "Slight left in 0.3 miles")
        #expect(CueText.text(direction: .left, severity: .uturn, distanceMeters: 200, units: .metric) == "Make a U-turn in 200 m")
        #expect(CueText.text(direction: .right, severity: .sharp, distanceMeters: 1200, units: .metric) == "Sharp right in 1.2 km")
    }

    /// Feet in 50s below a tenth of a mile (528 ft), then tenths of a mile. 1 ft = 0.3048 m.
    @Test(arguments: [
        (0.0, nil), (7.0, nil), (7.7, "50 feet"), (15.24, "50 feet"), (30.0, "100 feet"), (152.4, "500 feet"),
        (155.0, "500 feet"), (160.0, "500 feet"), (160.5, "0.1 miles"), (160.9, "0.1 miles"), (250.0, "0.2 miles"),
        (1609.344, "1 mile"), (1690.0, "1.1 miles"),
        (3218.7, "2 miles"), (16093.44, "10 miles"),
    ] as [(Double, String?)])
    func imperialDistances(meters: Double, spoken: String?) {
        #expect(CueDistance.spoken(meters: meters, units: .imperial) == spoken)
    }

    /// 10 m steps below 100 m, 50 m steps below 1 km, then km with one decimal.
    @Test(arguments: [
        (0.0, nil), (4.9, nil), (5.0, "10 m"), (44.0, "40 m"), (94.0, "90 m"), (96.0, "100 m"), (124.0, "100 m"),
        (126.0, "150 m"), (940.0, "950 m"), (980.0, "1 km"), (1049.0, "1 km"), (1051.0, "1.1 km"), (12_340.0, "12.3 km"),
    ] as [(Double, String?)])
    func metricDistances(meters: Double, spoken: String?) {
        #expect(CueDistance.spoken(meters: meters, units: .metric) == spoken)
    }

    @Test func atTheCueOnlyTheInstructionIsSaid() {
        #expect(CueText.text(direction: .left, severity: .turn, distanceMeters: 2, units: .metric) == "Turn left")
        #expect(CueText.text(direction: .left, severity: .turn, distanceMeters: 2, units: .imperial) == "Turn left")
    }

    @Test func hostileDistancesSayNoDistance() {
        for value in [-1.0, .nan, .infinity, -.infinity] {
            #expect(CueDistance.spoken(meters: value, units: .metric) == nil)
            #expect(CueDistance.spoken(meters: value, units: .imperial) == nil)
        }
        #expect(CueDistance.spoken(meters: 1e300, units: .metric) != nil)
    }

    @Test func severityBands() {
        #expect(TurnSeverity(angleDegrees: 29.9) == nil)
        #expect(TurnSeverity(angleDegrees: -30) == .slight)
        #expect(TurnSeverity(angleDegrees: 60) == .turn)
        #expect(TurnSeverity(angleDegrees: -119.9) == .turn)
        #expect(TurnSeverity(angleDegrees: 120) == .sharp)
        #expect(TurnSeverity(angleDegrees: 160) == .uturn)
        #expect(TurnSeverity(angleDegrees: .nan) == nil)
    }

    @Test func coursePointTypesAreGarminsNames() {
        func cue(_ direction: TurnDirection, _ severity: TurnSeverity) -> Cue {
            Cue(coordinate: Coordinate(latitude: 0, longitude: 0), distanceMeters: 0, direction: direction, severity: severity,
                angleDegrees: 0)
        }
        #expect(cue(.left, .slight).coursePointType == "SlightLeft")
        #expect(cue(.right, .turn).coursePointType == "Right")
        #expect(cue(.left, .sharp).coursePointType == "SharpLeft")
        #expect(cue(.right, .uturn).coursePointType == "UTurn")
        #expect(cue(.left, .sharp).tcxPointType == "Left")
    }
}
