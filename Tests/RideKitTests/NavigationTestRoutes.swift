import Foundation
import RideKit

/// Routes drawn leg by leg with `Coordinate.destination`, so that every corner's place, distance along the
/// route and angle are known exactly, and rides along them.
struct DrawnRoute {
    /// A corner as drawn: where, how far along the route, and its signed angle (right positive).
    struct Corner {
        var coordinate: Coordinate
        var distanceMeters: Double
        var angleDegrees: Double
    }

    /// The vertices: start, corners, end (and the points of any curves).
    var line: [Coordinate]
    var corners: [Corner]
    var lengthMeters: Double

    /// Straight legs of `lengths` metres from `start`, first heading `heading`, turning `turns[i]` degrees
    /// (right positive) after leg `i`; `turns` has one element fewer than `lengths`.
    static func legs(from start: Coordinate, heading: Double, lengths: [Double], turns: [Double]) -> DrawnRoute {
        var line = [start], corners: [Corner] = []
        var heading = heading, along = 0.0
        for (index, length) in lengths.enumerated() {
            line.append(line[line.count - 1].destination(distanceMeters: length, bearingDegrees: heading))
            along += length
            if index < turns.count {
                corners.append(Corner(coordinate: line[line.count - 1], distanceMeters: along, angleDegrees: turns[index]))
                heading += turns[index]
            }
        }
        return DrawnRoute(line: line, corners: corners, lengthMeters: along)
    }

    /// A figure eight through `center`: from 71 m south-west of it north-east across it, then sharp right
    /// twice (135° each) to cross the first leg at `center`, then sharp left twice back to the start.
    /// Legs: 212, 200, 283, 200, 71 m.
    static func figureEight(around center: Coordinate) -> DrawnRoute {
        let start = center.destination(distanceMeters: 50 * 2.0.squareRoot(), bearingDegrees: 225)
        return legs(from: start, heading: 45, lengths: [150 * 2.0.squareRoot(), 200, 200 * 2.0.squareRoot(), 200, 50 * 2.0.squareRoot()],
                    turns: [135, 135, -135, -135])
    }

    /// A straight leg, then a curve turning `turnDegrees` evenly over `curveMeters` (a point every 5 m), then
    /// a straight leg: a road that bends, with no corner.
    static func bend(from start: Coordinate, heading: Double, turnDegrees: Double, curveMeters: Double, legMeters: Double = 200) -> DrawnRoute {
        var line = [start, start.destination(distanceMeters: legMeters, bearingDegrees: heading)]
        let steps = Int(curveMeters / 5)
        var bearing = heading
        for step in 0..<steps {
            bearing = heading + turnDegrees * (Double(step) + 0.5) / Double(steps)
            line.append(line[line.count - 1].destination(distanceMeters: curveMeters / Double(steps), bearingDegrees: bearing))
        }
        line.append(line[line.count - 1].destination(distanceMeters: legMeters, bearingDegrees: heading + turnDegrees))
        return DrawnRoute(line: line, corners: [], lengthMeters: 2 * legMeters + curveMeters)
    }

    /// Points every `stepMeters` along the line from its start, each with its distance along the line; with
    /// `keepVertices`, the vertices too (a routing engine keeps its junctions).
    func walk(stepMeters: Double, keepVertices: Bool = false) -> [(coordinate: Coordinate, alongMeters: Double)] {
        var points: [(coordinate: Coordinate, alongMeters: Double)] = [(line[0], 0)]
        var segmentStart = 0.0, next = stepMeters
        for (a, b) in zip(line, line.dropFirst()) {
            let length = a.distanceMeters(to: b), bearing = a.initialBearingDegrees(to: b)
            while next < segmentStart + length {
                points.append((a.destination(distanceMeters: next - segmentStart, bearingDegrees: bearing), next))
                next += stepMeters
            }
            segmentStart += length
            if keepVertices && points[points.count - 1].alongMeters < segmentStart - 0.01 { points.append((b, segmentStart)) }
        }
        return points
    }
}
