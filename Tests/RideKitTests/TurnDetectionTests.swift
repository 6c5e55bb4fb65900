import Foundation
import RideKit
import TestSupport
import Testing

/// Turn detection on routes drawn with known corners: each at every density, and the shapes that are not
/// turns (bends, S-bends, the antimeridian) or are two (jogs).
@Suite struct TurnDetectionTests {
    static let start = Coordinate(latitude: 47.37, longitude: 8.54)

    /// The route drawn at a point per corner, a point every 15 m (corners kept), and a point every 7 m
    /// (corners not kept: the corner falls between points).
    static func renderings(_ route: DrawnRoute) -> [[Coordinate]] {
        [route.line, route.walk(stepMeters: 15, keepVertices: true).map(\.coordinate),
         route.walk(stepMeters: 7).map(\.coordinate)]
    }

    @Test(arguments: [-175.0, -140, -90, -45, 35, 70, 110, 130, 165, 179])
    func aSingleCornerIsOneCueAtEveryDensity(angle: Double) throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 20, lengths: [250, 250], turns: [angle])
        for line in Self.renderings(route) {
            let cues = TurnDetector.cues(along: line)
            try #require(cues.count == 1, "\(line.count) points: \(cues)")
            let cue = cues[0]
            // Within one step of the rendering: the 7 m one does not have the corner among its points.
            #expect(cue.coordinate.distanceMeters(to: route.corners[0].coordinate) < 7)
            #expect(abs(cue.distanceMeters - 250) < 7)
            #expect(cue.severity == TurnSeverity(angleDegrees: angle))
            if cue.severity != .uturn {
                #expect(abs(cue.angleDegrees - angle) < 3, "\(cue.angleDegrees) for \(angle)")
                #expect(cue.direction == (angle > 0 ? .right : .left))
            } else {
                #expect(abs(abs(cue.angleDegrees) - abs(angle)) < 3)
            }
        }
    }

    @Test func aCornerIsNotACueUnderThirtyDegrees() {
        let route = DrawnRoute.legs(from: Self.start, heading: 100, lengths: [300, 300, 300], turns: [25, -20])
        for line in Self.renderings(route) { #expect(TurnDetector.cues(along: line).isEmpty) }
    }

    @Test(arguments: [(90.0, 300.0), (-90, 200), (60, 250), (120, 500)])
    func aRoadThatBendsGentlyIsNotATurn(turn: Double, overMeters: Double) {
        let route = DrawnRoute.bend(from: Self.start, heading: 45, turnDegrees: turn, curveMeters: overMeters)
        #expect(TurnDetector.cues(along: route.line).isEmpty)
        #expect(TurnDetector.cues(along: route.walk(stepMeters: 12).map(\.coordinate)).isEmpty)
    }

    @Test func anSBendIsNotATurn() {
        let first = DrawnRoute.bend(from: Self.start, heading: 0, turnDegrees: 60, curveMeters: 150, legMeters: 100)
        let second = DrawnRoute.bend(from: first.line.last!, heading: 60, turnDegrees: -60, curveMeters: 150, legMeters: 100)
        let line = first.line + second.line.dropFirst()
        #expect(TurnDetector.cues(along: line).isEmpty)
    }

    @Test(arguments: [(-90.0, 90.0), (90, 90), (-60, 120)])
    func twoCornersFortyMetresApartAreTwoTurns(first: Double, second: Double) throws {
        let route = DrawnRoute.legs(from: Self.start, heading: 300, lengths: [200, 40, 200], turns: [first, second])
        for line in Self.renderings(route) {
            let cues = TurnDetector.cues(along: line)
            try #require(cues.count == 2, "\(cues)")
            for (cue, corner) in zip(cues, route.corners) {
                #expect(abs(cue.distanceMeters - corner.distanceMeters) < 5)
                #expect(abs(cue.angleDegrees - corner.angleDegrees) < 5, "\(cue.angleDegrees) for \(corner.angleDegrees)")
            }
        }
    }

    @Test func twoLeftsAFewMetresApartAreOneUTurn() throws {
        // Across the end of a dead-end street: geometry cannot tell it from a U-turn, and says it as one.
        let route = DrawnRoute.legs(from: Self.start, heading: 0, lengths: [200, 6, 200], turns: [-90, -90])
        let cues = TurnDetector.cues(along: route.line)
        try #require(cues.count == 1, "\(cues)")
        #expect(cues[0].severity == .uturn)
        #expect(cues[0].direction == .left)
    }

    @Test func aCornerOnTheAntimeridianIsMeasuredAcrossIt() throws {
        // Heading east across 180°, turning right onto it, then south.
        let start = Coordinate(latitude: 64.2, longitude: 179.999)
        let route = DrawnRoute.legs(from: start, heading: 90, lengths: [150, 300, 200], turns: [90, 45])
        #expect(route.corners[0].coordinate.longitude < 0, "the first corner is east of 180°")
        for line in Self.renderings(route) {
            let cues = TurnDetector.cues(along: line)
            try #require(cues.count == 2, "\(cues)")
            #expect(abs(cues[0].angleDegrees - 90) < 3)
            #expect(abs(cues[1].angleDegrees - 45) < 3)
            #expect(abs(cues[0].distanceMeters - 150) < 5)
        }
        // A straight line across the antimeridian has no turn in it.
        let straight = DrawnRoute.legs(from: start, heading: 80, lengths: [2000], turns: [])
        #expect(TurnDetector.cues(along: straight.walk(stepMeters: 10).map(\.coordinate)).isEmpty)
    }

    @Test func aFigureEightGivesEachCornerOnceAndNothingWhereItCrosses() throws {
        let route = DrawnRoute.figureEight(around: Self.start)
        for line in Self.renderings(route) {
            let cues = TurnDetector.cues(along: line)
            try #require(cues.count == route.corners.count, "\(cues.count) cues")
            for (cue, corner) in zip(cues, route.corners) {
                #expect(cue.coordinate.distanceMeters(to: corner.coordinate) < 5)
                #expect(cue.direction == (corner.angleDegrees > 0 ? .right : .left))
                #expect(cue.severity == .sharp)
            }
        }
    }

    @Test func aRouteThousandsOfKilometresLongIsMeasuredAtItsCorners() throws {
        // 3,000 km along the equator, then north: the corner's angle is the local one, 90°, although the legs'
        // great circles are far from straight on a map; the samples thin out to a million, no more.
        let route = DrawnRoute.legs(from: Coordinate(latitude: 0, longitude: 170), heading: 90, lengths: [3_000_000, 3_000_000], turns: [-90])
        let cues = TurnDetector.cues(along: route.line)
        try #require(cues.count == 1, "\(cues)")
        #expect(abs(cues[0].angleDegrees + 90) < 1)
        #expect(abs(cues[0].distanceMeters - 3_000_000) < 10)
    }

    @Test func aStraightLineHasNoCues() {
        let route = DrawnRoute.legs(from: Self.start, heading: 33, lengths: [5000], turns: [])
        #expect(TurnDetector.cues(along: route.walk(stepMeters: 1).map(\.coordinate)).isEmpty)
    }

    @Test func degenerateInputGivesNoCuesAndNoCrash() {
        let here = Self.start
        #expect(TurnDetector.cues(along: []).isEmpty)
        #expect(TurnDetector.cues(along: [here]).isEmpty)
        #expect(TurnDetector.cues(along: Array(repeating: here, count: 1000)).isEmpty)
        let invalid = [Coordinate(latitude: .nan, longitude: 0), Coordinate(latitude: 91, longitude: 0),
                       Coordinate(latitude: 0, longitude: .infinity)]
        #expect(TurnDetector.cues(along: invalid).isEmpty)
        // Invalid points among good ones are skipped, not taken for corners.
        let route = DrawnRoute.legs(from: here, heading: 0, lengths: [200, 200], turns: [90])
        let mixed = [route.line[0]] + invalid + [route.line[1], route.line[1], route.line[2]]
        #expect(TurnDetector.cues(along: mixed).map(\.severity) == [.turn])
        // A route shorter than the measuring distances has no room for a turn.
        let tiny = DrawnRoute.legs(from: here, heading: 0, lengths: [5, 5], turns: [90])
        #expect(TurnDetector.cues(along: tiny.line).isEmpty)
    }

    @Test func cuesAreInRouteOrderWithIncreasingDistances() {
        var random = SeededGenerator(seed: 41)
        let route = SyntheticRoute.random(cornerCount: 12, using: &random)
        for line in route.lines.values {
            let distances = TurnDetector.cues(along: line).map(\.distanceMeters)
            #expect(distances == distances.sorted())
        }
    }
}
