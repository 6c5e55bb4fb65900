import Foundation
import RideKit

/// A baseline to measure `TurnDetector` against: the heuristic OsmAnd applies to routes without turn
/// instructions (`addMissingTurnsToRoute`), written here from its description, not its code.
///
/// At each point, the heading *before* is the bearing to it from the last point at least 70 m behind; the
/// heading *after* is the bearing of the next single segment, taken once at least `minimumMeters` of line
/// (OsmAnd: 7 m + 2 s at the profile's speed, 15 m for a bicycle) has been passed since the last decision.
/// A change over 30° is a turn, placed where the stretch began. Classes here are `TurnSeverity`'s bands, so
/// that only the way of measuring differs.
enum OsmAndStyleBaseline {
    static func cues(along line: [Coordinate], minimumMeters: Double = 15) -> [Cue] {
        guard line.count > 2 else { return [] }
        var along = [0.0]
        for (a, b) in zip(line, line.dropFirst()) { along.append(along[along.count - 1] + a.distanceMeters(to: b)) }
        var cues: [Cue] = []
        var behind = 0, start = 0
        var accumulated = 0.0, before = 0.0
        for index in 1..<(line.count - 1) {
            while behind < index - 1 && line[behind + 1].distanceMeters(to: line[index]) > 70 { behind += 1 }
            if accumulated == 0 {
                before = line[behind].initialBearingDegrees(to: line[index])
                start = index
            }
            accumulated += line[index].distanceMeters(to: line[index + 1])
            guard accumulated >= minimumMeters else { continue }
            var change = line[index].initialBearingDegrees(to: line[index + 1]) - before
            if change > 180 { change -= 360 } else if change <= -180 { change += 360 }
            if let severity = TurnSeverity(angleDegrees: change) {
                cues.append(Cue(coordinate: line[start], distanceMeters: along[start], direction: change > 0 ? .right : .left,
                                severity: severity, angleDegrees: change))
                behind = index
            }
            accumulated = 0
        }
        return cues
    }
}
